"""The viewer's own pages: the list of runs, run versus run and the history (the run page is the
report's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import jinja2

from fcbench.metrics import CaseSummary, RunMetrics
from fcbench.report.common import column_label, fmt_rate_ci
from fcbench.report.compare import compare_runs
from fcbench.report.html import STATIC_DIR
from fcbench.view.history import CHART_HEIGHT, CHART_WIDTH, MARGIN, HistoryPage
from fcbench.view.runs import RunEntry, RunSummary

MAX_COMPARE_ROWS = 2000
"""Cases shown on the run-versus-run page (flipped cases first)."""


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("fcbench.view", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )


def _css() -> str:
    return (STATIC_DIR / "report.css").read_text(encoding="utf-8")


def render_runs(root: Path, runs: list[dict[str, Any]]) -> str:
    """The list of runs, newest first, with a form to compare two of them."""
    return _environment().get_template("runs.html.j2").render(root=str(root), runs=runs, css=_css())


def render_history(page: HistoryPage) -> str:
    """The history page: each named target's pass rate over runs, and the failure catalogue."""
    return (
        _environment()
        .get_template("history.html.j2")
        .render(page=page, css=_css(), width=CHART_WIDTH, height=CHART_HEIGHT, margin=MARGIN)
    )


def run_link(key: str, case_id: str, column: str) -> str:
    """The address of a run's page with one case x target cell open."""
    return f"/runs/{quote(key)}#" + urlencode({"case": case_id, "target": column})


def _colour(s: CaseSummary) -> str:
    if s.passed.d == 0:
        return "#d9d9d9"
    return f"hsl({round(120 * s.passed.n / s.passed.d)}, 65%, 72%)"


def _side(key: str, metrics: RunMetrics, flips: dict[tuple[str, str, str], str]) -> dict[str, Any]:
    """One run's matrix: column labels and, per (case, column), the cell shown."""
    columns = [(t.target, t.mode, column_label(metrics, t)) for t in metrics.targets]
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    for c in metrics.cases:
        column = column_label(metrics, c)
        flip = flips.get((c.target, c.mode, c.case_id))
        cells[(c.case_id, column)] = {
            "text": f"{c.passed.n}/{c.passed.d}" if c.passed.d else f"err {c.errors}",
            "colour": _colour(c),
            "title": f"{column}: {fmt_rate_ci(c.passed)}",
            "flip": flip,
            "href": run_link(key, c.case_id, column),
        }
    return {"key": key, "columns": [label for _, _, label in columns], "cells": cells}


def compare_context(
    base: RunEntry, b: RunSummary, new: RunEntry, n: RunSummary, only_flips: bool = False
) -> dict[str, Any]:
    """What the run-versus-run page shows: the comparison's verdict, its flips, both matrices."""
    comparison = compare_runs(b.metrics, n.metrics, allow_dataset_change=True)
    base_flips: dict[tuple[str, str, str], str] = {}
    new_flips: dict[tuple[str, str, str], str] = {}
    for kind, flips in (("pass_to_fail", comparison.pass_to_fail), ("fail_to_pass", comparison.fail_to_pass)):
        for f in flips:
            base_flips[(f.base_target, f.mode, f.case_id)] = kind
            new_flips[(f.target, f.mode, f.case_id)] = kind
    flipped = {case_id: kind for (_, _, case_id), kind in new_flips.items()}
    worst: dict[str, float] = {}
    for c in [*b.metrics.cases, *n.metrics.cases]:
        if c.passed.d:
            worst[c.case_id] = min(worst.get(c.case_id, 2.0), c.passed.n / c.passed.d)
        else:
            worst.setdefault(c.case_id, 2.0)
    rank = {"pass_to_fail": 0, "fail_to_pass": 1}
    cases = sorted(worst, key=lambda cid: (rank.get(flipped.get(cid, ""), 2), worst[cid], cid))
    if only_flips:
        cases = [cid for cid in cases if cid in flipped]
    return {
        "base": base,
        "new": new,
        "comparison": comparison,
        "flip_rows": [
            {
                "flip": f,
                "kind": kind,
                "base_href": run_link(base.key, f.case_id, _label(b.metrics, f.base_target, f.mode)),
                "new_href": run_link(new.key, f.case_id, _label(n.metrics, f.target, f.mode)),
            }
            for kind, flips in (
                ("pass_to_fail", comparison.pass_to_fail),
                ("fail_to_pass", comparison.fail_to_pass),
            )
            for f in flips
        ],
        "sides": [_side(base.key, b.metrics, base_flips), _side(new.key, n.metrics, new_flips)],
        "cases": cases[:MAX_COMPARE_ROWS],
        "total_cases": len(cases),
        "flipped": flipped,
        "only_flips": only_flips,
        "self_link": "/compare?" + urlencode({"base": base.key, "new": new.key}),
        "css": _css(),
    }


def _label(metrics: RunMetrics, target: str, mode: str) -> str:
    several = len({t.mode for t in metrics.targets}) > 1
    return f"{target} [{mode}]" if several else target


def render_compare(
    base: RunEntry, b: RunSummary, new: RunEntry, n: RunSummary, only_flips: bool = False
) -> str:
    """The run-versus-run page."""
    context = compare_context(base, b, new, n, only_flips)
    return _environment().get_template("compare.html.j2").render(**context)
