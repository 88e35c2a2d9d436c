"""The metrics pass at speed, behind one function, :func:`metrics_of`.

Everything that makes a pass over 10^6 records fast lives here, and nothing outside this package
imports its modules (a test checks it): the records are decoded straight from their lines
(:mod:`~fcbench.metrics.fast.lines`), a large run is split over the cores by case id
(:mod:`~fcbench.metrics.fast.partition`), several runs are read in a worker process each
(:mod:`~fcbench.metrics.fast.parallel`), and one run's pass (:mod:`~fcbench.metrics.fast.run`)
chooses between them. What the records add up to is the accumulator's
(:mod:`fcbench.metrics.aggregate`, :mod:`fcbench.metrics.partial`); the result is the same
whichever way it was read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from fcbench.metrics.fast.parallel import runs_metrics
from fcbench.metrics.fast.partition import Parts, parts_of
from fcbench.metrics.fast.run import run_metrics
from fcbench.metrics.observe import RecordObserver
from fcbench.metrics.result import RunMetrics


def metrics_of(
    run_dirs: Sequence[Path],
    *,
    modes: Iterable[str] | None = None,
    observer: RecordObserver | None = None,
    profile: str = "strict",
    parts: Parts = 1,
) -> list[RunMetrics]:
    """The metrics of each run, in order (:func:`fcbench.metrics.compute_metrics` documents the
    arguments): several runs without an ``observer`` in a worker process each when that pays,
    each run's pass in ``parts`` processes (``auto``: as many as its size is worth)."""
    if len(run_dirs) > 1 and observer is None:
        return runs_metrics(run_dirs, modes=modes, profile=profile, parts=parts)
    wanted = list(modes) if modes is not None else None
    return [
        run_metrics(d, modes=wanted, observer=observer, profile=profile, parts=parts_of(d, parts))
        for d in run_dirs
    ]


__all__ = ["metrics_of"]
