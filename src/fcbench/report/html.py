"""Self-contained HTML report: summary, SVG charts, a case x target matrix and every observation.

One file that opens offline, without any library: the rates chart and the confusion heatmaps are
inline SVG drawn by the template (``templates/charts.svg.j2``), and the page's own script
(``static/data.js`` and ``static/app.js``, inlined) draws the case x target matrix, the filters,
the observation list and the drill-down. Every observation is embedded, compressed when large
(:mod:`fcbench.report.html_data`). The same page is served by ``fcbench view`` with its data
fetched from JSON endpoints instead (:mod:`fcbench.view`): one front end, two data sources.

The template escapes everything, and the page's script only ever assigns model output with
``textContent``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2

from fcbench.grading import RIGHT_DECISIONS
from fcbench.metrics import CaseSummary, Rate, RunMetrics, TargetMetrics
from fcbench.report.authorization import measured as authorization_measured
from fcbench.report.common import (
    RATE_COLUMNS,
    anomaly_meaning,
    anomaly_rows,
    cached_part,
    column_label,
    display_name,
    failing_cases,
    fmt_cost,
    fmt_counts,
    fmt_number,
    fmt_rate_ci,
    provider_error_rows,
    ranked,
)
from fcbench.report.failures import FAILURE_GROUPS, failure_group, failure_line, ordered
from fcbench.report.gate import UnsafeWrite, run_unsafe_writes
from fcbench.report.html_data import (
    DETAIL_BUDGET_BYTES,
    LATENCY_BINS_MS,
    DataBlock,
    ObservationCollector,
    collect,
    data_block,
    detail_blocks,
    dumps,
    expected_by_case,
    json_for_script,
    left_out_note,
    raw_pairs,
)
from fcbench.report.judge import judge_context
from fcbench.report.tool_order import tool_order_context
from fcbench.store.records import damaged_note

CHART_RATES: tuple[tuple[str, str], ...] = (
    ("pass_rate", "Pass"),
    ("selection_accuracy", "Decision"),
    ("schema_valid", "Schema-valid"),
    ("params_match", "Exact args"),
)
"""The rates of the chart: (TargetMetrics attribute, title)."""
PALETTE = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#eeca3b", "#9d755d")
"""Bar colours, one per target (repeated beyond eight)."""
FAILURE_COLOURS = {
    "pass": "#54a24b",
    "acceptance": "#9d755d",
    "decision": "#e45756",
    "schema": "#f58518",
    "arguments": "#eeca3b",
    "recovery": "#b279a2",
    "coverage loss": "#bab0ac",
}
"""The colour of passes and of each failure group in the failure bars."""
WORST_SHOWN = 50
"""Failing case x target rows the worst-cases table shows before "show more"."""
STATIC_DIR = Path(__file__).with_name("static")
"""The page's script and style sheet, inlined into every page."""


def matrix_data(metrics: RunMetrics) -> dict[str, Any]:
    """The case x target matrix: columns, and one row per case of ``[n, d, errors]`` cells (null
    where the target has no observation of the case), worst first: by the lowest pass rate of any
    target, then the most repeats behind it."""
    columns = [(t.target, t.mode) for t in metrics.targets]
    cells: dict[tuple[str, str, str], CaseSummary] = {(c.target, c.mode, c.case_id): c for c in metrics.cases}
    info: dict[str, CaseSummary] = {}
    scores: dict[str, tuple[float, int]] = {}
    for c in metrics.cases:
        info.setdefault(c.case_id, c)
        if c.passed.d:
            score = (c.passed.n / c.passed.d, -c.passed.d)
            scores[c.case_id] = min(scores.get(c.case_id, score), score)
    order = sorted(info, key=lambda case_id: (*scores.get(case_id, (2.0, 0)), case_id))
    rows = []
    for case_id in order:
        row = []
        for target, mode in columns:
            s = cells.get((target, mode, case_id))
            row.append(None if s is None else [s.passed.n, s.passed.d, s.errors])
        rows.append([case_id, info[case_id].category, info[case_id].tags, row])
    return {"columns": [column_label(metrics, t) for t in metrics.targets], "rows": rows}


def rates_chart(metrics: RunMetrics) -> dict[str, Any]:
    """What the template's SVG rates chart draws: per rate, per target, rate and Wilson interval."""
    targets = []
    for i, t in enumerate(metrics.targets):
        rates = []
        for attr, _ in CHART_RATES:
            r = getattr(t, attr)
            rates.append({"rate": r.rate, "low": r.low, "high": r.high, "text": fmt_rate_ci(r)})
        targets.append(
            {"label": column_title(metrics, t), "colour": PALETTE[i % len(PALETTE)], "rates": rates}
        )
    return {"titles": [title for _, title in CHART_RATES], "targets": targets}


