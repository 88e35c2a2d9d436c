"""``fcbench run``: run a suite against targets, repeatedly, and keep every observation."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from fcbench.config import RunConfig, load_config
from fcbench.plan import Shard
from fcbench.records import Record
from fcbench.runner import ProgressSink, RunResult, execute, prepare, stored_config
from fcbench.summary import print_summary


class RichProgress(ProgressSink):
    """A rich progress bar per target: done/planned, errors, ETA."""

    def __init__(self, console: Console) -> None:
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("errors {task.fields[errors]}"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self._tasks: dict[str, Any] = {}

    def start(self, totals: dict[str, int], done: dict[str, int]) -> None:
        for label, total in totals.items():
            self._tasks[label] = self._progress.add_task(
                label, total=total, completed=done.get(label, 0), errors=0
            )
        self._progress.start()

    def advance(self, label: str, record: Record) -> None:
        task = self._tasks[label]
        if record.outcome.get("kind") == "provider_error":
            errors = self._progress.tasks[task].fields["errors"] + 1
            self._progress.update(task, advance=1, errors=errors)
        else:
            self._progress.advance(task)

    def stop(self) -> None:
        self._progress.stop()


@contextlib.contextmanager
def embedded_mock(needed: bool, latency_ms: int, faults: str | None) -> Iterator[str | None]:
    """Start the mock provider in the background when a target needs it; yield its URL."""
    if not needed:
        yield None
        return
    from fcbench.mock.server import MockServer

    with MockServer(latency_ms=latency_ms, faults=faults) as server:
        yield server.url


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
