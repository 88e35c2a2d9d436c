"""GitHub step summary format: compact markdown for ``$GITHUB_STEP_SUMMARY``, the verdict first.

``fcbench report RUN --format github`` starts with the run gate's verdict (the gate of the run's
``config.json``, :mod:`fcbench.report.gate`, the one ``fcbench run`` exited by): ``**PASS**: the run
passed its gate`` or ``**FAIL**: N gate thresholds failed``, then the model's case results below it
(failed and errored counts, the same counting as the JUnit report: results, never a second
verdict), the failed thresholds one per line, then one row per target and mode: name, label, pass
rate n/d, coverage n/d, provider errors by code and anomalies by code.

``fcbench compare BASE NEW --format github`` starts with ``**PASS**: ...`` or ``**FAIL**: N
thresholds failed``, then one row per pair with the deltas, the failed thresholds (one line each,
naming the target), warnings, and the flipped cases (full and partial, both directions).

All text from runs, configs or models is escaped with :func:`~fcbench.report.common.md_escape`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fcbench.metrics import Rate, RunMetrics, TargetMetrics, compute_metrics
from fcbench.report.common import fmt_rate, md_escape
from fcbench.report.compare import Comparison, TargetComparison, ValueDelta, fmt_value
from fcbench.report.compare_render import flip_groups
from fcbench.report.gate import (
    GateFailure,
    UnsafeWrite,
    gate_headline,
    run_gate_failures,
    run_unsafe_writes,
    unsafe_write_lines,
)
from fcbench.report.markdown import authorization_markdown, table
from fcbench.report.tool_order import tool_order_markdown
from fcbench.store.records import damaged_note

MAX_FLIPS_LISTED = 20
"""Flipped cases listed per group; the rest are counted (the JSON output has them all)."""


def _errors(codes: dict[str, int]) -> str:
    return ", ".join(f"{md_escape(code)} {n}" for code, n in sorted(codes.items())) or "none"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def case_results(metrics: RunMetrics) -> str:
    """The case x target results of one run in one line (what the models did, not the verdict)."""
    rows = [row for _, row in metrics.cases.rows()]
    total = len(rows)
    failed = sum(1 for r in rows if r.passes < r.scorable)
    errored = sum(1 for r in rows if r.passes == r.scorable and r.errors)
    if total == 0:
        return "Case results: no case was observed."
    if failed or errored:
        return (
            f"Case results: {failed} of {total} case x target results failed, "
            f"{errored} lost to provider or harness errors."
        )
    return f"Case results: all {total} case x target results passed."


def _target_row(t: TargetMetrics) -> list[str]:
    return [
        md_escape(t.name or t.target),
        md_escape(t.target),
        md_escape(t.mode),
        fmt_rate(t.pass_rate),
        fmt_rate(t.coverage),
        _errors(t.provider_errors),
        _errors(t.anomalies),
    ]


def render_github(
    metrics: RunMetrics, failures: Sequence[GateFailure], unsafe: Sequence[UnsafeWrite] = ()
) -> str:
    """One run as a step summary: the gate's verdict over ``failures``, the case results, the
    failed thresholds, each unsafe write call of ``unsafe`` (call, case, target), then the
    per-target table."""
    run = metrics.run
    out = [
        gate_headline(failures),
        "",
        f"fcbench run {md_escape(run.run_id)}: suite {md_escape(run.suite)} "
        f"{md_escape(run.dataset_version)}, {run.repeats} repeats. {case_results(metrics)}",
        "",
    ]
    if metrics.damaged_lines:
        out += [f"**Warning**: {damaged_note(metrics.damaged_lines)}.", ""]
    if failures:
        out += ["### Gate failures", ""] + [f"- {md_escape(str(f), limit=500)}" for f in failures] + [""]
    if unsafe:
        out += ["### Unsafe writes", ""] + [
            f"- {md_escape(line, limit=500)}" for line in unsafe_write_lines(unsafe)
        ]
        out += [""]
    out += table(
        ["Name", "Target", "Mode", "Pass rate", "Coverage", "Provider errors", "Anomalies"],
        [_target_row(t) for t in metrics.targets],
    )
    out += [""] + tool_order_markdown(metrics) if metrics.tool_order is not None else []
    authorization = authorization_markdown(metrics)
    out += [""] + authorization if authorization else []
    return "\n".join(out) + "\n"


def render_github_run(run_dir: Path, modes: list[str] | None, profile: str) -> str:
    """:func:`render_github` of a run directory, gated by the run's own gate."""
    metrics = compute_metrics(run_dir, modes=modes, profile=profile, parts="auto")
    unsafe = run_unsafe_writes(run_dir)
    return render_github(metrics, run_gate_failures(run_dir, metrics, unsafe), unsafe)