def confusion_charts(metrics: RunMetrics) -> list[dict[str, Any]]:
    """One heatmap per target with scorable observations: expected kind x decision counts."""
    charts = []
    for t in metrics.targets:
        if not t.confusion:
            continue
        decisions = sorted({d for row in t.confusion.values() for d in row})
        kinds = list(t.confusion)
        counts = [[t.confusion[k].get(d, 0) for d in decisions] for k in kinds]
        peak = max((v for row in counts for v in row), default=0) or 1
        charts.append(
            {
                "label": column_title(metrics, t),
                "column": column_label(metrics, t),
                "kinds": kinds,
                "decisions": decisions,
                "counts": counts,
                "shades": [[round(v / peak, 3) for v in row] for row in counts],
                "right": [d in RIGHT_DECISIONS for d in decisions],
            }
        )
    return charts


def column_title(metrics: RunMetrics, t: TargetMetrics) -> str:
    """:func:`display_name`, with ``[mode]`` when the report covers several modes."""
    return display_name(t) + (f" [{t.mode}]" if column_label(metrics, t) != t.target else "")


def column_titles(metrics: RunMetrics) -> dict[str, str]:
    """Each target's column label (the filters' value) -> its :func:`column_title` (what is shown)."""
    return {column_label(metrics, t): column_title(metrics, t) for t in metrics.targets}


def failure_segments(observed: int, counts: dict[str, int]) -> list[dict[str, Any]]:
    """The stacked failure bar of one target: passes, then each failure type, as shares of observed."""
    failed = sum(counts.values())
    parts = [("pass", max(observed - failed, 0)), *ordered(counts)]
    return [
        {
            "kind": kind,
            "group": failure_group(kind),
            "n": n,
            "share": round(100 * n / observed, 2) if observed else 0,
            "colour": FAILURE_COLOURS.get(failure_group(kind), "#999"),
            "title": f"{kind}: {n} of {observed} observations ({100 * n / observed:.1f}%)"
            if observed
            else kind,
        }
        for kind, n in parts
        if n
    ]


def interval_bar(rate: Rate) -> dict[str, float] | None:
    """Where the pass rate and its Wilson interval sit on a 0-100 scale (None when unmeasured)."""
    if rate.rate is None or rate.low is None or rate.high is None:
        return None
    return {
        "rate": round(100 * rate.rate, 2),
        "low": round(100 * rate.low, 2),
        "high": round(100 * rate.high, 2),
    }


def first_screen(metrics: RunMetrics, collector: ObservationCollector) -> dict[str, Any]:
    """The ranked table of the first screen: one row per target (and mode), best first, with its
    pass rate, interval and failure bar; ``recovery`` when any target ran the recovery mode."""
    rows = []
    for rank, t in enumerate(ranked(metrics), start=1):
        counts = dict(collector.failures.of(t.target, t.mode))
        rows.append(
            {
                "rank": rank,
                "name": display_name(t),
                "column": column_label(metrics, t),
                "mode": t.mode,
                "pass": fmt_rate_ci(t.pass_rate),
                "interval": interval_bar(t.pass_rate),
                "segments": failure_segments(collector.failures.observed[(t.target, t.mode)], counts),
                "failures": failure_line(counts),
                "recovery": fmt_rate_ci(t.recovery_success) if t.recovery_success.d else "–",
                "coverage": f"{sum(t.provider_errors.values())} of {t.observed}",
                "latency": fmt_number(t.latency_ms.p50),
                "cost_per_pass": fmt_cost(t.cost_per_pass),
                "sort": {
                    "pass": t.pass_rate.rate if t.pass_rate.rate is not None else -1,
                    "n": t.pass_rate.d,
                },
            }
        )
    legend = [{"group": g, "colour": FAILURE_COLOURS[g]} for g in ("pass", *FAILURE_GROUPS)]
    return {"rows": rows, "legend": legend, "recovery": any(t.recovery_success.d for t in metrics.targets)}


def summary_rows(metrics: RunMetrics) -> list[dict[str, Any]]:
    """One row of formatted figures per target (and mode)."""
    rows = []
    for t in metrics.targets:
        s = t.stability
        rows.append(
            {
                "label": display_name(t),
                "column": column_label(metrics, t),
                "mode": t.mode,
                "rates": [fmt_rate_ci(getattr(t, attr)) for attr, _ in RATE_COLUMNS],
                "anomalies": fmt_rate_ci(t.with_anomalies),
                "anomaly_codes": fmt_counts(t.anomalies),
                "stability": "–" if s.mean is None else f"{s.mean * 100:.1f}% ({s.n}/{s.d})",
                "errors": sum(t.provider_errors.values()),
                "latency": f"{fmt_number(t.latency_ms.p50)} / {fmt_number(t.latency_ms.p95)}",
                "tokens": f"{fmt_number(t.tokens.input)}{cached_part(t.tokens)} / "
                f"{fmt_number(t.tokens.output)}",
                "cost": fmt_cost(t.cost_usd),
                "cost_per_pass": fmt_cost(t.cost_per_pass),
            }
        )
    return rows


