"""One run's metrics pass: the records folded straight from their lines, in parts over the cores
when asked (:mod:`fcbench.metrics.fast.partition`), or each re-graded and observed on the way."""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from fcbench.grading import REPAIRING_PROFILES
from fcbench.grading.regrade import regrader
from fcbench.metrics.aggregate import RunAccumulator, keeps_parity
from fcbench.metrics.fast.lines import Regrade, fold_lines
from fcbench.metrics.fast.partition import fold_in_parts
from fcbench.metrics.judge import judge_agreement
from fcbench.metrics.observe import RecordObserver
from fcbench.metrics.result import RunMetrics
from fcbench.metrics.tool_order import tool_order_metrics
from fcbench.store.records import Manifest, read_manifest
from fcbench.store.view import RecordView, regrade_view, regraded, run_views
from fcbench.suite.loader import load_suite


def run_metrics(
    run_dir: Path,
    *,
    modes: Iterable[str] | None = None,
    observer: RecordObserver | None = None,
    profile: str = "strict",
    parts: int = 1,
) -> RunMetrics:
    """The metrics of ``run_dir`` (:func:`fcbench.metrics.compute_metrics`, which documents the
    arguments): with neither ``observer`` nor another ``profile`` than ``strict``, the records are
    folded straight from their lines, in ``parts`` processes when that is over 1. A run with a
    judge gets the judge's agreement too (a second, plain read of the recorded verdicts and
    ratings: :func:`fcbench.metrics.judge.judge_agreement`)."""
    manifest = read_manifest(run_dir)
    wanted = set(modes) if modes is not None else None
    found = _folded(run_dir, manifest, wanted, observer, profile, parts)
    if manifest.tool_order is not None:
        views = run_views(run_dir)
        if profile != "strict":  # the pass rates per order as the profile grades them
            views = regraded(views, load_suite(manifest.suite_ref or manifest.suite), profile)
        probe = tool_order_metrics(views, manifest.tool_order, wanted)
        found = found.model_copy(update={"tool_order": probe})
    if manifest.judge is None:
        return found
    agreement = judge_agreement(run_views(run_dir), manifest.judge, wanted)
    return found.model_copy(update={"judge": agreement})


def _folded(
    run_dir: Path,
    manifest: Manifest,
    wanted: set[str] | None,
    observer: RecordObserver | None,
    profile: str,
    parts: int,
) -> RunMetrics:
    """The metrics the records add up to (:func:`run_metrics` adds the judge's agreement)."""
    acc = RunAccumulator(repairs=profile in REPAIRING_PROFILES)
    with _collector_paused():
        if observer is None and profile == "strict":
            parity = keeps_parity(manifest, wanted)
            if parts > 1:
                found = fold_in_parts(run_dir, manifest, wanted, parts, parity=parity)
                if found is not None:
                    return found
            acc = RunAccumulator(parity=parity)
            read = fold_lines(acc, run_dir, wanted)
            if acc.parity_missed(manifest, wanted):
                acc = RunAccumulator()
                read = fold_lines(acc, run_dir, wanted)
        else:
            read = fold_lines(acc, run_dir, wanted, each=_each(manifest, profile, observer))
        return acc.finish(manifest, read, wanted)


def _each(manifest: Manifest, profile: str, observer: RecordObserver | None) -> Regrade:
    """What is done to each record before it is folded: re-graded by ``profile`` (unless
    ``strict``: the suite is loaded only then), then seen by ``observer``."""
    grader = None
    if profile != "strict":
        grader = regrader(load_suite(manifest.suite_ref or manifest.suite), profile)

    def each(view: RecordView) -> RecordView:
        if grader is not None:
            view = regrade_view(grader, view, profile)
        if observer is not None:
            observer(view)
        return view

    return each


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused for the pass: it builds a state of hundreds of thousands
    of long-lived objects without cycles (per case, per distinct observation, then per case
    summary), which every full collection would walk again, for nothing."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
