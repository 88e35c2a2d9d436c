"""Markdown report: every failure type per target side by side, each rate as ``rate% (n/d) [low–high]``.

The bracket is the rate's Wilson score 95% interval. Right after the summary, when there are any,
the write calls the cases did not expect (severe) and the side effects the fake tools counted.
Beside the rates: anomalies per code, the
repairs per kind (under a profile that repairs), the cases whose arguments drift over repeats,
and stream parity when both modes were run.

All text that came from a model, a case file or a configuration is escaped with
:func:`~fcbench.report.common.md_escape` (pipes, backticks, HTML) before it reaches a table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from fcbench.grading import REPAIR_KINDS
from fcbench.metrics import Rate, RunMetrics, TargetMetrics
from fcbench.metrics.cases import CaseRow
from fcbench.metrics.drift import MAX_DRIFT_VALUES
from fcbench.report.authorization import HEADER as AUTHORIZATION_HEADER
from fcbench.report.authorization import INTRO as AUTHORIZATION_INTRO
from fcbench.report.authorization import authorization_rows
from fcbench.report.common import (
    RATE_COLUMNS,
    anomaly_meaning,
    cached_part,
    column_label,
    fmt_cost,
    fmt_counts,
    fmt_number,
    fmt_rate_ci,
    max_k,
    md_escape,
    provider_error_rows,
)
from fcbench.report.gate import GateFailure, UnsafeWrite, gate_headline, unsafe_write_lines
from fcbench.report.judge import judge_markdown
from fcbench.report.tool_order import tool_order_markdown
from fcbench.store.records import damaged_note

WORST_CASES = 25
"""How many failing case x target rows the worst-cases table shows."""
DRIFT_ROWS = 100
"""How many drifting (case, target, argument) rows the argument-drift table shows."""


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A markdown table; cells must already be escaped."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def render_markdown(
    metrics: RunMetrics,
    worst: int = WORST_CASES,
    gate: Sequence[GateFailure] | None = None,
    unsafe: Sequence[UnsafeWrite] = (),
) -> str:
    """The full markdown report of one run; with ``gate`` (the run gate's failures), its verdict
    heads the report, above the model results; each unsafe write call of ``unsafe`` is listed with
    its arguments, case and target."""
    run = metrics.run
    out = [
        f"# fcbench report: {md_escape(run.run_id)}",
        "",
        *_gate(gate),
        f"- Suite: {md_escape(run.suite)}, dataset version {md_escape(run.dataset_version)} "
        f"(hash {md_escape(run.dataset_hash[:12])})",
        f"- Modes: {md_escape(', '.join(run.modes))}; repeats: {run.repeats}; "
        f"planned observations: {run.planned}",
        f"- Started {md_escape(run.started_at)}, finished {md_escape(run.finished_at or 'not finished')}; "
        f"fcbench {md_escape(run.fcbench_version)}; records read: {metrics.records_read}",
        *([f"- **Warning**: {damaged_note(metrics.damaged_lines)}"] if metrics.damaged_lines else []),
        *_cached(metrics),
        "",
        "Every rate is shown as `rate% (n/d) [low–high]`, the bracket being its Wilson 95% interval. "
        "Provider and harness errors are coverage loss: they are excluded from the denominators of the "
        "model metrics.",
        "",
    ]
    out += (
        _summary(metrics)
        + [""]
        + _writes(metrics, unsafe)
        + authorization_markdown(metrics)
        + _limits(metrics)
        + _operations(metrics)
        + [""]
        + _pass_hat_k(metrics)
        + [""]
    )
    out += _breakdown(metrics, "Pass rate by category", "category", lambda t: t.by_category) + [""]
    out += _breakdown(metrics, "Pass rate by tag", "tag", lambda t: t.by_tag) + [""]
    out += _confusion(metrics) + [""] + _worst(metrics, worst) + [""] + _anomalies(metrics) + [""]
    out += _repairs(metrics) + _drift(metrics) + [""] + _parity(metrics) + _errors(metrics)
    out += tool_order_markdown(metrics) + judge_markdown(metrics)
    return "\n".join(out) + "\n"


def _gate(failures: Sequence[GateFailure] | None) -> list[str]:
    """The gate's verdict and its failed thresholds, one per line (nothing without a gate)."""
    if failures is None:
        return []
    return (
        [gate_headline(failures), ""]
        + [f"- {md_escape(str(f), limit=500)}" for f in failures]
        + ([""] if failures else [])
    )


def _label(metrics: RunMetrics, t: TargetMetrics) -> str:
    return md_escape(column_label(metrics, t))


def _summary(metrics: RunMetrics) -> list[str]:
    header = (
        ["Target", "Mode"] + [title for _, title in RATE_COLUMNS] + ["Stability per case", "Provider errors"]
    )
    rows = []
    for t in metrics.targets:
        cells = [md_escape(t.target), md_escape(t.mode)]
        cells += [fmt_rate_ci(getattr(t, attr)) for attr, _ in RATE_COLUMNS]
        s = t.stability
        stab = "–" if s.mean is None else f"{s.mean * 100:.1f}% ({s.n}/{s.d}; {s.unstable_cases} unstable)"
        cells += [stab, str(sum(t.provider_errors.values()))]
        rows.append(cells)
    return ["## Summary", ""] + table(header, rows)


def _writes(metrics: RunMetrics, unsafe: Sequence[UnsafeWrite] = ()) -> list[str]:
    """Unexpected write calls (severe) and side effects per target, then each unsafe write call;
    nothing when there are none."""
    shown = [t for t in metrics.targets if t.unexpected_write_calls or t.side_effects or t.replayed_writes]
    if not shown:
        return []
    intro = (
        "**Severe:** calls of write tools the case did not expect (a wrong, extra or unasked-for call "
        "that would have changed state), worse than an unexpected read. Side effects are the state "
        "changes the fake tools made; replayed writes were answered from the idempotency table."
    )
    header = ["Target", "Mode", "Unexpected write calls (severe)", "Calls", "Side effects", "Replayed writes"]
    rows = [
        [
            md_escape(t.target),
            md_escape(t.mode),
            ("**" + fmt_rate_ci(t.unexpected_writes) + "**")
            if t.unexpected_write_calls
            else fmt_rate_ci(t.unexpected_writes),
            str(t.unexpected_write_calls),
            str(t.side_effects),
            str(t.replayed_writes),
        ]
        for t in shown
    ]
    calls = [f"- **Unsafe write**: {md_escape(line, limit=500)}" for line in unsafe_write_lines(unsafe)]
    return (
        ["## Unexpected write calls and side effects", "", intro, ""]
        + table(header, rows)
        + [""]
        + calls
        + ([""] if calls else [])
    )


def authorization_markdown(metrics: RunMetrics) -> list[str]:
    """The authorization probes per target (:mod:`fcbench.report.authorization`); nothing when no
    target played one."""
    rows = authorization_rows(metrics)
    if not rows:
        return []
    return ["## Authorization probes", "", AUTHORIZATION_INTRO, ""] + table(AUTHORIZATION_HEADER, rows) + [""]


LIMITS = ("max_calls_per_turn", "max_result_bytes", "deadline")
"""The conversation limits, in the column order of the limits section."""


def _limits(metrics: RunMetrics) -> list[str]:
    """Conversation limits hit per target (multi-turn modes); nothing when none was hit."""
    shown = [t for t in metrics.targets if t.limit_hits]
    if not shown:
        return []
    intro = (
        "Times a multi-turn conversation hit one of its limits: calls of a turn beyond "
        "`max_calls_per_turn` (not executed, answered `LIMIT_EXCEEDED`), results over "
        "`max_result_bytes` (sent truncated), and the conversation `deadline` (stopped)."
    )
    order = {name: i for i, name in enumerate(LIMITS)}
    names = sorted({n for t in shown for n in t.limit_hits}, key=lambda n: (order.get(n, len(LIMITS)), n))
    rows = [
        [md_escape(t.target), md_escape(t.mode)] + [str(t.limit_hits.get(n, 0)) for n in names] for t in shown
    ]
    header = ["Target", "Mode"] + [md_escape(n) for n in names]
    return ["## Conversation limits hit", "", intro, ""] + table(header, rows) + [""]


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
            + cached_part(t.tokens)
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
            cells.append("–" if rate is None else fmt_rate_ci(rate))
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
    count, failing = metrics.cases.worst(limit)
    title = "## Worst cases"
    if not count:
        return [title, "", "No failing cases."]
    intro = f"{len(failing)} of {count} case x target pairs with at least one failing repeat."
    rows = []
    for c in failing:
        decisions = ", ".join(f"{d} {n}" for d, n in c.decisions.items())
        reasons = "; ".join(f"{r} (x{n})" for r, n in list(c.reasons.items())[:4])
        rows.append(
            [
                md_escape(c.case_id),
                md_escape(column_label(metrics, c)),
                md_escape(c.category),
                md_escape(c.expected_kind),
                fmt_rate_ci(c.passed, 0),
                md_escape(decisions),
                md_escape(reasons, limit=600),
                md_escape(fmt_counts(c.anomalies)),
            ]
        )
    header = ["Case", "Target", "Category", "Expected", "Passed", "Decisions", "Failure reasons", "Anomalies"]
    return [title, "", intro, ""] + table(header, rows)


def _anomalies(metrics: RunMetrics) -> list[str]:
    title = "## Anomalies"
    intro = (
        "Deviations recorded instead of fixed: accepted observations carrying each code (the adapter's "
        "and the grader's anomalies, each code once per observation)."
    )
    rows = [
        [
            md_escape(t.target),
            md_escape(t.mode),
            fmt_rate_ci(t.with_anomalies),
            md_escape(fmt_counts(t.anomalies)),
        ]
        for t in metrics.targets
    ]
    out = [title, "", intro, ""]
    out += table(["Target", "Mode", "Observations with anomalies", "By code"], rows)
    codes = sorted({code for t in metrics.targets for code in t.anomalies})
    if not codes:
        return out + ["", "No anomalies."]
    header = ["Code", "Meaning"] + [_label(metrics, t) for t in metrics.targets]
    code_rows = [
        [md_escape(code), md_escape(anomaly_meaning(code))]
        + [str(t.anomalies.get(code, 0)) for t in metrics.targets]
        for code in codes
    ]
    return out + [""] + table(header, code_rows)


def _repairs(metrics: RunMetrics) -> list[str]:
    """Repairs per target and kind (only when the metrics were computed with a profile that repairs)."""
    if all(t.repaired is None for t in metrics.targets):
        return []
    intro = (
        "Repairs made before scoring: scorable observations that needed at least one, and the repairs "
        "by kind (`call_from_text`: a call written as text became a call; `numeric_string`: a number "
        "written as a string; `enum_case`: an enum value in another case or with spaces; "
        "`unknown_key_dropped`: a key the schema does not allow; `default_inserted`: a missing "
        "property's schema default)."
    )
    rows = [
        [md_escape(t.target), md_escape(t.mode), fmt_rate_ci(t.repaired or Rate())]
        + [str(t.repairs.get(kind, 0)) for kind in REPAIR_KINDS]
        for t in metrics.targets
    ]
    header = ["Target", "Mode", "Observations repaired", *REPAIR_KINDS]
    return ["## Repairs", "", intro, ""] + table(header, rows) + [""]


def _drift(metrics: RunMetrics) -> list[str]:
    title = "## Argument drift"
    drifting = [(c, key, drift) for c in metrics.cases.select(_drifts) for key, drift in c.drift.items()]
    if not drifting:
        return [title, "", "No argument varied over the repeats of a case."]
    cases = len({(c.target, c.mode, c.case_id) for c, _, _ in drifting})
    intro = (
        f"{cases} case x target pairs whose tool-call arguments vary over their scorable repeats "
        f"({len(drifting)} arguments; values compared as canonical JSON, a missing argument counts as "
        f"a value; at most {MAX_DRIFT_VALUES} distinct values are tracked per argument, `N+` when more "
        "were seen)."
    )
    if len(drifting) > DRIFT_ROWS:
        intro += f" The first {DRIFT_ROWS} are listed; the JSON report has them all."
    rows = [
        [
            md_escape(c.case_id),
            md_escape(column_label(metrics, c)),
            md_escape(key),
            f"{drift.distinct}+" if drift.capped else str(drift.distinct),
            f"{drift.top.n}/{drift.top.d}",
        ]
        for c, key, drift in drifting[:DRIFT_ROWS]
    ]
    header = ["Case", "Target", "Argument", "Distinct values", "Most common value's share"]
    return [title, "", intro, ""] + table(header, rows)


def _drifts(row: CaseRow) -> bool:
    return bool(row.drift)


def _parity(metrics: RunMetrics) -> list[str]:
    """Stream parity per target, and the cases whose streamed outcome differs (only when measured)."""
    measured = [t for t in metrics.targets if t.stream_parity is not None]
    if not measured:
        return []
    intro = (
        "Per target: (case, repeat) pairs scored in both `selection` and `stream` whose normalised "
        "outcomes (decision and calls) are the same."
    )
    rows = [
        [md_escape(t.target), fmt_rate_ci(t.stream_parity), str(len(t.stream_parity_differences))]
        for t in measured
        if t.stream_parity is not None
    ]
    out = ["## Stream parity", "", intro, ""] + table(["Target", "Stream parity", "Differing cases"], rows)
    diffs = [
        [
            md_escape(d.case_id),
            md_escape(t.target),
            f"{d.differing.n}/{d.differing.d}",
            md_escape(
                "; ".join(
                    f"r{r}: {a} → {b}" for r, a, b in zip(d.repeats, d.selection, d.stream, strict=True)
                )
            ),
        ]
        for t in measured
        for d in t.stream_parity_differences
    ]
    if diffs:
        header = ["Case", "Target", "Differing repeats", "Selection → stream decision"]
        out += [""] + table(header, diffs)
    return out + [""]


def _errors(metrics: RunMetrics) -> list[str]:
    rows = [
        [md_escape(t.target), md_escape(t.mode), md_escape(code), str(n)]
        for t, code, n in provider_error_rows(metrics)
    ]
    if not rows:
        return ["## Provider and harness errors", "", "No provider or harness errors."]
    return ["## Provider and harness errors", ""] + table(["Target", "Mode", "Code", "Count"], rows)


KNOWN_PATTERNS = 10
"""Catalogue patterns the "Known failure patterns" section lists per target."""


def known_patterns_section(run_dir: Path) -> str:
    """The "Known failure patterns" section: the patterns of the catalogue in the run's parent folder
    (``fcbench history RUNS --update-catalogue``) that each target of the run shows, with their
    count in this run; empty when there is no catalogue."""
    from fcbench.errors import InputError
    from fcbench.history import known_patterns

    try:
        known = known_patterns(run_dir)
    except InputError as exc:  # a hand-edited catalogue gone wrong does not stop the report
        return f"\n## Known failure patterns\n\nThe catalogue could not be read: {md_escape(exc)}\n"
    if known is None:
        return ""
    intro = (
        f"Patterns of the failure-mode catalogue `{md_escape(known.catalogue.name)}` that this run "
        f"shows (title, else the generated description), at most {KNOWN_PATTERNS} per target."
    )
    shown: dict[str, int] = {}
    rows = []
    for k in known.patterns:
        shown[k.target] = shown.get(k.target, 0) + 1
        if shown[k.target] <= KNOWN_PATTERNS:
            rows.append([md_escape(k.target), f"`{md_escape(k.id)}`", md_escape(k.text), str(k.count)])
    out = ["## Known failure patterns", "", intro, ""]
    out += (
        table(["Target", "Pattern", "Title or description", "Count in this run"], rows)
        if rows
        else ["No catalogue pattern in this run."]
    )
    if known.unknown:
        out += ["", f"{known.unknown} patterns of this run are not in the catalogue yet."]
    return "\n" + "\n".join(out) + "\n"


def _cached(metrics: RunMetrics) -> list[str]:
    """The line on observations answered from the response cache, when there were any."""
    cached = sum(t.cached for t in metrics.targets)
    if not cached:
        return []
    return [
        f"- Cached: {cached} observations answered from the response cache (`--cache`): in the rates, "
        "left out of stability, pass^k, latency, tokens and cost"
    ]
