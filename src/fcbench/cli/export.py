"""``fcbench export RUN``: every observation of a run as one row, raw bodies expanded, as Parquet,
CSV or JSON Lines (Parquet needs the ``parquet`` extra).

``fcbench export cases SUITE --format seed [-o FILE]``: a suite's cases in the seed's own case format
(a JSON array of ``FCTestCase`` objects, :mod:`fcbench.suite.seed_format`); what they say that the
seed format cannot hold is named on stderr.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path

import typer

CASES_WORD = "cases"
"""The first argument that makes ``export`` export a suite's cases instead of a run."""


class ExportFormat(StrEnum):
    """Formats of ``fcbench export`` (``seed`` for ``export cases``, the others for a run)."""

    parquet = "parquet"
    csv = "csv"
    jsonl = "jsonl"
    seed = "seed"


def export_cases(suite: str, fmt: ExportFormat, output: Path | None) -> None:
    """Write ``suite``'s cases in ``fmt`` (``seed``) to ``output`` or stdout; warnings on stderr."""
    import json

    from fcbench.cli.output import print_data
    from fcbench.errors import ConfigError
    from fcbench.report.terminal import data_console
    from fcbench.suite.loader import load_suite
    from fcbench.suite.seed_format import cases_to_seed

    if fmt is not ExportFormat.seed:
        raise ConfigError(f"cases are exported as seed, not {fmt.value}", key="--format")
    loaded = load_suite(suite)
    conversion = cases_to_seed(loaded.cases, loaded.tools_for, loaded.system)
    text = json.dumps(conversion.cases, indent=2, ensure_ascii=False) + "\n"
    errors = data_console(stderr=True)
    for warning in conversion.warnings:
        print_data(errors, f"warning: {warning}")
    if output is None:
        sys.stdout.write(text)
        return
    from fcbench.files import write_replacing

    write_replacing(output, text)
    typer.echo(
        f"wrote {len(conversion.cases)} cases ({len(conversion.skipped)} skipped) to {output}", err=True
    )


def export(
    run: Path = typer.Argument(..., help="Run directory (holds manifest.json and records.jsonl), or: cases."),
    suite: str | None = typer.Argument(None, help="After `cases`: a built-in suite name or suite folder."),
    fmt: ExportFormat = typer.Option(..., "--format", "-f", help="parquet, csv or jsonl; seed for cases."),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write to this file (default: stdout; Parquet needs a file)."
    ),
) -> None:
    """Export one row per observation, raw bodies expanded, as Parquet, CSV or JSON Lines; or a
    suite's cases in the seed's case format.

    A row holds the target, case, verdict, first call, expected part, tokens, cost, and the raw
    request and response. Examples: fcbench export runs/ID --format parquet -o run.parquet;
    fcbench export runs/ID --format csv > run.csv; fcbench export cases core --format seed -o cases.json"""
    from fcbench.errors import ConfigError
    from fcbench.report.export import export_run

    if suite is not None:
        if str(run) != CASES_WORD:
            raise ConfigError(f"a second argument is only taken after {CASES_WORD!r}", key=suite)
        export_cases(suite, fmt, output)
        return
    if fmt is ExportFormat.seed:
        raise ConfigError(
            "seed is the format of cases: fcbench export cases SUITE --format seed", key="--format"
        )
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
