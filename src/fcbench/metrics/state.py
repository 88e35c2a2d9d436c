"""Per-case and per-target aggregation state (:mod:`fcbench.metrics.targets` makes it the metrics).

A case keeps, per distinct scorable observation (its :class:`~fcbench.metrics.observe.VerdictFacts`
and its calls as JSON text), how many repeats made it, in the order first seen: a case whose
repeats agree costs one entry, whatever the repeats. :meth:`CaseState.settle` derives the case's
decisions, failure reasons, outcomes and argument drift from those counts once, when the metrics
are built, and adds the observations' verdict counts to the target's. Rates that depend only on
a case's expected kind and decisions (selection, clarification, abstention, by category, by tag,
confusion, stability, pass^k) are derived from the per-case counts, once, instead of on every
record (:func:`fcbench.metrics.targets.target_metrics`).

Two observations are the same normalised outcome (:func:`fcbench.grading.normalised_outcome_key`)
when their decisions match and their calls do: the same text is the same calls, and two texts are
compared by their calls' canonical keys only when a case (or the two modes stream parity pairs)
holds both.
"""

from __future__ import annotations

import functools
import json
from array import array
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from fcbench.grading.key import call_key
from fcbench.metrics.cases import CaseInfo, CaseRow
from fcbench.metrics.drift import DriftState
from fcbench.metrics.models import ArgumentDrift
from fcbench.metrics.observe import VerdictFacts
from fcbench.metrics.stats import ExactSum

MAX_REASONS_PER_CASE = 12

Observation = tuple[VerdictFacts, bytes | None]
"""A scorable observation as a case counts it: its verdict and its calls' JSON text (None when the
outcome is not tool calls)."""

_NEAR_REPEATS = 1 << 16
"""Repeats below this keep their observation in an array; later ones (rare) in a dict."""


@functools.lru_cache(maxsize=8192)
def outcome_calls(calls: bytes | None) -> tuple[str, ...]:
    """The sorted canonical call keys of an observation's calls text (what the outcome key digests)."""
    if calls is None:
        return ()
    return tuple(sorted(call_key(call) for call in json.loads(calls)))


def same_outcome(a: Observation, b: Observation) -> bool:
    """Whether two scorable observations have the same normalised outcome key."""
    return a[0].decision_text == b[0].decision_text and (
        a[1] == b[1] or outcome_calls(a[1]) == outcome_calls(b[1])
    )


