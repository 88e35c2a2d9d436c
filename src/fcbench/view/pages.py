"""The viewer's own pages: the list of runs, run versus run and the history (the run page is the
report's)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2

from fcbench.report.html import STATIC_DIR
from fcbench.view.compare_page import compare_context
from fcbench.view.history import CHART_HEIGHT, CHART_WIDTH, MARGIN, HistoryPage
from fcbench.view.runs import RunEntry, RunSummary


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("fcbench.view", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )


def _css() -> str:
    return (STATIC_DIR / "report.css").read_text(encoding="utf-8")


def render_runs(root: Path, runs: list[dict[str, Any]], default: tuple[str, str] | None = None) -> str:
    """The list of runs, newest first, with a form to compare two of them (``default``: the pair
    chosen at first, base then new)."""
    base, new = default or ("", "")
    template = _environment().get_template("runs.html.j2")
    return template.render(root=str(root), runs=runs, base=base, new=new, css=_css())


def render_history(page: HistoryPage) -> str:
    """The history page: each named target's pass rate over runs, and the failure catalogue."""
    return (
        _environment()
        .get_template("history.html.j2")
        .render(page=page, css=_css(), width=CHART_WIDTH, height=CHART_HEIGHT, margin=MARGIN)
    )


def render_compare(
    base: tuple[RunEntry, RunSummary],
    new: tuple[RunEntry, RunSummary],
    *,
    pairs: Sequence[tuple[str, str]] | None = None,
    only_flips: bool = False,
) -> str:
    """The run-versus-run page (:func:`fcbench.view.compare_page.compare_context`)."""
    context = compare_context(base, new, pairs=pairs, only_flips=only_flips)
    return _environment().get_template("compare.html.j2").render(**context, css=_css())
