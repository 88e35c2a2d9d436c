"""Self-contained HTML report: charts, confusion heatmaps, a case x target matrix and a drill-down.

One file that opens offline: plotly's JavaScript is embedded once, figures and observations are
embedded as JSON in ``<script type="application/json">`` blocks (with ``<``, ``>`` and ``&`` escaped
so no text can close the block), and the template escapes everything else. Model output is treated
as untrusted text everywhere: the page's script only ever assigns it with ``textContent``.

Every rate is shown with its Wilson 95% interval (and as error bars in the rates chart); anomalies
are listed per target and code, and the drill-down can be filtered by anomaly code.

For large runs at most ``max_observations`` observations are embedded for the drill-down, failures
first, then provider or harness errors, then passes; the page says how many were left out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import plotly.graph_objects as go
import plotly.io as pio
from plotly.offline import get_plotlyjs

from fcbench.endpoints import label_of
from fcbench.grading import RIGHT_DECISIONS
from fcbench.metrics import CaseSummary, RunMetrics, compute_metrics, failure_reasons, record_anomalies
from fcbench.report.common import (
    RATE_COLUMNS,
    anomaly_meaning,
    anomaly_rows,
    column_label,
    failing_cases,
    fmt_cost,
    fmt_counts,
    fmt_number,
    fmt_rate_ci,
    provider_error_rows,
)
from fcbench.store.blobs import expand_blobs, load_blob_closure

MAX_OBSERVATIONS = 2000
MAX_MATRIX_ROWS = 3000
MAX_HEATMAPS = 16
MAX_TEXT_CHARS = 8_000
_PRIORITIES = ("failures", "errors", "passes")


def json_for_script(text: str) -> str:
    """Make JSON text safe inside a ``<script>`` element (no ``</script>``, no ``<!--``)."""
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _dump(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False, default=str)
    if len(text) > MAX_TEXT_CHARS:
        return text[:MAX_TEXT_CHARS] + f"\n… ({len(text) - MAX_TEXT_CHARS} more characters not shown)"
    return text


@dataclass
class ObservationSampler:
    """Keeps at most ``limit`` observations, preferring failures, then errors, then passes."""

    limit: int = MAX_OBSERVATIONS
    kept: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {p: [] for p in _PRIORITIES})
    seen: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_PRIORITIES, 0))

    def __call__(self, rec: dict[str, Any]) -> None:
        """Observe one record dict (used as the metrics observer)."""
        verdict = rec.get("verdict") if isinstance(rec.get("verdict"), dict) else None
        outcome = rec.get("outcome") or {}
        decision = verdict.get("decision") if verdict else None
        scorable = outcome.get("kind") != "provider_error" and decision not in (None, "not_scored")
        if not scorable:
            bucket = "errors"
        else:
            bucket = "passes" if verdict and verdict.get("passed") is True else "failures"
        self.seen[bucket] += 1
        rank = _PRIORITIES.index(bucket)
        if sum(len(v) for v in self.kept.values()) >= self.limit:
            worst = next((p for p in reversed(_PRIORITIES) if self.kept[p]), None)
            if worst is None or _PRIORITIES.index(worst) <= rank:
                return
            self.kept[worst].pop()
        self.kept[bucket].append(_observation(rec, verdict, str(decision) if scorable else "not_scored"))

    def rows(self) -> list[dict[str, Any]]:
        """The kept observations, failures first, each with a stable ``id``."""
        rows = [row for p in _PRIORITIES for row in self.kept[p]]
        for i, row in enumerate(rows):
            row["id"] = i
        return rows

    def note(self) -> str:
        """A sentence saying what was kept out of what was seen."""
        total = sum(self.seen.values())
        kept = sum(len(v) for v in self.kept.values())
        parts = ", ".join(f"{len(self.kept[p])} of {self.seen[p]} {p}" for p in _PRIORITIES)
        if kept == total:
            return f"All {total} observations are included ({parts})."
        return (
            f"Showing {kept} of {total} observations, failures first ({parts}); "
            "the rest are in records.jsonl."
        )


def _observation(rec: dict[str, Any], verdict: dict[str, Any] | None, decision: str) -> dict[str, Any]:
    target = rec.get("target") or {}
    case = rec.get("case") or {}
    raw = rec.get("raw")
    if isinstance(raw, dict) and ("request" in raw or "response" in raw):
        request, response = raw.get("request"), raw.get("response")
    else:
        request, response = raw, None
    passed = verdict.get("passed") if verdict else None
    return {
        "target": label_of(target),
        "mode": str(rec.get("mode")),
        "case_id": str(rec.get("case_id")),
        "repeat": rec.get("repeat"),
        "category": str(case.get("category", "")),
        "tags": [str(t) for t in case.get("tags") or []],
        "expected_kind": str(case.get("expected_kind", "")),
        "decision": decision,
        "anomalies": list(record_anomalies(rec)),
        "passed": passed,
        "reasons": failure_reasons(verdict)
        if verdict and passed is not True and decision != "not_scored"
        else [],
        "prompt": _dump(case.get("prompt", "")),
        "outcome": _dump(rec.get("outcome")),
        "verdict": _dump(verdict),
        "transcript": _dump(rec.get("turns")) if rec.get("turns") else "",
        "request": request,
        "response": response,
        "error": _dump(rec.get("error")),
        "latency_ms": rec.get("latency_ms"),
    }


def _colour(n: int, d: int) -> str:
    if d == 0:
        return "#d9d9d9"
    return f"hsl({round(120 * n / d)}, 65%, 72%)"


def _rates_figure(metrics: RunMetrics) -> str:
    fig = go.Figure()
    titles = [title for _, title in RATE_COLUMNS]
    for t in metrics.targets:
        rates = [getattr(t, attr) for attr, _ in RATE_COLUMNS]
        fig.add_bar(
            name=column_label(metrics, t),
            x=titles,
            y=[None if r.rate is None else round(r.rate * 100, 2) for r in rates],
            customdata=[f"{r.n}/{r.d}" for r in rates],
            hovertemplate="%{x}: %{y:.1f}% (%{customdata})<extra>%{fullData.name}</extra>",
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [
                    None if r.rate is None or r.high is None else round((r.high - r.rate) * 100, 2)
                    for r in rates
                ],
                "arrayminus": [
                    None if r.rate is None or r.low is None else round((r.rate - r.low) * 100, 2)
                    for r in rates
                ],
            },
        )
    fig.update_layout(
        barmode="group",
        title="Rates per target (%), with Wilson 95% intervals",
        yaxis={"range": [0, 100], "title": "%"},
        height=440,
        margin={"l": 50, "r": 20, "t": 50, "b": 120},
        legend={"orientation": "h"},
    )
    return json_for_script(pio.to_json(fig, validate=False))


def _confusion_figures(metrics: RunMetrics) -> list[tuple[str, str]]:
    figures = []
    for t in [t for t in metrics.targets if t.confusion][:MAX_HEATMAPS]:
        kinds = list(t.confusion)
        decisions = sorted({d for row in t.confusion.values() for d in row})
        z = [[t.confusion[k].get(d, 0) for d in decisions] for k in kinds]
        fig = go.Figure(go.Heatmap(z=z, x=decisions, y=kinds, colorscale="Blues", texttemplate="%{z}"))
        fig.update_layout(
            title=f"{column_label(metrics, t)}: expected x decision",
            height=320,
            margin={"l": 110, "r": 20, "t": 50, "b": 110},
        )
        figures.append((column_label(metrics, t), json_for_script(pio.to_json(fig, validate=False))))
    return figures


def _matrix(metrics: RunMetrics) -> dict[str, Any]:
    columns = [(t.target, t.mode, column_label(metrics, t)) for t in metrics.targets]
    cells: dict[tuple[str, str, str], CaseSummary] = {(c.target, c.mode, c.case_id): c for c in metrics.cases}
    info: dict[str, CaseSummary] = {}
    for c in metrics.cases:
        info.setdefault(c.case_id, c)
    order = list(info.items())
    scores: dict[str, list[float]] = {}
    for c in metrics.cases:
        if c.passed.d:
            scores.setdefault(c.case_id, []).append(c.passed.n / c.passed.d)
    order.sort(key=lambda item: (min(scores.get(item[0], [2.0])), item[0]))
    rows = []
    for case_id, c in order[:MAX_MATRIX_ROWS]:
        row_cells = []
        for target, mode, label in columns:
            s = cells.get((target, mode, case_id))
            if s is None:
                row_cells.append({"present": False, "target": target, "mode": mode, "label": label})
                continue
            text = f"{s.passed.n}/{s.passed.d}" if s.passed.d else f"err {s.errors}"
            title = f"{label}: {fmt_rate_ci(s.passed)}; " + ", ".join(
                f"{k} {v}" for k, v in s.decisions.items()
            )
            row_cells.append(
                {
                    "present": True,
                    "target": target,
                    "mode": mode,
                    "label": label,
                    "text": text,
                    "title": title,
                    "colour": _colour(s.passed.n, s.passed.d),
                }
            )
        rows.append({"case_id": case_id, "category": c.category, "tags": c.tags, "cells": row_cells})
    return {"columns": [label for _, _, label in columns], "rows": rows, "total": len(order)}


def _summary_rows(metrics: RunMetrics) -> list[dict[str, Any]]:
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
                "tokens": f"{fmt_number(t.tokens.input)} / {fmt_number(t.tokens.output)}",
                "cost": fmt_cost(t.cost_usd),
                "cost_per_pass": fmt_cost(t.cost_per_pass),
            }
        )
    return rows


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("fcbench.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def render_html(
    run_dir: Path,
    modes: list[str] | None = None,
    max_observations: int = MAX_OBSERVATIONS,
    profile: str = "strict",
) -> str:
    """Read the run once and render the self-contained HTML report."""
    sampler = ObservationSampler(limit=max_observations)
    metrics = compute_metrics(run_dir, modes=modes, observer=sampler, profile=profile)
    return render_html_from(metrics, sampler, run_dir)


def expand_raw(rows: list[dict[str, Any]], run_dir: Path | None) -> list[dict[str, Any]]:
    """Restore the compacted raw request and response of the sampled rows, as display text."""
    raw_values = [row[key] for row in rows for key in ("request", "response")]
    blobs = load_blob_closure(run_dir, raw_values) if run_dir is not None else {}
    for row in rows:
        for key in ("request", "response"):
            row[key] = _dump(expand_blobs(row[key], blobs))
    return rows


def render_html_from(metrics: RunMetrics, sampler: ObservationSampler, run_dir: Path | None = None) -> str:
    """Render the page from metrics and sampled observations (raw parts are read from ``run_dir``)."""
    observations = expand_raw(sampler.rows(), run_dir)
    several_modes = len({t.mode for t in metrics.targets}) > 1
    for o in observations:
        o["column"] = f"{o['target']} [{o['mode']}]" if several_modes else o["target"]
    decisions = sorted(
        {o["decision"] for o in observations} | {d for t in metrics.targets for d in t.decisions}
    )
    context = {
        "run": metrics.run,
        "records_read": metrics.records_read,
        "rate_titles": [title for _, title in RATE_COLUMNS],
        "summary": _summary_rows(metrics),
        "rates_figure": _rates_figure(metrics),
        "confusion_figures": _confusion_figures(metrics),
        "confusion_tables": [
            (column_label(metrics, t), sorted({d for row in t.confusion.values() for d in row}), t.confusion)
            for t in metrics.targets
            if t.confusion
        ],
        "matrix": _matrix(metrics),
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
        "filters": {
            "category": sorted({c.category for c in metrics.cases}),
            "tag": sorted({tag for c in metrics.cases for tag in c.tags}),
            "target": [column_label(metrics, t) for t in metrics.targets],
            "decision": decisions,
            "anomaly": sorted(
                {code for o in observations for code in o["anomalies"]}
                | {c for t in metrics.targets for c in t.anomalies}
            ),
        },
        "correct_decisions": sorted(RIGHT_DECISIONS),
        "observations_json": json_for_script(json.dumps(observations, ensure_ascii=False)),
        "observations_note": sampler.note(),
        "plotly_js": get_plotlyjs().replace("</script", "<\\/script"),
    }
    return _environment().get_template("report.html.j2").render(**context)
