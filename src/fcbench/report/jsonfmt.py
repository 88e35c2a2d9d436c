"""JSON report: the metrics themselves (see :class:`fcbench.metrics.RunMetrics`)."""

from __future__ import annotations

from fcbench.metrics import RunMetrics


def render_json(metrics: RunMetrics) -> str:
    """The metrics as indented JSON; :meth:`RunMetrics.from_json` reads it back unchanged."""
    return metrics.to_json(indent=2) + "\n"
