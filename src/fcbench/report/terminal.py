"""The short per-target summary table printed at the end of ``fcbench run`` (from the run's metrics)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from fcbench.metrics import Rate, compute_metrics


def _cell(rate: Rate) -> str:
    return f"{100 * rate.n / rate.d:.0f}% ({rate.n}/{rate.d})" if rate.d else "-"


def print_summary(console: Console, run_dir: Path) -> None:
    """Print one row per target and mode: coverage, decisions, schema validity, semantics, pass rate."""
    metrics = compute_metrics(run_dir)
    table = Table(title=f"fcbench run {run_dir.name}")
    for column in (
        "target",
        "mode",
        "observed",
        "provider errors",
        "decision",
        "schema-valid",
        "exact args",
        "pass",
    ):
        table.add_column(column)
    for t in sorted(metrics.targets, key=lambda t: (t.target, t.mode)):
        if not t.observed:
            continue
        table.add_row(
            t.target,
            t.mode,
            str(t.observed),
            str(sum(t.provider_errors.values())),
            _cell(t.selection_accuracy),
            _cell(t.schema_valid),
            _cell(t.semantic_exact),
            _cell(t.pass_rate),
        )
    console.print(table)
