"""Per-case and per-target aggregation state, and how it becomes :class:`TargetMetrics`.

Rates that depend only on a case's expected kind and decisions (selection, clarification,
abstention, by category, by tag, confusion, stability, pass^k) are derived from the per-case
counts here, once, instead of on every record.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any

from fcbench.grading import RIGHT_DECISIONS
from fcbench.metrics import stats
from fcbench.metrics.drift import DriftState
from fcbench.metrics.models import CaseSummary, Latency, Rate, Stability, TargetMetrics, Tokens
from fcbench.metrics.observe import SELECTION_KINDS

MAX_PROMPT_CHARS = 600


@dataclass(slots=True)
class CaseState:
    """Aggregates of one case for one target and mode."""

    category: str
    tags: tuple[str, ...]
    expected_kind: str
    prompt: str
    scorable: int = 0
    passes: int = 0
    errors: int = 0
    decisions: dict[str, int] = field(default_factory=dict)
    reasons: dict[str, int] | None = None
    outcomes: dict[str, int] = field(default_factory=dict)
    """:func:`fcbench.grading.normalised_outcome_key` -> repeats that produced it."""
    seen: int = 0
    """Bit set of the repeats already folded in."""
    error_repeats: dict[int, tuple[str, bool, tuple[str, ...]]] | None = None
    """repeat -> (error code, accepted, anomaly codes counted) for repeats lost to errors (a later
    record may replace them)."""
    anomalies: dict[str, int] | None = None
    """Anomaly code -> accepted repeats carrying it."""
    drift: DriftState | None = None
    """Argument values of the scorable tool-call repeats (created on the first one)."""
    repeat_keys: dict[int, str] | None = None
    """repeat -> normalised outcome key, kept only in the modes stream parity compares."""

    @classmethod
    def of(cls, case: dict[str, Any]) -> CaseState:
        """Empty state for a record's ``case`` dict."""
        return cls(
            category=str(case.get("category", "unknown")),
            tags=tuple(str(t) for t in case.get("tags") or ()),
            expected_kind=str(case.get("expected_kind", "unknown")),
            prompt=str(case.get("prompt", ""))[:MAX_PROMPT_CHARS],
        )

    def summary(self, label: str, mode: str, case_id: str) -> CaseSummary:
        """The case x target summary."""
        top = max(self.outcomes.values()) if self.outcomes else 0
        return CaseSummary(
            target=label,
            mode=mode,
            case_id=case_id,
            category=self.category,
            tags=list(self.tags),
            expected_kind=self.expected_kind,
            prompt=self.prompt,
            passed=Rate(n=self.passes, d=self.scorable),
            errors=self.errors,
            decisions=dict(sorted(self.decisions.items())),
            reasons=dict(sorted((self.reasons or {}).items(), key=lambda kv: (-kv[1], kv[0]))),
            stability=Rate(n=top, d=self.scorable),
            distinct_outcomes=len(self.outcomes),
            anomalies=dict(sorted((self.anomalies or {}).items())),
            drift=self.drift.summary() if self.drift is not None else {},
        )


@dataclass(slots=True)
class GroupState:
    """Aggregates of one target in one mode."""

    endpoint: str
    dialect: str
    model: str
    observed: int = 0
    accepted: int = 0
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
    cases: dict[str, CaseState] = field(default_factory=dict)

    @classmethod
    def of(cls, target: dict[str, Any]) -> GroupState:
        """Empty state for a record's or manifest's ``target`` dict."""
        return cls(
            endpoint=str(target.get("endpoint", "")),
            dialect=str(target.get("dialect", "")),
            model=str(target.get("model", "")),
        )

    def metrics(self, label: str, mode: str, planned: int, *, repairs: bool = False) -> TargetMetrics:
        """Every metric of this target and mode; ``repairs``: the profile repairs, so say how many
        observations needed a repair."""
        return _target_metrics(label, mode, planned, self, repairs)


def _target_metrics(label: str, mode: str, planned: int, g: GroupState, repairs: bool) -> TargetMetrics:
    scorable = passes = 0
    sel, clar, abst = [0, 0], [0, 0], [0, 0]
    by_category: dict[str, list[int]] = {}
    by_tag: dict[str, list[int]] = {}
    confusion: dict[str, dict[str, int]] = {}
    decisions: dict[str, int] = {}
    stab = Stability()
    stab_sum = 0.0
    hat: dict[int, list[float]] = {}
    drifting = 0
    for case in g.cases.values():
        drifting += case.drift is not None and bool(case.drift.summary())
        scorable += case.scorable
        passes += case.passes
        correct = sum(case.decisions.get(d, 0) for d in RIGHT_DECISIONS)
        kind = case.expected_kind
        for bucket, applies in (
            (sel, kind in SELECTION_KINDS),
            (clar, kind == "clarification"),
            (abst, kind == "text"),
        ):
            if applies:
                bucket[0] += correct
                bucket[1] += case.scorable
        if not case.scorable:
            continue
        for groups, key in [(by_category, case.category)] + [(by_tag, t) for t in case.tags]:
            slot = groups.setdefault(key, [0, 0])
            slot[0] += case.passes
            slot[1] += case.scorable
        row = confusion.setdefault(kind, {})
        for decision, count in case.decisions.items():
            row[decision] = row.get(decision, 0) + count
            decisions[decision] = decisions.get(decision, 0) + count
        top = max(case.outcomes.values())
        stab.n += top
        stab.d += case.scorable
        stab.cases += 1
        stab.unstable_cases += len(case.outcomes) > 1
        stab_sum += top / case.scorable
        for k in range(1, case.scorable + 1):
            hat.setdefault(k, []).append(stats.pass_hat_k(case.scorable, case.passes, k))
    stab.mean = stab_sum / stab.cases if stab.cases else None
    lat = sorted(g.latencies)
    cost = None if g.cost_unknown else g.cost
    return TargetMetrics(
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
        pass_hat_k={k: sum(v) / len(v) for k, v in sorted(hat.items())},
        pass_hat_k_cases={k: len(v) for k, v in sorted(hat.items())},
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
    )
