"""The short per-target summary table printed at the end of ``fcbench run``."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from fcbench.records import RECORDS_FILE, iter_record_dicts

CORRECT_DECISIONS = frozenset({"correct_call", "correct_abstention", "correct_clarification"})


def _cell(n: int, d: int) -> str:
    return f"{100 * n / d:.0f}% ({n}/{d})" if d else "-"


def print_summary(console: Console, run_dir: Path) -> None:
    """Print one row per target and mode: coverage, decisions, schema validity, semantics, pass rate."""
    rows: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for data in iter_record_dicts(run_dir / RECORDS_FILE):
        target = data["target"]
        c = rows[(f"{target['endpoint']}:{target['model']}", data["mode"])]
        verdict = data.get("verdict") or {}
        c["observed"] += 1
        if data["outcome"].get("kind") == "provider_error":
            c["errors"] += 1
            continue
        c["scored"] += 1
        c["decision_ok"] += verdict.get("decision") in CORRECT_DECISIONS
        if verdict.get("schema_valid") is not None:
            c["with_calls"] += 1
            c["schema_ok"] += bool(verdict.get("schema_valid"))
        if verdict.get("semantic_exact") is not None:
            c["semantic_d"] += 1
            c["semantic_ok"] += bool(verdict.get("semantic_exact"))
        c["passed"] += bool(verdict.get("passed"))
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
    for (label, mode), c in sorted(rows.items()):
        table.add_row(
            label,
            mode,
            str(c["observed"]),
            str(c["errors"]),
            _cell(c["decision_ok"], c["scored"]),
            _cell(c["schema_ok"], c["with_calls"]),
            _cell(c["semantic_ok"], c["semantic_d"]),
            _cell(c["passed"], c["scored"]),
        )
    console.print(table)
