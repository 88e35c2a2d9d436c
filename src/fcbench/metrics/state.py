"""Per-case and per-target aggregation state, and how it becomes :class:`TargetMetrics`.

A case keeps, per distinct scorable observation (its :class:`~fcbench.metrics.observe.VerdictFacts`
and its calls as JSON text), how many repeats made it, in the order first seen: a case whose
repeats agree costs one entry, whatever the repeats. :meth:`CaseState.settle` derives the case's
decisions, failure reasons, outcomes and argument drift from those counts once, when the metrics
are built, and adds the observations' verdict counts to the target's. Rates that depend only on
a case's expected kind and decisions (selection, clarification, abstention, by category, by tag,
confusion, stability, pass^k) are derived from the per-case counts, once, instead of on every
record.

Two observations are the same normalised outcome (:func:`fcbench.grading.normalised_outcome_key`)
when their decisions match and their calls do: the same text is the same calls, and two texts are
compared by their calls' canonical keys only when a case (or the two modes stream parity pairs)
holds both.
"""

from __future__ import annotations

import functools
import json
import sys
from array import array
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from fcbench.grading import RIGHT_DECISIONS
from fcbench.grading.key import call_key
from fcbench.metrics import stats
from fcbench.metrics.drift import DriftState
from fcbench.metrics.models import ArgumentDrift, CaseSummary, Latency, Rate, Stability, TargetMetrics, Tokens
from fcbench.metrics.observe import SELECTION_KINDS, VerdictFacts

MAX_PROMPT_CHARS = 600
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


@functools.lru_cache(maxsize=65536)
def rate_of(n: int, d: int) -> Rate:
    """A :class:`Rate` (frozen, so one instance serves every case with the same counts)."""
    return Rate(n=n, d=d)


_CASE_FIELDS = set(CaseSummary.model_fields)
_validate_case = CaseSummary.__pydantic_validator__.validate_python


@dataclass(slots=True)
class CaseState:
    """Aggregates of one case for one target and mode."""

    category: str
    tags: tuple[str, ...]
    expected_kind: str
    prompt: str
    errors: int = 0
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

    @classmethod
    def of(cls, case: dict[str, Any]) -> CaseState:
        """Empty state for a record's ``case`` dict."""
        return cls(
            category=sys.intern(str(case.get("category", "unknown"))),
            tags=_tags(tuple(sys.intern(str(t)) for t in case.get("tags") or ())),
            expected_kind=sys.intern(str(case.get("expected_kind", "unknown"))),
            prompt=str(case.get("prompt", ""))[:MAX_PROMPT_CHARS],
        )

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

    def settle(self, group: GroupState) -> Settled:
        """The case's counts, derived from its observations; counts their verdicts in ``group``
        (:meth:`GroupState.add_verdicts`) and releases the observations."""
        observations, counts = self.observations, self.counts
        self.observations, self.counts, self.near, self.far = {}, [], None, None
        verdicts = group.verdicts
        if len(counts) == 1:  # every scorable repeat made the same observation
            ((facts, calls),) = observations
            (n,) = counts
            verdict = (facts, calls is not None)
            verdicts[verdict] = verdicts.get(verdict, 0) + n
            reasons: dict[str, int] = {}
            for reason in facts.reasons:
                if reason in reasons or len(reasons) < MAX_REASONS_PER_CASE:
                    reasons[reason] = reasons.get(reason, 0) + n
            return Settled(n, n if facts.passed else 0, {facts.decision_text: n}, reasons, n, 1, None)
        scorable = passes = 0
        decisions: dict[str, int] = {}
        reasons = {}
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
        outcomes = list(texts.values()) if len(texts) == len(decisions) else _merge_outcomes(texts)
        drift = _drift(observations, counts) if drifts else None
        return Settled(scorable, passes, decisions, reasons, max(outcomes, default=0), len(outcomes), drift)

    def summary(self, label: str, mode: str, case_id: str, settled: Settled) -> CaseSummary:
        """The case x target summary."""
        reasons = settled.reasons
        summary = _validate_case(
            {
                "target": label,
                "mode": mode,
                "case_id": case_id,
                "category": self.category,
                "tags": self.tags,
                "expected_kind": self.expected_kind,
                "prompt": self.prompt,
                "passed": rate_of(settled.passes, settled.scorable),
                "errors": self.errors,
                "decisions": _sorted(settled.decisions),
                "reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))
                if len(reasons) > 1
                else reasons,
                "stability": rate_of(settled.top, settled.scorable),
                "distinct_outcomes": settled.distinct,
                "anomalies": _sorted(self.anomalies or {}),
                "drift": settled.drift or {},
            }
        )
        # Every field was given: one shared set says so for every summary (a run holds one per
        # case x target x mode, and each set of its own would be a third of its memory).
        object.__setattr__(summary, "__pydantic_fields_set__", _CASE_FIELDS)
        return summary


