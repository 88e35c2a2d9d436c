"""The viewer's history page: each named target's pass rate over runs, and the failure catalogue.

The page shows what ``fcbench history RUNS`` prints, from the same :func:`fcbench.history.build_history`:
per series (target name, mode, suite) a chart of the pass rate with its 95% interval, one point
per run, the runs where the model or the dataset changed marked, a chart of each failure type's
share over the same runs (the same changes marked), and a table of the points with their failure
types and coverage loss; below, the catalogue's patterns of every model seen (of the target's models
only when the page is limited to a target), with the titles and notes people gave them, and a filter
that narrows them and counts what it shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fcbench.history import Catalogue, History, Point, Series, build_history, catalogue_path, load_catalogue
from fcbench.metrics import Rate
from fcbench.report.common import fmt_rate_ci

CHART_WIDTH = 560
"""Width of one series' chart, in SVG units."""
CHART_HEIGHT = 160
"""Height of one series' chart, in SVG units."""
MARGIN = 36
"""Room left of and below the plot for the axis labels."""


@dataclass(frozen=True)
class ChartPoint:
    """One run's point as drawn."""

    x: float
    """Horizontal position."""
    y: float | None
    """Pass rate's position; None when nothing was scored."""
    low: float | None
    """Lower end of the interval's whisker."""
    high: float | None
    """Upper end of the interval's whisker."""
    title: str
    """Hover text: run, model and rate with n/d."""
    marker: str | None
    """``model A -> B`` or ``dataset A -> B`` when the point starts a change; else None."""


def _y(value: float) -> float:
    return round(8 + (1 - value) * (CHART_HEIGHT - MARGIN - 8), 1)


def chart_points(points: list[Point]) -> list[ChartPoint]:
    """Where each point of a series is drawn (runs evenly spaced, oldest left)."""
    span = CHART_WIDTH - MARGIN - 40
    step = span / max(len(points) - 1, 1)
    drawn = []
    for index, p in enumerate(points):
        rate: Rate = p.pass_rate
        changes = []
        if p.model_changed_from:
            changes.append(f"model {p.model_changed_from} -> {p.model}")
        if p.dataset_changed_from:
            changes.append(f"dataset {p.dataset_changed_from} -> {p.dataset_version}")
        drawn.append(
            ChartPoint(
                x=round(MARGIN + (index * step if len(points) > 1 else span / 2), 1),
                y=_y(rate.rate) if rate.rate is not None else None,
                low=_y(rate.low) if rate.low is not None else None,
                high=_y(rate.high) if rate.high is not None else None,
                title=f"{p.run_id} · {p.model} · {fmt_rate_ci(rate)}",
                marker="; ".join(changes) or None,
            )
        )
    return drawn


def failure_lines(points: list[Point], drawn: list[ChartPoint]) -> list[dict[str, Any]]:
    """One line per failure type of a series (its share of the run's observations, over runs),
    drawn on the pass-rate chart's x positions; a run without that type is at 0."""
    kinds = sorted({kind for p in points for kind in p.failures})
    lines = []
    for number, kind in enumerate(kinds):
        coords, titles = [], []
        for p, at in zip(points, drawn, strict=True):
            rate = p.failures.get(kind)
            value = rate.rate if rate is not None and rate.rate is not None else 0.0
            coords.append(f"{at.x},{_y(value)}")
            titles.append(f"{p.run_id}: {rate.n}/{rate.d}" if rate is not None else f"{p.run_id}: 0")
        lines.append({"kind": kind, "points": " ".join(coords), "titles": titles, "style": number % 8})
    return lines


def series_context(line: Series, run_keys: dict[str, str]) -> dict[str, Any]:
    """One series as the page draws it: the chart and the table rows."""
    rows = []
    for p in line.points:
        key = run_keys.get(p.path)
        rows.append(
            {
                "point": p,
                "href": f"/runs/{quote(key)}" if key else None,
                "rate": fmt_rate_ci(p.pass_rate),
                "change": None if p.change is None else f"{p.change * 100:+.1f} pts",
                "failures": [f"{kind} {rate.n}/{rate.d}" for kind, rate in p.failures.items()],
                "loss": f"{p.coverage_loss.n}/{p.coverage_loss.d}",
            }
        )
    drawn = chart_points(line.points)
    return {
        "series": line,
        "points": drawn,
        "failure_lines": failure_lines(line.points, drawn),
        "rows": rows,
        "models": list(dict.fromkeys(p.model for p in line.points)),
    }


@dataclass(frozen=True)
class HistoryPage:
    """What the page shows."""

    history: History
    """The history, as ``fcbench history RUNS --format json`` gives it."""
    series: list[dict[str, Any]]
    """Per series, the chart and table (:func:`series_context`)."""
    catalogue: Catalogue | None
    """The failure-mode catalogue of the runs folder, when one was written."""
    target: str | None
    """The target name the page is limited to, if any."""


def history_page(root: Path, run_keys: dict[str, str], target: str | None = None) -> HistoryPage:
    """The history of the runs under ``root``; ``run_keys`` maps a run folder to its viewer key."""
    history, _, _ = build_history(root, target)
    path = catalogue_path(root)
    catalogue = load_catalogue(path)
    history.catalogue = str(path) if catalogue is not None else None
    if catalogue is not None and target:  # the target's models only, as its series show them
        models = {p.model for line in history.series for p in line.points}
        catalogue = catalogue.model_copy(
            update={"patterns": [p for p in catalogue.patterns if p.model in models]}
        )
    return HistoryPage(
        history=history,
        series=[series_context(line, run_keys) for line in history.series],
        catalogue=catalogue,
        target=target,
    )


__all__ = ["ChartPoint", "HistoryPage", "chart_points", "failure_lines", "history_page", "series_context"]
