"""``fcbench compare BASE NEW``: the regression gate between two runs (exit 1 on regression)."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path

import typer

from fcbench.errors import ConfigError
from fcbench.metrics import compute_metrics
from fcbench.report.compare import compare_runs, render_compare_json, render_compare_markdown


class CompareFormat(StrEnum):
    """Output formats of ``fcbench compare``."""

    md = "md"
    json = "json"


def compare(
    base: Path = typer.Argument(..., help="Base run directory."),
    new: Path = typer.Argument(..., help="New run directory."),
    max_drop: float = typer.Option(5.0, "--max-drop", help="Largest allowed pass-rate drop, in points."),
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level for a metric drop."),
    fmt: CompareFormat = typer.Option(CompareFormat.md, "--format", "-f", help="Output format."),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Also write the comparison to this file."
    ),
    mode: list[str] | None = typer.Option(None, "--mode", help="Only this mode (repeatable)."),
    allow_dataset_change: bool = typer.Option(
        False, "--allow-dataset-change", help="Compare even when the dataset versions differ."
    ),
    profile: str = typer.Option("strict", "--profile", help="Scoring profile: strict or bfcl."),
) -> None:
    """Compare NEW against BASE per target and metric; exit 1 when NEW regressed."""
    if max_drop < 0:
        raise ConfigError("must not be negative", key="--max-drop")
    if not 0 < alpha < 1:
        raise ConfigError("must be between 0 and 1", key="--alpha")
    modes = mode or None
    comparison = compare_runs(
        compute_metrics(base, modes=modes, profile=profile),
        compute_metrics(new, modes=modes, profile=profile),
        max_drop=max_drop,
        alpha=alpha,
        allow_dataset_change=allow_dataset_change,
    )
    text = (
        render_compare_json(comparison) if fmt is CompareFormat.json else render_compare_markdown(comparison)
    )
    sys.stdout.write(text)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
    if fmt is CompareFormat.json:
        typer.echo(comparison.verdict, err=True)
    if comparison.regression:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add the ``compare`` command to the fcbench app."""
    app.command("compare")(compare)
