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

from pathlib import Path
from typing import Any

import jinja2

from fcbench.grading import RIGHT_DECISIONS
from fcbench.metrics import CaseSummary, RunMetrics
from fcbench.report.common import (
    RATE_COLUMNS,
    anomaly_meaning,
    anomaly_rows,
    cached_part,
    column_label,
    failing_cases,
    fmt_cost,
    fmt_counts,
    fmt_number,
    fmt_rate_ci,
    provider_error_rows,
)
from fcbench.report.html_data import (
    DataBlock,
    ObservationCollector,
    collect,
    data_block,
    dumps,
    expected_by_case,
    json_for_script,
    raw_block,
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
STATIC_DIR = Path(__file__).with_name("static")
"""The page's script and style sheet, inlined into every page."""


def matrix_data(metrics: RunMetrics) -> dict[str, Any]:
    """The case x target matrix: columns, and one row per case (worst first) of ``[n, d, errors]``
    cells (null where the target has no observation of the case)."""
    columns = [(t.target, t.mode) for t in metrics.targets]
    cells: dict[tuple[str, str, str], CaseSummary] = {(c.target, c.mode, c.case_id): c for c in metrics.cases}
    info: dict[str, CaseSummary] = {}
    scores: dict[str, float] = {}
    for c in metrics.cases:
        info.setdefault(c.case_id, c)
        if c.passed.d:
            scores[c.case_id] = min(scores.get(c.case_id, 2.0), c.passed.n / c.passed.d)
    order = sorted(info, key=lambda case_id: (scores.get(case_id, 2.0), case_id))
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
            {"label": column_label(metrics, t), "colour": PALETTE[i % len(PALETTE)], "rates": rates}
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
                "label": column_label(metrics, t),
                "kinds": kinds,
                "decisions": decisions,
                "counts": counts,
                "shades": [[round(v / peak, 3) for v in row] for row in counts],
                "right": [d in RIGHT_DECISIONS for d in decisions],
            }
        )
    return charts


def summary_rows(metrics: RunMetrics) -> list[dict[str, Any]]:
    """One row of formatted figures per target (and mode)."""
    rows = []
    for t in metrics.targets:
        s = t.stability
        rows.append(
            {
                "label": t.target,
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


def report_data(metrics: RunMetrics, collector: ObservationCollector, raw_note: str) -> dict[str, Any]:
    """The page's summary-level data (plain JSON): matrix, filters, counts and the raw-body note."""
    return {
        "run_id": metrics.run.run_id,
        "count": collector.count,
        "several_modes": len({t.mode for t in metrics.targets}) > 1,
        "matrix": matrix_data(metrics),
        "raw_note": raw_note,
    }


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
        "anomaly": sorted(collector.anomalies | {c for t in metrics.targets for c in t.anomalies}),
    }


def page_context(
    metrics: RunMetrics, collector: ObservationCollector, *, api: str | None, blocks: list[DataBlock]
) -> dict[str, Any]:
    """Everything the page template needs; ``api`` is the viewer's JSON base URL (None: embedded data)."""
    return {
        "run": metrics.run,
        "records_read": metrics.records_read,
        "damaged": damaged_note(metrics.damaged_lines),
        "rate_titles": [title for _, title in RATE_COLUMNS],
        "summary": summary_rows(metrics),
        "chart": rates_chart(metrics),
        "confusion_charts": confusion_charts(metrics),
        "worst": [
            {
                "case": c,
                "label": column_label(metrics, c),
                "rate": fmt_rate_ci(c.passed, 0),
                "anomalies": fmt_counts(c.anomalies),
            }
            for c in failing_cases(metrics, 50)
        ],
        "errors": [(t.target, t.mode, code, n) for t, code, n in provider_error_rows(metrics)],
        "anomalies": [
            (t.target, t.mode, code, anomaly_meaning(code), n) for t, code, n in anomaly_rows(metrics)
        ],
        "filters": filter_values(metrics, collector),
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


def render_html(run_dir: Path, modes: list[str] | None = None, profile: str = "strict") -> str:
    """Read the run once and render the self-contained HTML report with every observation."""
    metrics, collector = collect(run_dir, modes, profile)
    raw, raw_note = raw_block(run_dir)
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
    blocks = [
        data_block("report-data", report_data(metrics, collector, raw_note), plain_max=1 << 62),
        data_block("obs-data", collector.rows),
        data_block("case-data", cases),
    ]
    if raw is not None:
        blocks.append(raw)
    return render_page(metrics, collector, api=None, blocks=blocks)


def render_page(
    metrics: RunMetrics, collector: ObservationCollector, *, api: str | None, blocks: list[DataBlock]
) -> str:
    """The report page: with data ``blocks`` (the static report) or reading ``api`` (``fcbench view``)."""
    context = page_context(metrics, collector, api=api, blocks=blocks)
    return environment().get_template("report.html.j2").render(**context)
