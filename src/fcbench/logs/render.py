"""Render a shadow replay's report as JSON or markdown (``fcbench replay --format json|md``).

The JSON shape (``format: "fcbench-replay/1"``)::

    {"target", "dialect", "target_dialect", "files", "requests", "replayed", "compared",
     "not_replayed": {reason: count}, "provider_errors": {code: count},
     "agreement": {"same_decision": {"n", "d", "rate", "low", "high"}, "same_tool": ...,
                   "same_arguments": ...},
     "latency_ms": {"logged": {"n", "p50", "p95"}, "new": {...}},
     "tokens": {"logged": {"input", "output"}, "new": {...}},
     "cost_usd": {"logged": x | null, "new": y | null},
     "disagreements": [{"index", "where", "logged", "new", "same_decision", "same_tool", "diffs": [...]}],
     "errors": [{"index", "where", "code", "message"}]}

A cost is null when any request of that side has no price or no usage.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fcbench.contract import Outcome, ProviderErrorOutcome, ToolCallsOutcome, canonical_json
from fcbench.logs.replay import Comparison, ReplayReport, Side, latency_summary
from fcbench.report.common import fmt_cost, fmt_number, fmt_rate, md_escape

FORMAT = "fcbench-replay/1"
RATES: tuple[tuple[str, str], ...] = (
    ("same_decision", "Same decision (call or no call)"),
    ("same_tool", "Same tool(s)"),
    ("same_arguments", "Same arguments (same outcome)"),
)
"""Agreement rates in report order: (ReplayReport.rate name, title)."""


def outcome_label(outcome: Outcome) -> str:
    """``lookup_order {"order_id":"ORD-1"}``, ``text``, ``refusal`` or ``error CODE``: one line."""
    if isinstance(outcome, ToolCallsOutcome):
        return "; ".join(
            f"{c.name} {canonical_json(c.arguments) if c.parse_error is None else c.raw_arguments}"
            for c in outcome.calls
        )
    if isinstance(outcome, ProviderErrorOutcome):
        return f"error {outcome.code}"
    return outcome.kind


def _total(sides: Sequence[Side], value: Callable[[Side], float | int | None]) -> float | int | None:
    values = [value(side) for side in sides]
    if not values or any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None)


def _side_totals(sides: Sequence[Side]) -> dict[str, Any]:
    cost = _total(sides, lambda s: s.cost_usd)
    return {
        "latency_ms": latency_summary([s.latency_ms for s in sides]),
        "tokens": {
            "input": _total(sides, lambda s: s.usage.input_tokens),
            "output": _total(sides, lambda s: s.usage.output_tokens),
        },
        "cost_usd": None if cost is None else round(float(cost), 8),
    }


def _disagreement(c: Comparison) -> dict[str, Any]:
    return {
        "index": c.index,
        "where": c.where,
        "logged": c.logged.outcome.model_dump(mode="json"),
        "new": c.new.outcome.model_dump(mode="json"),
        "same_decision": c.same_decision,
        "same_tool": c.same_tool,
        "diffs": [{"key": d.key, "kind": d.kind, "logged": d.logged, "new": d.new} for d in c.diffs],
    }


def to_json(report: ReplayReport) -> dict[str, Any]:
    """The report as a JSON-ready dict (shape in the module docstring)."""
    compared = report.compared
    logged = _side_totals([c.logged for c in report.comparisons])
    new = _side_totals([c.new for c in compared])
    errors = [c for c in report.comparisons if not c.compared]
    return {
        "format": FORMAT,
        "target": report.target,
        "dialect": report.dialect,
        "target_dialect": report.target_dialect,
        "files": report.files,
        "requests": report.requests,
        "replayed": len(report.comparisons),
        "compared": len(compared),
        "not_replayed": dict(report.not_replayed),
        "provider_errors": report.provider_errors,
        "agreement": {name: report.rate(name).model_dump(mode="json") for name, _ in RATES},
        "latency_ms": {"logged": logged["latency_ms"], "new": new["latency_ms"]},
        "tokens": {"logged": logged["tokens"], "new": new["tokens"]},
        "cost_usd": {"logged": logged["cost_usd"], "new": new["cost_usd"]},
        "disagreements": [_disagreement(c) for c in compared if not c.same_arguments],
        "errors": [
            {
                "index": c.index,
                "where": c.where,
                "code": c.new.outcome.code,
                "message": c.new.outcome.message,
            }
            for c in errors
            if isinstance(c.new.outcome, ProviderErrorOutcome)
        ],
    }


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"


def _ms(summary: Mapping[str, Any]) -> str:
    if not summary["n"]:
        return "not logged"
    return f"p50 {fmt_number(summary['p50'])} / p95 {fmt_number(summary['p95'])} ({summary['n']})"


def to_markdown(report: ReplayReport) -> str:
    """The report as markdown: agreement, coverage, cost and latency, then every disagreement."""
    data = to_json(report)
    lines = [
        f"# Shadow replay: {md_escape(report.target)}",
        "",
        f"{data['replayed']} of {data['requests']} logged {md_escape(report.dialect)} requests replayed "
        f"against {md_escape(report.target)} ({md_escape(report.target_dialect)}); "
        f"{data['compared']} compared.",
        "",
        "| Agreement | Rate |",
        "| --- | --- |",
    ]
    lines += [f"| {title} | {fmt_rate(report.rate(name))} |" for name, title in RATES]
    lines += [
        "",
        f"Provider errors of the new target (coverage loss): {md_escape(_counts(data['provider_errors']))}.",
        f"Not replayed: {md_escape(_counts(data['not_replayed']))}.",
        "",
        "| | Logged | New |",
        "| --- | --- | --- |",
        f"| Latency ms | {_ms(data['latency_ms']['logged'])} | {_ms(data['latency_ms']['new'])} |",
        f"| Input tokens | {fmt_number(data['tokens']['logged']['input'])} | "
        f"{fmt_number(data['tokens']['new']['input'])} |",
        f"| Output tokens | {fmt_number(data['tokens']['logged']['output'])} | "
        f"{fmt_number(data['tokens']['new']['output'])} |",
        f"| Cost | {fmt_cost(data['cost_usd']['logged'])} | {fmt_cost(data['cost_usd']['new'])} |",
        "",
    ]
    disagreements = [c for c in report.compared if not c.same_arguments]
    lines += [f"## Disagreements ({len(disagreements)})", ""]
    if disagreements:
        lines += [
            "| # | Logged at | Logged | New | Argument differences |",
            "| --- | --- | --- | --- | --- |",
        ]
    for c in disagreements:
        diffs = "; ".join(
            f"{d.key}: {d.kind} {canonical_json(d.logged)} -> {canonical_json(d.new)}" for d in c.diffs
        )
        cells = (str(c.index), c.where, outcome_label(c.logged.outcome), outcome_label(c.new.outcome), diffs)
        lines.append("| " + " | ".join(md_escape(cell) for cell in cells) + " |")
    return "\n".join(lines) + "\n"


RENDERERS: Mapping[str, Callable[[ReplayReport], str]] = {
    "md": to_markdown,
    "json": lambda report: json.dumps(to_json(report), indent=2, ensure_ascii=False) + "\n",
}
"""Format name -> renderer."""

__all__ = ["FORMAT", "RENDERERS", "RATES", "outcome_label", "to_json", "to_markdown"]
