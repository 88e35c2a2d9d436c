"""The tool-order probe in every report format (a run with ``--tool-order``; JSON: ``metrics.tool_order``).

One row per target and mode: selection consistency across orders (n/d of the cases observed in
two orders or more), how often the chosen tool was the first offered of the case's plausible
tools against the chance rate, the verdict (position-biased when the lower end of that rate's 95%
interval is above chance), the pass rate per order and the cases whose choice moved with the
order. Definitions: :mod:`fcbench.metrics.tool_order`.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console

from fcbench.metrics import RunMetrics
from fcbench.metrics.tool_order import ToolOrderMetrics, ToolOrderTarget
from fcbench.redact import sanitize
from fcbench.report.common import fmt_rate, fmt_rate_ci, md_escape

COLUMNS = (
    ("target", "Target"),
    ("mode", "Mode"),
    ("consistency", "Same choice in every order"),
    ("first_offered", "Chose the first offered plausible tool"),
    ("chance", "Chance"),
    ("verdict", "Position bias"),
    ("by_order", "Pass rate by order"),
)
"""The row keys of :func:`tool_order_rows` and their column titles, in order."""

LISTED_CASES = 10
"""Cases whose choice moved that a row names (the JSON lists more)."""


def heading(probe: ToolOrderMetrics) -> str:
    """What the section measures, in one sentence."""
    return (
        f"tool order {probe.spec}: each case was offered its tools in several orders; a model that "
        "picks by meaning makes the same choice in every order, one that picks by position chooses "
        "the first offered of the plausible tools (the expected and the confusable ones) more often "
        "than chance"
    )


def _verdict(row: ToolOrderTarget) -> str:
    if row.chance is None:
        return "not measured"
    return "position-biased" if row.biased else "not shown"


def _chance(row: ToolOrderTarget) -> str:
    return "–" if row.chance is None else f"{row.chance * 100:.1f}%"


def _by_order(row: ToolOrderTarget) -> str:
    return ", ".join(f"#{index} {fmt_rate(rate, 0)}" for index, rate in row.passed_by_order.items()) or "–"


def _moved(row: ToolOrderTarget) -> str:
    shown = row.inconsistent[:LISTED_CASES]
    more = row.consistency.d - row.consistency.n - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def tool_order_rows(probe: ToolOrderMetrics) -> list[dict[str, Any]]:
    """One row per target and mode: the :data:`COLUMNS` keys, plus ``moved`` (the cases whose
    choice changed with the order)."""
    return [
        {
            "target": row.target,
            "mode": row.mode,
            "consistency": fmt_rate_ci(row.consistency),
            "first_offered": fmt_rate_ci(row.first_offered),
            "chance": _chance(row),
            "verdict": _verdict(row),
            "by_order": _by_order(row),
            "moved": _moved(row),
        }
        for row in probe.targets
    ]


def tool_order_markdown(metrics: RunMetrics) -> list[str]:
    """The markdown section of the probe (nothing for a run that offered one order); the GitHub
    step summary shows it too."""
    probe = metrics.tool_order
    if probe is None:
        return []
    out = ["## Tool order", "", md_escape(heading(probe), limit=1000) + ".", ""]
    out += ["| " + " | ".join(title for _, title in COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    rows = tool_order_rows(probe)
    out += ["| " + " | ".join(md_escape(str(row[key])) for key, _ in COLUMNS) + " |" for row in rows]
    moved = [row for row in rows if row["moved"]]
    if moved:
        out += ["", "Cases whose choice changed with the order:", ""]
        out += [
            f"- {md_escape(row['target'])} [{md_escape(row['mode'])}]: {md_escape(row['moved'])}"
            for row in moved
        ]
    return [*out, ""]


def print_tool_order(console: Console, metrics: RunMetrics) -> None:
    """One line per target and mode on the run's summary (nothing for a run that offered one order)."""
    probe = metrics.tool_order
    for row in tool_order_rows(probe) if probe is not None else []:
        line = (
            f"tool order {row['target']} [{row['mode']}]: same choice in every order {row['consistency']}; "
            f"first offered plausible tool {row['first_offered']} vs chance {row['chance']}: {row['verdict']}"
        )
        console.print(sanitize(line), highlight=False, markup=False, soft_wrap=True)


def tool_order_context(metrics: RunMetrics) -> dict[str, Any] | None:
    """What the HTML report's tool-order section shows (None for a run that offered one order)."""
    probe = metrics.tool_order
    if probe is None:
        return None
    return {
        "heading": heading(probe),
        "columns": [title for _, title in COLUMNS],
        "fields": [k for k, _ in COLUMNS],
        "rows": tool_order_rows(probe),
    }


def tool_order_properties(metrics: RunMetrics, target: str, mode: str) -> dict[str, str]:
    """The JUnit properties of one target and mode's suite (none for a run that offered one order)."""
    probe = metrics.tool_order
    row = next((r for r in probe.targets if r.target == target and r.mode == mode), None) if probe else None
    if probe is None or row is None:
        return {}
    return {
        "tool_order": probe.spec,
        "tool_order.consistency": f"{row.consistency.n}/{row.consistency.d}",
        "tool_order.first_offered": f"{row.first_offered.n}/{row.first_offered.d}",
        "tool_order.chance": _chance(row),
        "tool_order.position_bias": _verdict(row),
    }


__all__ = [
    "COLUMNS",
    "heading",
    "print_tool_order",
    "tool_order_context",
    "tool_order_markdown",
    "tool_order_properties",
    "tool_order_rows",
]
