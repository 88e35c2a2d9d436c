"""``fcbench export RUN``: every observation of a run as one row, raw bodies expanded, as Parquet,
CSV or JSON Lines (Parquet needs the ``parquet`` extra)."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path

import typer


class ExportFormat(StrEnum):
    """Formats of ``fcbench export``."""

    parquet = "parquet"
    csv = "csv"
    jsonl = "jsonl"


def export(
    run: Path = typer.Argument(..., help="Run directory (holds manifest.json and records.jsonl)."),
    fmt: ExportFormat = typer.Option(..., "--format", "-f", help="parquet, csv or jsonl."),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write to this file (default: stdout; Parquet needs a file)."
    ),
) -> None:
    """Export one row per observation, raw bodies expanded, as Parquet, CSV or JSON Lines.

    A row holds the target, case, verdict, first call, expected part, tokens, cost, and the raw
    request and response. Examples: fcbench export runs/ID --format parquet -o run.parquet;
    fcbench export runs/ID --format csv > run.csv"""
    from fcbench.errors import ConfigError
    from fcbench.report.export import export_run

    if output is None:
        if fmt is ExportFormat.parquet:
            raise ConfigError("Parquet is written to a file: add -o FILE.parquet", key="--output")
        export_run(run, fmt.value, sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return
    from fcbench.files import replaced_file

    with replaced_file(output) as fh:
        rows = export_run(run, fmt.value, fh)
    typer.echo(f"wrote {rows} rows to {output}", err=True)


def register(app: typer.Typer) -> None:
    """Add the ``export`` command to the fcbench app."""
    app.command("export")(export)
