"""``fcbench report RUN``: render a run's metrics as markdown, HTML, JSON, JUnit XML, CSV or a
GitHub step summary."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from fcbench.cli.helptext import RegistryHelpCommand


def report(
    run: Path = typer.Argument(..., help="Run directory (holds manifest.json and records.jsonl)."),
    fmt: str = typer.Option("md", "--format", "-f", help="Output format: {report_formats}."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout."),
    mode: list[str] | None = typer.Option(None, "--mode", help="Only this mode (repeatable)."),
    profile: str = typer.Option(
        "strict",
        "--profile",
        help=(
            "Scoring profile(s): strict, bfcl or repairs, or several side by side, such as "
            "'strict,repairs' (md, json)."
        ),
    ),
) -> None:
    """Report per-target metrics of a run, every rate with its numerator and denominator.

    In a terminal the markdown is rendered (tables drawn); piped or with -o it is written as is.

    Examples: fcbench report runs/RUN_ID; fcbench report runs/RUN_ID -f html -o report.html;
    fcbench report runs/RUN_ID -f json --profile strict,repairs
    """
    from fcbench.report.render import FORMATS, render_profiles, render_report

    if fmt not in FORMATS:  # a usage error (exit 2), however the command is invoked
        message = f"unknown report format {fmt!r}; choose one of {', '.join(FORMATS)}"
        raise typer.BadParameter(message, param_hint="'--format'")
    profiles = [p.strip() for p in profile.split(",") if p.strip()]
    if fmt == "json" and len(profiles) <= 1:
        _stream_json(run, output, mode or None, profiles[0] if profiles else "strict")
        return
    if len(profiles) > 1:
        text = render_profiles(run, fmt, profiles, modes=mode or None)
    else:
        text = render_report(run, fmt, modes=mode or None, profile=profiles[0] if profiles else "strict")
    if fmt == "md":
        from fcbench.report.markdown import known_patterns_section

        text += known_patterns_section(run)
    if output is None:
        if fmt == "md" and sys.stdout.isatty():  # a person reading: tables, not markdown source
            from rich.console import Console

            from fcbench.report.fit import print_markdown

            print_markdown(Console(emoji=False, highlight=False), text)
            return
        sys.stdout.write(text)
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    typer.echo(f"wrote {output}", err=True)


def _stream_json(run: Path, output: Path | None, modes: list[str] | None, profile: str) -> None:
    """Write the JSON report to stdout or ``output`` as it is encoded (a large run's JSON is never
    held whole); a file is written beside ``output`` and renamed once complete."""
    from fcbench.metrics import compute_metrics
    from fcbench.report.jsonfmt import write_json

    metrics = compute_metrics(run, modes=modes, profile=profile, parts="auto")
    if output is None:
        binary = getattr(sys.stdout, "buffer", None)
        if binary is None:  # a text-only stdout
            from fcbench.report.jsonfmt import render_json

            sys.stdout.write(render_json(metrics))
            return
        sys.stdout.flush()
        write_json(metrics, binary)
        binary.flush()
        return
    from fcbench.files import replaced_file

    with replaced_file(output) as fh:
        write_json(metrics, fh)
    typer.echo(f"wrote {output}", err=True)


def register(app: typer.Typer) -> None:
    """Add the ``report`` command to the fcbench app."""
    app.command("report", cls=RegistryHelpCommand)(report)