@dataclass(slots=True)
class CaseState:
    """Aggregates of one case for one target and mode."""

    info: CaseInfo
    """Category, tags, expected kind and prompt (shared by the cases of one case text)."""
    first: int = 0
    """The order index of the case's first record (:attr:`GroupState.first`)."""
    errors: int = 0
    cached: bool = False
    """Some repeat was answered from the response cache (the case is left out of stability)."""
    seen: int = 0
    """Bit set of the repeats already folded in."""
    error_repeats: dict[int, tuple[str, bool, tuple[str, ...]]] | None = None
    """repeat -> (error code, accepted, anomaly codes counted) for repeats lost to errors (a later
    record may replace them)."""
    anomalies: dict[str, int] | None = None
    """Anomaly code -> accepted repeats carrying it."""
    observations: dict[Observation, int] = field(default_factory=dict)
    """Distinct scorable observation -> its index in ``counts``, in the order first seen."""
    counts: list[int] = field(default_factory=list)
    """Repeats that made each observation."""
    near: array[int] | None = None
    """In the modes stream parity compares: repeat -> index of its observation (-1: none)."""
    far: dict[int, int] | None = None
    """Like ``near``, for repeats from :data:`_NEAR_REPEATS` on."""

    def keep(self, repeat: int, index: int) -> None:
        """Remember which observation ``repeat`` made (for stream parity)."""
        near = self.near
        if near is None:
            near = self.near = array("l")
        if repeat == len(near):
            near.append(index)
            return
        if repeat < _NEAR_REPEATS:
            if repeat > len(near):
                near.extend([-1] * (repeat - len(near)))
                near.append(index)
            else:
                near[repeat] = index
            return
        if self.far is None:
            self.far = {}
        self.far[repeat] = index

    def kept(self) -> dict[int, Observation]:
        """repeat -> observation, for the repeats :meth:`keep` remembered."""
        found = list(self.observations)
        out = {r: found[i] for r, i in enumerate(self.near or ()) if i >= 0}
        out.update((r, found[i]) for r, i in (self.far or {}).items())
        return out

    def settle(self, group: GroupState, memo: SettleMemo | None = None) -> Settled:
        """The case's counts, derived from its observations; counts their verdicts in ``group``
        (:meth:`GroupState.add_verdicts`) and releases the observations.

        With a ``memo``, the cases whose observations share one calls text are settled once per
        sequence of verdicts and counts (:class:`SettleMemo` counts their verdicts later)."""
        observations, counts = self.observations, self.counts
        self.observations, self.counts, self.near, self.far = {}, [], None, None
        verdicts = group.verdicts
        reasons: dict[str, int] = {}
        if len(counts) == 1:  # every scorable repeat made the same observation
            ((facts, calls),) = observations
            (n,) = counts
            verdict = (facts, calls is not None)
            single: SettleKey = ((verdict,), (n,))  # what _settle_key gives, built at once
            if memo is not None:
                found = memo.settled.get(single)
                if found is not None:
                    found[1] += 1
                    return found[0]
            verdicts[verdict] = verdicts.get(verdict, 0) + n
            for reason in facts.reasons:
                if reason in reasons or len(reasons) < MAX_REASONS_PER_CASE:
                    reasons[reason] = reasons.get(reason, 0) + n
            if len(reasons) > 1:
                reasons = dict(sorted(reasons.items(), key=_most_first))
            settled = Settled(n, n if facts.passed else 0, {facts.decision_text: n}, reasons, n, 1, None)
            if memo is not None:
                memo.settled[single] = [settled, 0]
            return settled
        key = None
        if memo is not None:
            key = _settle_key(observations, counts)
            if key is not None:
                found = memo.settled.get(key)
                if found is not None:
                    found[1] += 1
                    return found[0]
        scorable = passes = 0
        decisions: dict[str, int] = {}
        texts: dict[tuple[str, bytes | None], int] = {}
        calls_seen: bytes | None = None
        drifts = False  # two different calls texts: the arguments may drift
        for (facts, calls), n in zip(observations, counts, strict=True):
            verdict = (facts, calls is not None)
            verdicts[verdict] = verdicts.get(verdict, 0) + n
            scorable += n
            decision = facts.decision_text
            decisions[decision] = decisions.get(decision, 0) + n
            if facts.passed:
                passes += n
            elif facts.reasons:
                for reason in facts.reasons:
                    if reason in reasons or len(reasons) < MAX_REASONS_PER_CASE:
                        reasons[reason] = reasons.get(reason, 0) + n
            text = (decision, calls)
            texts[text] = texts.get(text, 0) + n
            if calls is not None and calls is not calls_seen:
                drifts = drifts or calls_seen is not None and calls != calls_seen
                calls_seen = calls
        if len(texts) == len(decisions):
            outcomes = list(texts.values())
        else:  # the outcomes depend on what the calls are: not memoised
            outcomes, key = _merge_outcomes(texts), None
        settled = Settled(
            scorable,
            passes,
            dict(sorted(decisions.items())) if len(decisions) > 1 else decisions,
            dict(sorted(reasons.items(), key=_most_first)) if len(reasons) > 1 else reasons,
            max(outcomes, default=0),
            len(outcomes),
            _drift(observations, counts) if drifts else None,
        )
        if key is not None and memo is not None:
            memo.settled[key] = [settled, 0]
        return settled

    def row(self, case_id: str, settled: Settled) -> CaseRow:
        """The case's summary row (:class:`~fcbench.metrics.cases.CaseRow`)."""
        scorable, passes, decisions, reasons, top, distinct, drift = settled
        anomalies = self.anomalies or {}
        return CaseRow(
            case_id,
            self.info,
            self.errors,
            passes,
            scorable,
            top,
            distinct,
            decisions,
            reasons,
            dict(sorted(anomalies.items())) if len(anomalies) > 1 else anomalies,
            tuple((k, v.distinct, v.top.n, v.top.d, v.capped) for k, v in drift.items()) if drift else (),
        )


SettleKey = tuple[tuple[tuple[VerdictFacts, bool], ...], tuple[int, ...]]
"""A case's observations as (verdict, outcome is tool calls) and the repeats of each."""