class Settled(NamedTuple):
    """A case's counts over its scorable repeats (:meth:`CaseState.settle`)."""

    scorable: int
    passes: int
    decisions: dict[str, int]
    reasons: dict[str, int]
    top: int
    """Repeats that made the most common normalised outcome."""
    distinct: int
    """Distinct normalised outcomes."""
    drift: dict[str, ArgumentDrift] | None


def _sorted(counts: dict[str, int]) -> dict[str, int]:
    return dict(sorted(counts.items())) if len(counts) > 1 else counts


@functools.lru_cache(maxsize=4096)
def _tags(tags: tuple[str, ...]) -> tuple[str, ...]:
    """One tuple object per distinct tag list (cases share them)."""
    return tags


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
    observed: int = 0
    """Distinct observations (by :meth:`count`, from the cases' repeats)."""
    accepted: int = 0
    """Observations the provider accepted (by :meth:`count`)."""
    usage: dict[tuple[bool, Any, Any], int] = field(default_factory=dict)
    """(accepted, input tokens, output tokens) as recorded -> records (by :meth:`count` into ``tok_*``)."""
    provider_errors: dict[str, int] = field(default_factory=dict)
    error_examples: dict[str, str] = field(default_factory=dict)
    """Error code -> the first message seen with it."""
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
    cost: float = 0.0
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
        for (accepted, tin, tout), n in self.usage.items():
            if isinstance(tin, int):
                self.tok_in += tin * n
            if isinstance(tout, int):
                self.tok_out += tout * n
            if accepted and (tin is None or tout is None):
                self.tok_unreported += n
        self.usage = {}

    def settle(
        self, label: str, mode: str, planned: int, *, repairs: bool = False
    ) -> tuple[TargetMetrics, list[CaseSummary]]:
        """Every metric of this target and mode, and its case summaries by case id; ``repairs``: the
        profile repairs, so say how many observations needed a repair. The cases are released as
        they are summarised."""
        return _target_metrics(label, mode, planned, self, repairs)


