"""``fcbench compat``: probe schema-keyword support and request capabilities per target."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fcbench.errors import ConfigError

if TYPE_CHECKING:
    from fcbench.compat.probes import StrictChoice

REPORT_STEM = "compat"
"""The matrices are also written into the run directory as ``compat.json`` and ``compat.<format>``."""

_STRICT_CHOICES = ("both", "off", "on")


def compat_command(
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            "-c",
            help="YAML or JSON run configuration (targets, endpoints, repeats; its suite is not used).",
        ),
    ] = None,
    target: Annotated[
        list[str] | None, typer.Option("--target", "-t", help="ENDPOINT:MODEL (repeatable).")
    ] = None,
    repeats: Annotated[int | None, typer.Option(help="Repeats per probe.")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="md | html | json.")] = "md",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the matrices here instead of stdout.")
    ] = None,
    out: Annotated[Path, typer.Option(help="Folder that receives runs/<run_id>/.")] = Path("runs"),
    probe: Annotated[
        list[str] | None,
        typer.Option(
            "--probe",
            help="Only this probe id or capability group; with --suite also a tool name or keyword "
            "(repeatable).",
        ),
    ] = None,
    strict: Annotated[str, typer.Option(help="Keyword probes with strict mode: both | off | on.")] = "both",
    suite: Annotated[
        str | None,
        typer.Option(
            help="Also probe every JSON Schema keyword the tools of this suite use (built-in name or "
            "suite path, as for fcbench run --suite).",
        ),
    ] = None,
    only_suite: Annotated[
        bool,
        typer.Option("--only-suite", help="With --suite: run only the probes derived from its tools."),
    ] = False,
    concurrency: Annotated[int | None, typer.Option(help="Requests in flight across the run.")] = None,
    mock_latency_ms: Annotated[int, typer.Option(help="Latency of the embedded mock provider.")] = 0,
    mock_faults: Annotated[
        str | None, typer.Option(help="Fault spec for the embedded mock provider.")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Probe which schema keywords and request options each target supports (default: simulated targets).

    With --suite, every keyword use in that suite's tools gets a probe of its own too, reported
    per tool and property.

    Examples: fcbench compat; fcbench compat -t openai:gpt-4o-2024-08-06 --repeats 1;
    fcbench compat --suite my-tools --only-suite
    """

    from rich.console import Console

    from fcbench.cli.common import managed_services, progress_sink
    from fcbench.cli.output import print_data
    from fcbench.compat.classify import classify
    from fcbench.compat.probes import prepare_compat
    from fcbench.compat.render import FORMATS, render, render_json
    from fcbench.config import CommandLine, load_config
    from fcbench.run import execute
    from fcbench.store.records import RECORDS_FILE
    from fcbench.store.view import iter_views
    from fcbench.transport.event_loop import run_async

    if fmt not in FORMATS:
        raise ConfigError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}", key="--format")
    if strict not in _STRICT_CHOICES:
        raise ConfigError(
            f"--strict must be one of {', '.join(_STRICT_CHOICES)}, not {strict!r}", key="--strict"
        )
    strict_choice: StrictChoice = strict  # type: ignore[assignment]
    cfg = load_config(config, CommandLine(targets=target, repeats=repeats, concurrency=concurrency))
    spec, plan = prepare_compat(
        cfg, out_root=out, probes=probe, strict=strict_choice, suite=suite, only_suite=only_suite
    )
    err = Console(stderr=True, emoji=False)
    sink = progress_sink(err) if progress else None
    with managed_services(
        spec.targets, mock_latency_ms=mock_latency_ms, mock_faults=mock_faults, console=err
    ) as services:
        run = run_async(execute(spec, services=services, progress=sink))
    report = classify(
        plan,
        iter_views(run.run_dir / RECORDS_FILE),
        run.manifest.targets,
        run_id=run.manifest.run_id,
        run_dir=str(run.run_dir),
        repeats=run.manifest.repeats,
    )
    text = render(report, fmt)
    (run.run_dir / f"{REPORT_STEM}.json").write_text(render_json(report), encoding="utf-8")
    if fmt != "json":
        (run.run_dir / f"{REPORT_STEM}.{fmt}").write_text(text, encoding="utf-8")
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    print_data(
        err, f"compat run {run.manifest.run_id}: {run.recorded} observations recorded -> {run.run_dir}"
    )


def register(app: typer.Typer) -> None:
    """Add ``compat`` to the app."""
    app.command("compat")(compat_command)
