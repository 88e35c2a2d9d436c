"""``fcbench run``: run a suite against targets, repeatedly, and keep every observation."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from fcbench.cli.common import RichProgress, embedded_mock
from fcbench.config import RunConfig, load_config
from fcbench.report.terminal import print_summary
from fcbench.run import RunResult, execute, prepare, stored_config
from fcbench.run.plan import Shard


def run_command(
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="YAML or JSON run configuration.")
    ] = None,
    suite: Annotated[str | None, typer.Option(help="Built-in suite name or suite folder.")] = None,
    target: Annotated[
        list[str] | None, typer.Option("--target", "-t", help="ENDPOINT:MODEL (repeatable).")
    ] = None,
    repeats: Annotated[int | None, typer.Option(help="Repeats per case.")] = None,
    concurrency: Annotated[int | None, typer.Option(help="Requests in flight across the run.")] = None,
    category: Annotated[
        list[str] | None, typer.Option(help="Only cases of this category (repeatable).")
    ] = None,
    tag: Annotated[list[str] | None, typer.Option(help="Only cases with this tag (repeatable).")] = None,
    case: Annotated[list[str] | None, typer.Option("--case", help="Only this case id (repeatable).")] = None,
    mode: Annotated[
        list[str] | None, typer.Option(help="selection | forced | stream | recovery (repeatable).")
    ] = None,
    out: Annotated[Path, typer.Option(help="Folder that receives runs/<run_id>/.")] = Path("runs"),
    seed: Annotated[int | None, typer.Option(help="Seed passed to providers that accept one.")] = None,
    resume: Annotated[Path | None, typer.Option(help="Continue a stopped run directory.")] = None,
    shard: Annotated[str | None, typer.Option(help="Run only slice I/N of the plan.")] = None,
    mock_latency_ms: Annotated[int, typer.Option(help="Latency of the embedded mock provider.")] = 0,
    mock_faults: Annotated[
        str | None, typer.Option(help="Fault spec for the embedded mock provider.")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Run a suite against targets (default: the built-in suite on the simulated models, no keys)."""
    overrides = {
        "suite": suite,
        "targets": target,
        "repeats": repeats,
        "concurrency": concurrency,
        "categories": category,
        "tags": tag,
        "cases": case,
        "modes": mode,
        "seed": seed,
    }
    if resume is not None and config is None:
        stored = stored_config(resume).model_dump(by_alias=False)
        cfg = RunConfig.model_validate(
            {**stored, **{k: v for k, v in overrides.items() if v not in (None, [])}}
        )
    else:
        cfg = load_config(config, overrides)
    spec = prepare(cfg, out_root=out, resume_dir=resume, shard=Shard.parse(shard) if shard else None)
    console = Console(stderr=True)
    sink = RichProgress(console) if progress else None
    needs_mock = any(t.endpoint.is_mock for t in spec.targets)
    with embedded_mock(needs_mock, mock_latency_ms, mock_faults) as mock_url:
        result: RunResult = asyncio.run(execute(spec, mock_url=mock_url, progress=sink))
    out_console = Console()
    print_summary(out_console, result.run_dir)
    out_console.print(
        f"run {result.manifest.run_id}: {result.recorded} recorded now, {result.skipped} already recorded, "
        f"{result.planned} planned, {result.retries} retries -> {result.run_dir}",
        highlight=False,
        soft_wrap=True,
    )


def register(app: typer.Typer) -> None:
    """Add ``run`` to the app."""
    app.command("run")(run_command)
