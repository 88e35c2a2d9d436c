"""Aggregate a run's records into per-target metrics in one streaming pass.

Every rate is reported as ``{"n": .., "d": .., "rate": ..}``. Provider and harness errors are
coverage loss: they count in ``observed`` and ``provider_errors`` but never in the denominator of a
model metric. Memory grows with targets x cases x distinct outcomes per case (plus one float per
accepted observation for the exact latency percentiles, and one small index per scorable repeat
in the modes stream parity compares), never with the size of the records. Records are read
straight from their lines (:mod:`fcbench.store.view`), without building them as dicts, unless
an observer or a re-grading profile needs the dicts; a large run may be read by several processes,
each folding the records of some case ids, with the same result (:mod:`fcbench.metrics.fast`).

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

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from fcbench.metrics.aggregate import RunAccumulator
from fcbench.metrics.fast import metrics_of
from fcbench.metrics.models import (
    METRICS_VERSION,
    ArgumentDrift,
    CaseSummary,
    Latency,
    ParityDifference,
    Rate,
    RunInfo,
    Stability,
    TargetMetrics,
    Tokens,
)
from fcbench.metrics.observe import SELECTION_KINDS, RecordObserver, failure_reasons, record_anomalies
from fcbench.metrics.result import RunMetrics


def compute_metrics(
    run_dir: Path,
    *,
    modes: Iterable[str] | None = None,
    observer: RecordObserver | None = None,
    profile: str = "strict",
    parts: int | Literal["auto"] = 1,
) -> RunMetrics:
    """Read ``manifest.json`` and ``records.jsonl`` of ``run_dir`` and aggregate them in one pass.

    Records carry the ``strict`` verdicts made when they were observed; another scoring
    ``profile`` (e.g. ``bfcl`` or ``repairs``) re-grades each record against the run's suite on the
    way, and ``observer`` sees the re-graded records. Without either, the records are read straight
    from their lines (:mod:`fcbench.store.view`), never built as dicts, and with ``parts`` over 1
    in that many processes, each folding the records of some case ids (``auto``: as many as the
    run's size is worth; the metrics are the same).
    """
    (found,) = metrics_of([run_dir], modes=modes, observer=observer, profile=profile, parts=parts)
    return found


def compute_metrics_of(
    run_dirs: Sequence[Path], *, modes: Iterable[str] | None = None, profile: str = "strict"
) -> list[RunMetrics]:
    """:func:`compute_metrics` of each run, in order, each in a worker process of its own when the
    runs are large enough for that to pay (``fcbench compare`` reads two); the same metrics."""
    return metrics_of(run_dirs, modes=modes, profile=profile, parts="auto")


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
    "compute_metrics_of",
    "failure_reasons",
    "record_anomalies",
]
