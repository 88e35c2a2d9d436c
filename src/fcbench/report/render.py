"""One entry point for every report format: :func:`render_report` and the :data:`RENDERERS` registry."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fcbench.metrics import RunMetrics, compute_metrics
from fcbench.report.csvfmt import render_csv
from fcbench.report.jsonfmt import render_json
from fcbench.report.junit import render_junit
from fcbench.report.markdown import render_markdown

RENDERERS: dict[str, Callable[[RunMetrics], str]] = {
    "md": render_markdown,
    "json": render_json,
    "junit": render_junit,
    "csv": render_csv,
}
"""Formats rendered from the metrics alone. ``html`` also reads the observations (see :mod:`.html`)."""

FORMATS: tuple[str, ...] = (*RENDERERS, "html")


def render_report(run_dir: Path, fmt: str = "md", modes: list[str] | None = None) -> str:
    """Compute the run's metrics (restricted to ``modes`` when given) and render them as ``fmt``."""
    if fmt == "html":
        from fcbench.report.html import render_html

        return render_html(run_dir, modes=modes)
    renderer = RENDERERS.get(fmt)
    if renderer is None:
        raise ValueError(f"unknown report format {fmt!r}; choose from {', '.join(FORMATS)}")
    return renderer(compute_metrics(run_dir, modes=modes))