def _target_metrics(
    label: str, mode: str, planned: int, g: GroupState, repairs: bool
) -> tuple[TargetMetrics, list[CaseSummary]]:
    scorable = passes = 0
    sel, clar, abst = [0, 0], [0, 0], [0, 0]
    by_category: dict[str, list[int]] = {}
    by_tag: dict[str, list[int]] = {}
    confusion: dict[str, dict[str, int]] = {}
    decisions: dict[str, int] = {}
    stab_n = stab_d = stab_cases = unstable = 0
    stab_sum = 0.0
    hat: list[array[float]] = []  # k - 1 -> pass^k of each case with at least k scorable repeats
    drifting = 0
    summaries: list[tuple[str, CaseSummary]] = []
    cases = g.cases
    for case_id in list(cases):
        case = cases.pop(case_id)
        settled = case.settle(g)
        summaries.append((case_id, case.summary(label, mode, case_id, settled)))
        drifting += bool(settled.drift)
        n, c, case_decisions = settled.scorable, settled.passes, settled.decisions
        scorable += n
        passes += c
        kind = case.expected_kind
        correct = 0
        for decision, count in case_decisions.items():
            if decision in RIGHT_DECISIONS:
                correct += count
        if kind in SELECTION_KINDS:
            sel[0] += correct
            sel[1] += n
        if kind == "clarification":
            clar[0] += correct
            clar[1] += n
        elif kind == "text":
            abst[0] += correct
            abst[1] += n
        if not n:
            continue
        slot = by_category.setdefault(case.category, [0, 0])
        slot[0] += c
        slot[1] += n
        for tag in case.tags:
            slot = by_tag.setdefault(tag, [0, 0])
            slot[0] += c
            slot[1] += n
        row = confusion.setdefault(kind, {})
        for decision, count in case_decisions.items():
            row[decision] = row.get(decision, 0) + count
            decisions[decision] = decisions.get(decision, 0) + count
        stab_n += settled.top
        stab_d += n
        stab_cases += 1
        unstable += settled.distinct > 1
        stab_sum += settled.top / n
        while len(hat) < n:
            hat.append(array("d"))
        for per_k, value in zip(hat, stats.pass_hat_ks(n, c), strict=False):
            per_k.append(value)
    g.add_verdicts()
    stab = Stability(
        mean=stab_sum / stab_cases if stab_cases else None,
        n=stab_n,
        d=stab_d,
        cases=stab_cases,
        unstable_cases=unstable,
    )
    lat = sorted(g.latencies)
    cost = None if g.cost_unknown else g.cost
    summaries.sort(key=lambda pair: pair[0])
    metrics = TargetMetrics(
        target=label,
        endpoint=g.endpoint,
        dialect=g.dialect,
        model=g.model,
        mode=mode,
        planned=planned,
        observed=g.observed,
        scorable=scorable,
        accepted=Rate(n=g.accepted, d=g.observed),
        provider_errors=dict(sorted(g.provider_errors.items())),
        provider_error_examples={c: m for c, m in sorted(g.error_examples.items()) if c in g.provider_errors},
        selection_accuracy=Rate(n=sel[0], d=sel[1]),
        schema_valid=Rate(n=g.schema[0], d=g.schema[1]),
        semantic_exact=Rate(n=g.semantic[0], d=g.semantic[1]),
        params_match=Rate(n=g.params[0], d=g.params[1]),
        clarification_accuracy=Rate(n=clar[0], d=clar[1]),
        abstention_accuracy=Rate(n=abst[0], d=abst[1]),
        recovery_success=Rate(n=g.recovery[0], d=g.recovery[1]),
        recovery_outcomes=dict(sorted(g.recovery_outcomes.items())),
        pass_rate=Rate(n=passes, d=scorable),
        stability=stab,
        pass_hat_k={k: sum(v) / len(v) for k, v in enumerate(hat, 1)},
        pass_hat_k_cases={k: len(v) for k, v in enumerate(hat, 1)},
        coverage=Rate(n=scorable, d=planned),
        by_category={k: Rate(n=v[0], d=v[1]) for k, v in sorted(by_category.items())},
        by_tag={k: Rate(n=v[0], d=v[1]) for k, v in sorted(by_tag.items())},
        confusion={k: dict(sorted(v.items())) for k, v in sorted(confusion.items())},
        decisions=dict(sorted(decisions.items())),
        latency_ms=Latency(p50=stats.percentile(lat, 50), p95=stats.percentile(lat, 95), count=len(lat)),
        tokens=Tokens(input=g.tok_in, output=g.tok_out, unreported=g.tok_unreported),
        cost_usd=cost,
        cost_per_pass=cost / passes if cost is not None and passes else None,
        duplicates=g.duplicates,
        anomalies=dict(sorted(g.anomalies.items())),
        with_anomalies=Rate(n=g.anomalous, d=g.accepted),
        drifting_cases=drifting,
        repairs=dict(sorted(g.repairs.items())),
        repaired=Rate(n=g.repaired, d=scorable) if repairs else None,
        unexpected_writes=Rate(n=g.unexpected_writes, d=scorable),
        unexpected_write_calls=g.unexpected_write_calls,
        side_effects=g.side_effects,
        replayed_writes=g.replayed,
        limit_hits=dict(sorted(g.limit_hits.items())),
    )
    return metrics, [summary for _, summary in summaries]