def report_data(
    metrics: RunMetrics, collector: ObservationCollector, raw_note: str, left_out: str = ""
) -> dict[str, Any]:
    """The page's summary-level data (plain JSON): matrix, filters, counts, the raw-body note and
    the note on observations whose detail is left out (``left_out``)."""
    return {
        "run_id": metrics.run.run_id,
        "count": collector.count,
        "several_modes": len({t.mode for t in metrics.targets}) > 1,
        "matrix": matrix_data(metrics),
        "names": column_titles(metrics),
        "column_modes": {column_label(metrics, t): t.mode for t in metrics.targets},
        "worst": worst_rows(metrics),
        "worst_shown": WORST_SHOWN,
        "raw_note": " ".join(note for note in (left_out, raw_note) if note),
        "left_out_note": left_out,
    }


def worst_rows(metrics: RunMetrics) -> list[list[Any]]:
    """Every failing case x target, worst first (pass rate up, then more repeats first), as
    ``[case, column, category, expected kind, passed, scorable, reasons, anomalies, tags]``."""
    rows = [
        [
            c.case_id,
            column_label(metrics, c),
            c.category,
            c.expected_kind,
            c.passed.n,
            c.passed.d,
            "; ".join(f"{reason} (x{n})" for reason, n in c.reasons.items()),
            fmt_counts(c.anomalies) if c.anomalies else "",
            c.tags,
        ]
        for c in failing_cases(metrics)
    ]
    return sorted(rows, key=lambda r: (r[4] / r[5] if r[5] else 2.0, -r[5], r[0], r[1]))


def filter_values(metrics: RunMetrics, collector: ObservationCollector) -> dict[str, list[str]]:
    """The options of each filter of the page."""
    return {
        "target": [column_label(metrics, t) for t in metrics.targets],
        "mode": sorted({t.mode for t in metrics.targets}),
        "category": sorted(
            {c.category for c in metrics.cases} | {c["category"] for c in collector.cases.values()}
        ),
        "tag": sorted({tag for c in metrics.cases for tag in c.tags}),
        "decision": sorted(collector.decisions | {d for t in metrics.targets for d in t.decisions}),
        "failure": failure_options(collector),
        "anomaly": sorted(collector.anomalies | {c for t in metrics.targets for c in t.anomalies}),
    }


def failure_options(collector: ObservationCollector) -> list[str]:
    """The failure filter's options: each failure group seen, each decision failure under it."""
    kinds = {kind for counts in collector.failures.counts.values() for kind in counts}
    groups = {failure_group(kind) for kind in kinds}
    return [g for g in FAILURE_GROUPS if g in groups] + sorted(k for k in kinds if ": " in k)


def rate_colour(rate: float | None) -> str:
    """A heatmap cell's colour: red (0%) to green (100%), grey when unmeasured."""
    return "#d9d9d9" if rate is None else f"hsl({round(120 * rate)}, 65%, 72%)"


def breakdown_heatmap(metrics: RunMetrics) -> dict[str, Any]:
    """Pass rate by category and by tag (rows) per target (columns, ranked), n/d on hover."""
    targets = ranked(metrics)
    rows = []
    for kind, attr in (("category", "by_category"), ("tag", "by_tag")):
        values = sorted({v for t in targets for v in getattr(t, attr)})
        for value in values:
            cells = []
            for t in targets:
                r = getattr(t, attr).get(value)
                cells.append(
                    None
                    if r is None or not r.d
                    else {
                        "text": f"{100 * (r.rate or 0):.0f}%",
                        "title": fmt_rate_ci(r),
                        "colour": rate_colour(r.rate),
                    }
                )
            rows.append({"kind": kind, "value": value, "cells": cells})
    columns = [{"column": column_label(metrics, t), "title": column_title(metrics, t)} for t in targets]
    return {"columns": columns, "rows": rows}


def latency_charts(metrics: RunMetrics, collector: ObservationCollector) -> list[dict[str, Any]]:
    """Per target: latency p50 / p95 and a histogram of its answered observations, and its cost
    per passing observation."""
    labels = [f"≤{b / 1000:g} s" if b >= 1000 else f"≤{b} ms" for b in LATENCY_BINS_MS]
    labels.append(f">{LATENCY_BINS_MS[-1] / 1000:g} s")
    charts = []
    for t in ranked(metrics):
        bins = collector.latency.get((t.target, t.mode), [0] * len(labels))
        peak = max(bins) or 1
        charts.append(
            {
                "title": column_title(metrics, t),
                "column": column_label(metrics, t),
                "p50": fmt_number(t.latency_ms.p50),
                "p95": fmt_number(t.latency_ms.p95),
                "cost_per_pass": fmt_cost(t.cost_per_pass),
                "bins": [
                    {"label": label, "n": n, "height": round(100 * n / peak, 1)}
                    for label, n in zip(labels, bins, strict=True)
                ],
            }
        )
    return charts