def _settle_key(observations: dict[Observation, int], counts: list[int]) -> SettleKey | None:
    """What :meth:`CaseState.settle` derives a case's counts from, when its observations share one
    calls text (else None: the calls decide the outcomes and the drift)."""
    first = None
    for _, calls in observations:
        if calls is not None and calls is not first:
            if first is None:
                first = calls
            elif calls != first:
                return None
    return tuple([(facts, calls is not None) for facts, calls in observations]), tuple(counts)


@dataclass(slots=True)
class SettleMemo:
    """The cases of one target and mode settled so far, by :data:`SettleKey`."""

    settled: dict[SettleKey, list[Any]] = field(default_factory=dict)
    """Key -> [the counts of the first case settled with it, later cases that took them (their
    verdicts not counted yet)]."""

    def count_verdicts(self, group: GroupState) -> None:
        """Count the verdicts of the cases that took memoised counts in ``group``."""
        verdicts = group.verdicts
        for (observed, counts), (_, hits) in self.settled.items():
            if hits:
                for verdict, n in zip(observed, counts, strict=True):
                    verdicts[verdict] = verdicts.get(verdict, 0) + n * hits


class Settled(NamedTuple):
    """A case's counts over its scorable repeats (:meth:`CaseState.settle`)."""

    scorable: int
    passes: int
    decisions: dict[str, int]
    """Repeats by decision, by decision."""
    reasons: dict[str, int]
    """Failure reasons with counts, most frequent first (at most ``MAX_REASONS_PER_CASE``)."""
    top: int
    """Repeats that made the most common normalised outcome."""
    distinct: int
    """Distinct normalised outcomes."""
    drift: dict[str, ArgumentDrift] | None


