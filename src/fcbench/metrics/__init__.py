"""Aggregate a run's records into per-target metrics in one streaming pass.

Every rate is reported as ``{"n": .., "d": .., "rate": ..}``. Provider and harness errors are
coverage loss: they count in ``observed`` and ``provider_errors`` but never in the denominator of a
model metric. Memory grows with targets x cases x distinct outcomes per case (plus one float per
accepted observation for the exact latency percentiles, and one small index per scorable repeat
in the modes stream parity compares), never with the size of the records. Records are read
straight from their lines (:mod:`fcbench.store.view`), without building them as dicts, unless
an observer or a re-grading profile needs the dicts; a large run may be read by several processes,
each folding the records of some case ids (:mod:`fcbench.metrics.partition`), with the same result.

Definitions (per target ``endpoint:model`` and mode):

* ``scorable``: a record whose outcome is not a provider error and whose verdict decision is not
  ``not_scored``. Accepted records without a usable verdict are counted as ``harness`` (or
  ``ungraded`` when there is no verdict at all) in ``provider_errors``.
* ``planned``: the manifest's ``planned`` divided by targets x modes (at least the number of
  distinct observations). ``coverage`` = scorable / planned.
* ``selection_accuracy``: correct decision among scorable records expecting a tool, tools, text or a
  clarification. ``schema_valid``: among scorable records with calls. ``semantic_exact``: among
  ``correct_call`` records. ``clarification_accuracy`` / ``abstention_accuracy``: among records
  expecting a clarification / text. ``recovery_success``: among records whose verdict carries a
  ``recovery`` block.
* ``stability`` per case: repeats with the most common normalised outcome / scorable repeats; the
  normalised outcome is the decision plus each call's name and canonical argument JSON.
* ``pass_hat_k``: per case with ``n`` scorable repeats and ``c`` passes, ``C(c,k)/C(n,k)``, averaged
  over the cases with ``n >= k``; computed as the product ``prod_{i<k} (c-i)/(n-i)``
  (:func:`fcbench.metrics.stats.pass_hat_ks`), exact while the factorials fit in 63 bits.
* ``anomalies``: accepted observations per anomaly code (record and verdict codes, each once per
  observation); ``with_anomalies``: accepted observations with any, out of accepted.
* ``drift`` per case: per ``tool.argument``, distinct canonical values over the scorable tool-call
  repeats and the most common one's share (at most 16 values tracked per argument);
  ``drifting_cases`` counts the cases with any.
* ``stream_parity`` (on the ``stream`` entry, when ``selection`` and ``stream`` are both reported):
  (case, repeat) pairs scored in both modes with the same normalised outcome key.
* ``repairs`` / ``repaired`` (only with a profile that repairs, :data:`fcbench.grading.REPAIRING_PROFILES`):
  repairs applied before scoring per kind, over the scorable observations, and the scorable
  observations that needed at least one, out of scorable.
* Every rate carries ``low``/``high``, its Wilson score 95% interval (null when ``d`` is 0).
* Duplicate observations of one (target, case, repeat, mode) key: a later record replaces an earlier
  provider or harness error; any other duplicate is ignored and counted in ``duplicates``. Tokens and
  cost count every record, because every request was billed.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from fcbench.grading import REPAIRING_PROFILES
from fcbench.grading.regrade import regrader
from fcbench.metrics.aggregate import RunAccumulator, keeps_parity
from fcbench.metrics.lines import RecordObserver, Regrade, fold_lines
from fcbench.metrics.models import (
    METRICS_VERSION,
    ArgumentDrift,
    CaseSummary,
    Latency,
    ParityDifference,
    Rate,
    RunInfo,
    RunMetrics,
    Stability,
    TargetMetrics,
    Tokens,
)
from fcbench.metrics.observe import (
    SELECTION_KINDS,
    failure_reasons,
    record_anomalies,
)
from fcbench.metrics.partition import fold_in_parts
from fcbench.store.records import Manifest, read_manifest
from fcbench.store.view import RecordView, regrade_view
from fcbench.suite.loader import load_suite


def compute_metrics(
    run_dir: Path,
    *,
    modes: Iterable[str] | None = None,
    observer: RecordObserver | None = None,
    profile: str = "strict",
    parts: int = 1,
) -> RunMetrics:
    """Read ``manifest.json`` and ``records.jsonl`` of ``run_dir`` and aggregate them in one pass.

    Records carry the ``strict`` verdicts made when they were observed; another scoring
    ``profile`` (e.g. ``bfcl`` or ``repairs``) re-grades each record against the run's suite on the
    way, and ``observer`` sees the re-graded records. Without either, the records are read straight
    from their lines (:mod:`fcbench.store.view`), never built as dicts, and with ``parts`` over 1
    in that many processes, each folding the records of some case ids
    (:func:`fcbench.metrics.partition.fold_in_parts`; the metrics are the same).
    """
    manifest = read_manifest(run_dir)
    wanted = set(modes) if modes is not None else None
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


__all__ = [
    "METRICS_VERSION",
    "SELECTION_KINDS",
    "ArgumentDrift",
    "CaseSummary",
    "Latency",
    "ParityDifference",
    "Rate",
    "RecordObserver",
    "RunAccumulator",
    "RunInfo",
    "RunMetrics",
    "Stability",
    "TargetMetrics",
    "Tokens",
    "compute_metrics",
    "failure_reasons",
    "fold_lines",
    "record_anomalies",
]