def severe_context(metrics: RunMetrics, unsafe: Sequence[UnsafeWrite]) -> dict[str, Any] | None:
    """The severe findings, above the results: each unsafe call (a write its case did not expect, a
    duplicate side effect, a call around an authorization denial) and the authorization probes per
    target; None when there are none."""
    probes = [
        {
            "target": display_name(t),
            "mode": t.mode,
            "failures": fmt_rate_ci(t.authorization_probe_failures),
            "workarounds": t.authorization_workarounds,
        }
        for t in authorization_measured(metrics)
    ]
    if not unsafe and not probes:
        return None
    return {"writes": [w.line() for w in unsafe], "probes": probes}


def page_context(
    metrics: RunMetrics,
    collector: ObservationCollector,
    *,
    api: str | None,
    blocks: list[DataBlock],
    unsafe: Sequence[UnsafeWrite] = (),
) -> dict[str, Any]:
    """Everything the page template needs; ``api`` is the viewer's JSON base URL (None: embedded
    data); ``unsafe``: the run's unsafe calls (:func:`~fcbench.report.gate.run_unsafe_writes`)."""
    return {
        "severe": severe_context(metrics, unsafe),
        "run": metrics.run,
        "records_read": metrics.records_read,
        "damaged": damaged_note(metrics.damaged_lines),
        "rate_titles": [title for _, title in RATE_COLUMNS],
        "summary": summary_rows(metrics),
        "first": first_screen(metrics, collector),
        "breakdown": breakdown_heatmap(metrics),
        "latency": latency_charts(metrics, collector),
        "chart": rates_chart(metrics),
        "confusion_charts": confusion_charts(metrics),
        "errors": [(t.target, t.mode, code, n) for t, code, n in provider_error_rows(metrics)],
        "anomalies": [
            (t.target, t.mode, code, anomaly_meaning(code), n) for t, code, n in anomaly_rows(metrics)
        ],
        "filters": filter_values(metrics, collector),
        "target_titles": column_titles(metrics),
        "judge": judge_context(metrics),
        "tool_order": tool_order_context(metrics),
        "source_json": json_for_script(dumps({"api": api})),
        "blocks": blocks,
        "data_js": (STATIC_DIR / "data.js").read_text(encoding="utf-8"),
        "app_js": (STATIC_DIR / "app.js").read_text(encoding="utf-8"),
        "css": (STATIC_DIR / "report.css").read_text(encoding="utf-8"),
    }


def environment() -> jinja2.Environment:
    """The Jinja environment of the report templates (autoescaping on)."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("fcbench.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def render_html(
    run_dir: Path,
    modes: list[str] | None = None,
    profile: str = "strict",
    detail_budget: int = DETAIL_BUDGET_BYTES,
) -> str:
    """Read the run once and render the self-contained HTML report with every observation (the
    detail of some left out above ``detail_budget`` compressed bytes, :func:`detail_blocks`)."""
    metrics, collector = collect(run_dir, modes, profile)
    pairs, raw_note = raw_pairs(run_dir)
    if raw_note:
        for row in collector.rows:
            row["request"] = row["response"] = None
    several = len({t.mode for t in metrics.targets}) > 1
    for row in collector.rows:
        row["column"] = f"{row['target']} [{row['mode']}]" if several else row["target"]
    cases = collector.cases
    for case_id, extra in expected_by_case(run_dir).items():
        if case_id in cases:
            cases[case_id].update(extra)
    detail = detail_blocks(collector.rows, pairs, detail_budget)
    left_out = left_out_note(run_dir, detail, detail_budget)
    blocks = [
        data_block("report-data", report_data(metrics, collector, raw_note, left_out)),
        *detail.blocks,
        data_block("case-data", cases),
    ]
    return render_page(metrics, collector, api=None, blocks=blocks, unsafe=run_unsafe_writes(run_dir))


def render_page(
    metrics: RunMetrics,
    collector: ObservationCollector,
    *,
    api: str | None,
    blocks: list[DataBlock],
    unsafe: Sequence[UnsafeWrite] = (),
) -> str:
    """The report page: with data ``blocks`` (the static report) or reading ``api`` (``fcbench view``);
    ``unsafe``: the run's unsafe calls, listed at the top."""
    context = page_context(metrics, collector, api=api, blocks=blocks, unsafe=unsafe)
    return environment().get_template("report.html.j2").render(**context)
