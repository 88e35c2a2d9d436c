"""``fcbench compare BASE NEW``: the regression gate between two runs (exit 1 when a threshold failed)."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path

import typer

from fcbench.errors import ConfigError


class CompareFormat(StrEnum):
    """Output formats of ``fcbench compare``."""

    md = "md"
    json = "json"
    github = "github"


def _percent(value: float | None, key: str) -> float | None:
    if value is not None and value < 0:
        raise ConfigError("must not be negative", key=key)
    return value


def compare(
    base: Path = typer.Argument(..., help="Base run directory."),
    new: Path = typer.Argument(..., help="New run directory."),
    max_drop: float = typer.Option(5.0, "--max-drop", help="Largest allowed pass-rate drop, in points."),
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level for a metric drop."),
    max_coverage_drop: float = typer.Option(
        10.0, "--max-coverage-drop", help="Largest allowed coverage (scorable/planned) drop, in points."
    ),
    max_latency_increase: float | None = typer.Option(
        None,
        "--max-latency-increase",
        metavar="PCT",
        help="Fail when p95 latency grows by more than PCT percent (not gated by default).",
    ),
    max_cost_increase: float | None = typer.Option(
        None,
        "--max-cost-increase",
        metavar="PCT",
        help="Fail when cost per passing observation grows by more than PCT percent (not gated by default).",
    ),
    pair: list[str] | None = typer.Option(
        None,
        "--pair",
        metavar="BASE=NEW",
        help="Pair a BASE target with a NEW one (label or name each side; repeatable). Others pair by name.",
    ),
    fmt: CompareFormat = typer.Option(CompareFormat.md, "--format", "-f", help="Output format."),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Also write the comparison to this file."
    ),
    mode: list[str] | None = typer.Option(None, "--mode", help="Only this mode (repeatable)."),
    allow_dataset_change: bool = typer.Option(
        False, "--allow-dataset-change", help="Compare even when the dataset versions differ."
    ),
    profile: str = typer.Option(
        "strict", "--profile", help="Scoring profile of both runs: strict, bfcl or repairs."
    ),
) -> None:
    """Compare NEW against BASE per target and metric; exit 1 when a threshold failed, or when NEW
    made an unsafe write call (a write tool its case did not expect) that BASE did not.

    Examples: fcbench compare runs/base runs/new; fcbench compare runs/base runs/new --max-drop 2
    --pair openai:gpt-4o=openai:gpt-4.1
    """
    from fcbench.metrics import compute_metrics_of
    from fcbench.report.compare import compare_runs
    from fcbench.report.compare_render import render_compare_json, render_compare_markdown
    from fcbench.report.gate import run_unsafe_writes
    from fcbench.report.github import render_compare_github
    from fcbench.report.pairing import parse_pair
    from fcbench.report.pin_diff import mark_changed_tools, pin_differences
    from fcbench.store.records import read_manifest

    if max_drop < 0:
        raise ConfigError("must not be negative", key="--max-drop")
    if max_coverage_drop < 0:
        raise ConfigError("must not be negative", key="--max-coverage-drop")
    if not 0 < alpha < 1:
        raise ConfigError("must be between 0 and 1", key="--alpha")
    pairs = [parse_pair(p) for p in pair or []]
    modes = mode or None
    base_metrics, new_metrics = compute_metrics_of([base, new], modes=modes, profile=profile)
    comparison = compare_runs(
        base_metrics,
        new_metrics,
        max_drop=max_drop,
        alpha=alpha,
        allow_dataset_change=allow_dataset_change,
        pairs=pairs,
        max_coverage_drop=max_coverage_drop,
        max_latency_increase=_percent(max_latency_increase, "--max-latency-increase"),
        max_cost_increase=_percent(max_cost_increase, "--max-cost-increase"),
        unsafe=(run_unsafe_writes(base), run_unsafe_writes(new)),
    )
    base_manifest, new_manifest = read_manifest(base), read_manifest(new)
    differences = pin_differences(base_manifest, new_manifest)
    comparison = comparison.model_copy(update={"warnings": [*differences, *comparison.warnings]})
    comparison = mark_changed_tools(comparison, base_manifest, new_manifest)
    renderers = {
        CompareFormat.md: render_compare_markdown,
        CompareFormat.json: render_compare_json,
        CompareFormat.github: render_compare_github,
    }
    text = renderers[fmt](comparison)
    sys.stdout.write(text)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
    if fmt is not CompareFormat.md:
        typer.echo(comparison.verdict, err=True)
    if comparison.regression:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add the ``compare`` command to the fcbench app."""
    app.command("compare")(compare)