def compare_verdict(c: Comparison) -> str:
    """``**FAIL**: N thresholds failed`` or ``**PASS**: ...``."""
    if c.failures:
        return f"**FAIL**: {_plural(len(c.failures), 'threshold')} failed"
    return f"**PASS**: {_plural(len(c.targets), 'target')} compared, no threshold failed"


def _rates(t: TargetComparison, metric: str) -> tuple[Rate, Rate, str]:
    d = next(d for d in t.deltas if d.metric == metric)
    return d.base, d.new, "–" if d.delta_points is None else f"{d.delta_points:+.1f}"


def _value(t: TargetComparison, metric: str) -> str:
    v: ValueDelta = next(v for v in t.operations if v.metric == metric)
    change = "" if v.change_pct is None else f" ({v.change_pct:+.0f}%)"
    flag = " FAILED" if v.exceeded else ""
    return f"{fmt_value(v.metric, v.base)} → {fmt_value(v.metric, v.new)}{change}{flag}"


def _pair_row(t: TargetComparison) -> list[str]:
    pb, pn, pd = _rates(t, "pass_rate")
    cb, cn, cd = _rates(t, "coverage")
    label = t.target if t.base_target == t.target else f"{t.base_target} → {t.target}"
    return [
        ("**REGRESSED** " if t.regressed else "") + md_escape(t.title if t.name != t.new_name else t.name),
        md_escape(label),
        md_escape(t.mode),
        md_escape(t.pairing),
        f"{fmt_rate(pb)} → {fmt_rate(pn)}",
        pd,
        f"{fmt_rate(cb)} → {fmt_rate(cn)}",
        cd,
        _value(t, "latency_p95_ms"),
        _value(t, "cost_per_pass_usd"),
        _errors(t.new_provider_errors),
    ]


def render_compare_github(comparison: Comparison) -> str:
    """A comparison as a step summary: the verdict, the per-pair table, failed thresholds and flips."""
    c = comparison
    out = [compare_verdict(c), "", f"fcbench compare {md_escape(c.base_run)} → {md_escape(c.new_run)}", ""]
    header = ["Name", "Target", "Mode", "Paired by", "Pass rate", "Δ points", "Coverage", "Δ points"]
    header += ["p95 latency", "Cost per pass", "Provider errors (new)"]
    out += table(header, [_pair_row(t) for t in c.targets])
    if c.failures:
        out += ["", "### Failed thresholds", ""] + [f"- {md_escape(f, limit=500)}" for f in c.failures]
    if c.warnings:
        out += ["", "### Warnings", ""] + [f"- {md_escape(w, limit=500)}" for w in c.warnings]
    groups = flip_groups(c)
    out += ["", "### Flipped cases", ""]
    out += table(["Flip", "Cases"], [[title, str(len(flips))] for title, flips in groups])
    for title, flips in groups:
        if not flips:
            continue
        out += ["", f"**{title}**", ""]
        out += [
            f"- {md_escape(f.case_id)}: {md_escape(f.title)} \\[{md_escape(f.mode)}\\] "
            f"{f.base.n}/{f.base.d} → {f.new.n}/{f.new.d}"
            for f in flips[:MAX_FLIPS_LISTED]
        ]
        if len(flips) > MAX_FLIPS_LISTED:
            out.append(f"- … {len(flips) - MAX_FLIPS_LISTED} more (see --format json)")
    return "\n".join(out) + "\n"
