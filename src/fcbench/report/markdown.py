"""Markdown report: every failure type per target side by side, each rate as ``rate% (n/d)``.

All text that came from a model, a case file or a configuration is escaped with
:func:`~fcbench.report.common.md_escape` (pipes, backticks, HTML) before it reaches a table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from fcbench.metrics import Rate, RunMetrics, TargetMetrics
from fcbench.report.common import (
    RATE_COLUMNS,
    column_label,
    failing_cases,
    fmt_cost,
    fmt_number,
    fmt_rate,
    max_k,
    md_escape,
    provider_error_rows,
)

WORST_CASES = 25
"""How many failing case x target rows the worst-cases table shows."""


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A markdown table; cells must already be escaped."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def render_markdown(metrics: RunMetrics, worst: int = WORST_CASES) -> str:
    """The full markdown report of one run."""
    run = metrics.run
    out = [
        f"# fcbench report: {md_escape(run.run_id)}",
        "",
        f"- Suite: {md_escape(run.suite)}, dataset version {md_escape(run.dataset_version)} "
        f"(hash {md_escape(run.dataset_hash[:12])})",
        f"- Modes: {md_escape(', '.join(run.modes))}; repeats: {run.repeats}; "
        f"planned observations: {run.planned}",
        f"- Started {md_escape(run.started_at)}, finished {md_escape(run.finished_at or 'not finished')}; "
        f"fcbench {md_escape(run.fcbench_version)}; records read: {metrics.records_read}",
        "",
        "Every rate is shown as `rate% (n/d)`. Provider and harness errors are coverage loss: they are "
        "excluded from the denominators of the model metrics.",
        "",
    ]
    out += _summary(metrics) + [""] + _operations(metrics) + [""] + _pass_hat_k(metrics) + [""]
    out += _breakdown(metrics, "Pass rate by category", "category", lambda t: t.by_category) + [""]
    out += _breakdown(metrics, "Pass rate by tag", "tag", lambda t: t.by_tag) + [""]
    out += _confusion(metrics) + [""] + _worst(metrics, worst) + [""] + _errors(metrics)
    return "\n".join(out) + "\n"


def _label(metrics: RunMetrics, t: TargetMetrics) -> str:
    return md_escape(column_label(metrics, t))


def _summary(metrics: RunMetrics) -> list[str]:
    header = (
        ["Target", "Mode"] + [title for _, title in RATE_COLUMNS] + ["Stability per case", "Provider errors"]
    )
    rows = []
    for t in metrics.targets:
        cells = [md_escape(t.target), md_escape(t.mode)]
        cells += [fmt_rate(getattr(t, attr)) for attr, _ in RATE_COLUMNS]
        s = t.stability
        stab = "–" if s.mean is None else f"{s.mean * 100:.1f}% ({s.n}/{s.d}; {s.unstable_cases} unstable)"
        cells += [stab, str(sum(t.provider_errors.values()))]
        rows.append(cells)
    return ["## Summary", ""] + table(header, rows)


def _operations(metrics: RunMetrics) -> list[str]:
    header = [
        "Target",
        "Mode",
        "Planned",
        "Observed",
        "Latency p50 ms",
        "Latency p95 ms",
        "Input tokens",
        "Output tokens",
        "Cost USD",
        "Cost per passing observation",
    ]
    rows = [
        [
            md_escape(t.target),
            md_escape(t.mode),
            str(t.planned),
            str(t.observed),
            fmt_number(t.latency_ms.p50),
            fmt_number(t.latency_ms.p95),
            fmt_number(t.tokens.input)
            + (f" ({t.tokens.unreported} unreported)" if t.tokens.unreported else ""),
            fmt_number(t.tokens.output),
            fmt_cost(t.cost_usd),
            fmt_cost(t.cost_per_pass),
        ]
        for t in metrics.targets
    ]
    return ["## Coverage, latency and cost", ""] + table(header, rows)


def _pass_hat_k(metrics: RunMetrics) -> list[str]:
    top = max_k(metrics)
    if top == 0:
        return ["## pass^k", "", "No scorable repeats."]
    header = ["Target", "Mode"] + [f"k={k}" for k in range(1, top + 1)]
    rows = []
    for t in metrics.targets:
        cells = [md_escape(t.target), md_escape(t.mode)]
        for k in range(1, top + 1):
            value = t.pass_hat_k.get(k)
            cells.append("–" if value is None else f"{value:.3f} ({t.pass_hat_k_cases[k]} cases)")
        rows.append(cells)
    intro = "Chance that k repeats of a case all pass (C(c,k)/C(n,k), averaged over cases with n >= k)."
    return ["## pass^k", "", intro, ""] + table(header, rows)


def _breakdown(
    metrics: RunMetrics, title: str, what: str, pick: Callable[[TargetMetrics], dict[str, Rate]]
) -> list[str]:
    keys = sorted({k for t in metrics.targets for k in pick(t)})
    if not keys:
        return [f"## {title}", "", "No scorable observations."]
    header = [what.capitalize()] + [_label(metrics, t) for t in metrics.targets]
    rows = []
    for key in keys:
        cells = [md_escape(key)]
        for t in metrics.targets:
            rate = pick(t).get(key)
            cells.append("–" if rate is None else fmt_rate(rate))
        rows.append(cells)
    return [f"## {title}", ""] + table(header, rows)


def _confusion(metrics: RunMetrics) -> list[str]:
    out = ["## Decisions by expected behaviour (confusion)", ""]
    any_rows = False
    for t in metrics.targets:
        if not t.confusion:
            continue
        any_rows = True
        decisions = sorted({d for row in t.confusion.values() for d in row})
        out += [f"### {_label(metrics, t)}", ""]
        rows = [
            [md_escape(kind)] + [str(row.get(d, 0)) for d in decisions] for kind, row in t.confusion.items()
        ]
        out += table(["Expected \\ decision"] + [md_escape(d) for d in decisions], rows) + [""]
    if not any_rows:
        out.append("No scorable observations.")
    return out


def _worst(metrics: RunMetrics, limit: int) -> list[str]:
    failing = failing_cases(metrics)
    title = "## Worst cases"
    if not failing:
        return [title, "", "No failing cases."]
    intro = (
        f"{min(limit, len(failing))} of {len(failing)} case x target pairs with at least one failing repeat."
    )
    rows = []
    for c in failing[:limit]:
        decisions = ", ".join(f"{d} {n}" for d, n in c.decisions.items())
        reasons = "; ".join(f"{r} (x{n})" for r, n in list(c.reasons.items())[:4])
        rows.append(
            [
                md_escape(c.case_id),
                md_escape(column_label(metrics, c)),
                md_escape(c.category),
                md_escape(c.expected_kind),
                fmt_rate(c.passed, 0),
                md_escape(decisions),
                md_escape(reasons, limit=600),
            ]
        )
    header = ["Case", "Target", "Category", "Expected", "Passed", "Decisions", "Failure reasons"]
    return [title, "", intro, ""] + table(header, rows)


def _errors(metrics: RunMetrics) -> list[str]:
    rows = [
        [md_escape(t.target), md_escape(t.mode), md_escape(code), str(n)]
        for t, code, n in provider_error_rows(metrics)
    ]
    if not rows:
        return ["## Provider and harness errors", "", "No provider or harness errors."]
    return ["## Provider and harness errors", ""] + table(["Target", "Mode", "Code", "Count"], rows)