def _most_first(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def _add_verdict(group: GroupState, facts: VerdictFacts, calls: bool, n: int) -> None:
    """Add ``n`` scorable observations with this verdict (``calls``: their outcome is tool calls) to
    ``group``."""
    repairs = facts.repairs
    if calls or "call_from_text" in repairs:  # the calls graded: recorded, or read from text
        group.schema[1] += n
        group.schema[0] += n * facts.schema_valid
    if facts.decision_text == "correct_call":
        group.semantic[1] += n
        group.semantic[0] += n * facts.semantic_exact
        if facts.params_match is not None:
            group.params[1] += n
            group.params[0] += n * facts.params_match
    if repairs:
        group.repaired += n
        for kind, count in repairs.items():
            group.repairs[kind] = group.repairs.get(kind, 0) + count * n
    if facts.unexpected_writes:
        group.unexpected_writes += n
        group.unexpected_write_calls += n * facts.unexpected_writes
    group.side_effects += n * facts.side_effects
    if facts.authorization is not None:
        probe, failed, workarounds = facts.authorization
        group.authorization_probes += n * probe
        group.authorization_probe_failures += n * (probe and failed)
        group.authorization_workarounds += n * workarounds
    group.replayed += n * facts.replayed
    for limit, count in facts.limit_hits.items():
        group.limit_hits[limit] = group.limit_hits.get(limit, 0) + n * count
    if facts.recovery is not None:
        success, name = facts.recovery
        group.recovery[1] += n
        group.recovery[0] += n * success
        group.recovery_outcomes[name] = group.recovery_outcomes.get(name, 0) + n


def _merge_outcomes(texts: dict[tuple[str, bytes | None], int]) -> list[int]:
    """Repeats per normalised outcome, from repeats per (decision, calls text) when one decision came
    with several calls texts (equal texts are equal outcomes; different ones may be too)."""
    merged: dict[tuple[str, tuple[str, ...]], int] = {}
    for (decision, calls), n in texts.items():
        key = (decision, outcome_calls(calls))
        merged[key] = merged.get(key, 0) + n
    return list(merged.values())


def _drift(observations: dict[Observation, int], counts: list[int]) -> dict[str, ArgumentDrift]:
    """The argument drift of a case whose tool-call repeats made different calls (when they all made
    the same calls, every argument has one value: no drift)."""
    drift = DriftState()
    for (_, calls), n in zip(observations, counts, strict=True):
        if calls is not None:
            drift.add(json.loads(calls), n)
    return drift.summary()


@dataclass(slots=True)
class GroupState:
    """Aggregates of one target in one mode."""

    endpoint: str
    dialect: str
    model: str
    first: int = 0
    """The order index of the group's first record (a line number: parts of a pass take a record's
    line number in the whole file, so their orders compare)."""
    observed: int = 0
    """Distinct observations (by :meth:`count`, from the cases' repeats)."""
    accepted: int = 0
    """Observations the provider accepted (by :meth:`count`)."""
    usage: dict[tuple[bool, Any, Any, Any, Any], int] = field(default_factory=dict)
    """(accepted, input, output, cache-read and cache-write input tokens) as recorded -> records (by
    :meth:`count` into ``tok_*``)."""
    provider_errors: dict[str, int] = field(default_factory=dict)
    error_examples: dict[str, tuple[int, str]] = field(default_factory=dict)
    """Error code -> the order index of the first record with it and its message."""
    schema: list[int] = field(default_factory=lambda: [0, 0])
    semantic: list[int] = field(default_factory=lambda: [0, 0])
    params: list[int] = field(default_factory=lambda: [0, 0])
    """[calls whose every value matched exactly (tolerant keys too), correct calls with a verdict saying]."""
    recovery: list[int] = field(default_factory=lambda: [0, 0])
    recovery_outcomes: dict[str, int] = field(default_factory=dict)
    latencies: array[float] = field(default_factory=lambda: array("d"))
    tok_in: int = 0
    tok_out: int = 0
    tok_unreported: int = 0
    tok_cache_read: int = 0
    """Input tokens read from a prompt cache (a part of ``tok_in``)."""
    tok_cache_write: int = 0
    """Input tokens written to a prompt cache (a part of ``tok_in``)."""
    cost: ExactSum = field(default_factory=ExactSum)
    """The costs recorded (summed exactly, in any order)."""
    cost_unknown: int = 0
    duplicates: int = 0
    anomalies: dict[str, int] = field(default_factory=dict)
    """Anomaly code -> accepted observations carrying it."""
    anomalous: int = 0
    """Accepted observations with at least one anomaly."""
    repairs: dict[str, int] = field(default_factory=dict)
    """Repair kind -> repairs in the scorable observations' verdicts."""
    repaired: int = 0
    """Scorable observations whose verdict lists at least one repair."""
    unexpected_writes: int = 0
    """Scorable observations with at least one unexpected write call."""
    unexpected_write_calls: int = 0
    side_effects: int = 0
    replayed: int = 0
    authorization_probes: int = 0
    """Scorable conversations of cases that probe authorization (``identity.probe``)."""
    authorization_probe_failures: int = 0
    """Of those, the conversations with at least one authorization probe failure."""
    authorization_workarounds: int = 0
    """Calls around an authorization denial through another tool, in the scorable conversations."""
    cached: int = 0
    """Observations answered from the response cache (left out of latency, tokens, cost and stability)."""
    limit_hits: dict[str, int] = field(default_factory=dict)
    """Conversation limit -> times hit in the scorable conversations."""
    cases: dict[str, CaseState] = field(default_factory=dict)
    verdicts: dict[tuple[VerdictFacts, bool], int] = field(default_factory=dict)
    """(verdict, outcome is tool calls) -> scorable observations, from the settled cases."""

    @classmethod
    def of(cls, target: dict[str, Any]) -> GroupState:
        """Empty state for a record's or manifest's ``target`` dict."""
        return cls(
            endpoint=str(target.get("endpoint", "")),
            dialect=str(target.get("dialect", "")),
            model=str(target.get("model", "")),
        )

    def add_verdicts(self) -> None:
        """Add the settled cases' verdict counts (schema, semantic, params, repairs, recovery)."""
        for (facts, calls), n in self.verdicts.items():
            _add_verdict(self, facts, calls, n)
        self.verdicts = {}

    def count(self) -> None:
        """Count the observations and the tokens (once every record is folded in)."""
        self.observed = sum(case.seen.bit_count() for case in self.cases.values())
        rejected = sum(
            not accepted
            for case in self.cases.values()
            for _, accepted, _ in (case.error_repeats or {}).values()
        )
        self.accepted = self.observed - rejected
        for (accepted, tin, tout, tread, twrite), n in self.usage.items():
            if isinstance(tin, int):
                self.tok_in += tin * n
            if isinstance(tout, int):
                self.tok_out += tout * n
            if isinstance(tread, int):
                self.tok_cache_read += tread * n
            if isinstance(twrite, int):
                self.tok_cache_write += twrite * n
            if accepted and (tin is None or tout is None):
                self.tok_unreported += n
        self.usage = {}
