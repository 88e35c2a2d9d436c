"""The regression gate: pair the targets of two runs, then compare them metric by metric and case by case.

**Pairing** (:mod:`fcbench.report.pairing`; each pair records the rule that made it, in
:attr:`TargetComparison.pairing`):

1. ``explicit``: ``pairs`` given as ``(BASE, NEW)``, each side a target label (``endpoint:model``) or
   a target name (the config's ``name``, e.g. ``prod``);
2. ``name``: a BASE target and a NEW target with the same name (a target with no name is named by
   its label, so unnamed targets pair by label), so a model upgrade under one name is compared;
3. ``single``: when each run has exactly one target and no other rule paired them.

A target is paired mode by mode: its modes must match too.

**The gate fails closed.** :attr:`Comparison.failures` gets one line naming the target for each of:
a BASE target (and mode) with no partner in NEW; a comparison that paired nothing ("compared 0
targets"); a NEW or BASE target with nothing scorable; coverage (scorable / planned) dropping more
than ``max_coverage_drop`` points; a pass-rate drop of more than ``max_drop`` points; a drop of any
model metric (:data:`GATED_METRICS`) with a two-sided p-value below ``alpha``
(:func:`fcbench.metrics.stats.proportion_test`); and, only when asked, a p95 latency or cost per
passing observation increase of more than ``max_latency_increase`` / ``max_cost_increase`` percent
(a requested gate that cannot be evaluated, because a value is unknown, fails too). Latency p50/p95
and cost per pass are compared and shown for every pair either way.

**Flips**: a case that passed every scorable repeat in BASE and not in NEW (``pass_to_fail``), or the
reverse (``fail_to_pass``); ``full`` when the other side passed no repeat (3/3 -> 0/3), else
``partial`` (3/3 -> 2/3). A flip is a **real change** (:attr:`Flip.real`) only when the case's pass
rate moved beyond its interval: each side's rate lies outside the other side's Wilson 95% interval
(:func:`moved_beyond_interval`). 3/3 -> 0/3 and 1/1 -> 0/1 are real; 3/3 -> 34/35 or 3/3 -> 2/3 are
noise (either side's rate is still inside the other's interval). Reports list the real flips and
count the noise.

**Per-metric changes**: each metric's delta in points comes with the Newcombe 95% interval of the
difference (:attr:`MetricDelta.delta_low`, :attr:`MetricDelta.delta_high`, from the two Wilson
intervals) and is marked :attr:`MetricDelta.significant` when the two-sided p-value is below
``alpha``, in either direction (a significant drop of a gated metric fails the gate).

The tests treat every observation as independent; repeats of one case are correlated, so p-values
are optimistic when repeats dominate the sample.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from fcbench.errors import RunStateError
from fcbench.metrics import Rate, RunMetrics, Stability, TargetMetrics
from fcbench.metrics.cases import CaseRow, CaseSummaries, rate_of
from fcbench.metrics.stats import proportion_test
from fcbench.report.common import fmt_rate
from fcbench.report.gate import UNSAFE_LISTED, UnsafeWrite
from fcbench.report.pairing import PairingRule, named, pair_targets, pair_title
from fcbench.store.records import damaged_note

GATED_METRICS: tuple[str, ...] = (
    "pass_rate",
    "selection_accuracy",
    "schema_valid",
    "semantic_exact",
    "clarification_accuracy",
    "abstention_accuracy",
    "recovery_success",
)
"""Model metrics whose significant drop fails the gate."""
WATCHED_METRICS: tuple[str, ...] = ("accepted", "coverage", "stability")
"""Metrics reported but not gated by significance: acceptance (warned about), coverage (gated by
``max_coverage_drop`` points instead) and stability over repeats (warned about; the one "same
outcome" key, :func:`fcbench.grading.normalised_outcome_key`)."""

FlipKind = Literal["full", "partial"]


class MetricDelta(BaseModel):
    """One metric of one target in both runs."""

    metric: str
    base: Rate
    new: Rate
    delta_points: float | None
    """New rate minus base rate, in percentage points; null when either side has d = 0."""
    delta_low: float | None = None
    """Lower end of the Newcombe 95% interval of the delta, in points; null with the delta."""
    delta_high: float | None = None
    """Upper end of that interval, in points."""
    p_value: float | None
    significant: bool = False
    """The two-sided p-value is below ``alpha`` (a rise or a drop)."""
    significant_drop: bool


class ValueDelta(BaseModel):
    """A latency or cost value of one target in both runs (lower is better)."""

    metric: str
    """``latency_p50_ms``, ``latency_p95_ms`` or ``cost_per_pass_usd``."""
    base: float | None
    new: float | None
    change_pct: float | None
    """Relative change in percent; null when either value is unknown or the base is 0 and the new is not."""
    limit_pct: float | None
    """The largest allowed increase in percent when this value gates; null when it does not."""
    exceeded: bool
    """The value gates and failed (an increase over the limit, or a value that cannot be compared)."""


class TargetComparison(BaseModel):
    """Every delta of one BASE target and mode against its NEW partner, and whether it regressed."""

    name: str
    """The BASE target's name."""
    new_name: str
    """The NEW target's name (the same as ``name`` when paired by name)."""
    base_target: str
    """The BASE target's label, ``endpoint:model``."""
    target: str
    """The NEW target's label, ``endpoint:model``."""
    mode: str
    pairing: PairingRule
    """The rule that paired the two: ``explicit`` (``--pair``), ``name`` or ``single``."""
    title: str
    """How reports name this pair, e.g. ``prod (openai:gpt-4o-2024-08-06 -> openai:gpt-4o-2024-11-20)``."""
    deltas: list[MetricDelta]
    operations: list[ValueDelta] = Field(default_factory=list)
    """Latency p50 and p95 and cost per passing observation."""
    base_provider_errors: dict[str, int] = Field(default_factory=dict)
    new_provider_errors: dict[str, int] = Field(default_factory=dict)
    """Unscorable observations by error code on each side."""
    regressed: bool
    reasons: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class Flip(BaseModel):
    """A case of one pair that passed every scorable repeat on one side and not on the other."""

    title: str
    """The pair's title (see :attr:`TargetComparison.title`)."""
    base_target: str
    target: str
    """The NEW target's label."""
    mode: str
    case_id: str
    base: Rate
    new: Rate
    kind: FlipKind
    """``full`` when the not-all-pass side passed no repeat (3/3 <-> 0/3), else ``partial``."""
    real: bool = True
    """The pass rate moved beyond its interval (:func:`moved_beyond_interval`); False: noise."""
    changed_tools: list[str] = Field(default_factory=list)
    """Tools offered to the case whose definition differs between the runs (see ``report/pin_diff.py``)."""


class Comparison(BaseModel):
    """The outcome of comparing a new run against a base run."""

    base_run: str
    new_run: str
    base_dataset: str
    new_dataset: str
    max_drop: float
    alpha: float
    max_coverage_drop: float = 10.0
    max_latency_increase: float | None = None
    max_cost_increase: float | None = None
    targets: list[TargetComparison]
    only_in_base: list[str]
    """BASE targets (``title [mode]``) with no partner in NEW: each one fails the gate."""
    only_in_new: list[str]
    """NEW targets (``title [mode]``) with no partner in BASE: a warning."""
    pass_to_fail: list[Flip]
    fail_to_pass: list[Flip]
    warnings: list[str]
    failures: list[str] = Field(default_factory=list)
    """One line per failed check, each naming its target; empty when the gate passed."""
    regression: bool
    """Whether the gate failed (``failures`` is not empty)."""
    verdict: str


def compare_runs(
    base: RunMetrics,
    new: RunMetrics,
    *,
    max_drop: float = 5.0,
    alpha: float = 0.05,
    allow_dataset_change: bool = False,
    pairs: Sequence[tuple[str, str]] = (),
    only_given_pairs: bool = False,
    max_coverage_drop: float = 10.0,
    max_latency_increase: float | None = None,
    max_cost_increase: float | None = None,
    unsafe: tuple[Sequence[UnsafeWrite], Sequence[UnsafeWrite]] = ((), ()),
) -> Comparison:
    """Compare ``new`` against ``base`` (``only_given_pairs``: pair only as ``pairs`` says);
    ``unsafe``: the unsafe write calls of BASE and of NEW
    (:func:`~fcbench.report.gate.run_unsafe_writes`), a NEW one that BASE did not make failing.

    Raises :class:`RunStateError` on a dataset mismatch and :class:`ConfigError` when an explicit
    pair names no target (or an ambiguous one) or pairs a target twice.
    """
    warnings = _dataset_warnings(base, new, allow_dataset_change)
    warnings += [
        f"{side}: {damaged_note(run.damaged_lines)}"
        for side, run in (("BASE", base), ("NEW", new))
        if run.damaged_lines
    ]
    gates = _Gates(max_drop, alpha, max_coverage_drop, max_latency_increase, max_cost_increase)
    paired = _pair_up(base, new, pairs, gates, only_given_pairs)
    targets = [_with_new_unsafe_writes(t, *unsafe) for t in paired.targets]
    unpaired = paired.unpaired
    if paired.only_in_new:
        warnings.append(
            f"NEW targets with no partner in BASE (not compared): {', '.join(paired.only_in_new)}"
        )
    pass_to_fail, fail_to_pass = _flips(base, new, targets)
    failures = [f"{t.title} [{t.mode}]: {r}" for t in targets for r in t.reasons] + unpaired
    regression = bool(failures)
    return Comparison(
        base_run=base.run.run_id,
        new_run=new.run.run_id,
        base_dataset=base.run.dataset_version,
        new_dataset=new.run.dataset_version,
        max_drop=max_drop,
        alpha=alpha,
        max_coverage_drop=max_coverage_drop,
        max_latency_increase=max_latency_increase,
        max_cost_increase=max_cost_increase,
        targets=targets,
        only_in_base=paired.only_in_base,
        only_in_new=paired.only_in_new,
        pass_to_fail=pass_to_fail,
        fail_to_pass=fail_to_pass,
        warnings=warnings + [w for t in targets for w in t.warnings],
        failures=failures,
        regression=regression,
        verdict=_verdict(targets, unpaired)
        if regression
        else _no_regression(targets, max_drop, pass_to_fail),
    )


def _dataset_warnings(base: RunMetrics, new: RunMetrics, allow_dataset_change: bool) -> list[str]:
    """The warnings about the two runs' datasets; :class:`RunStateError` when their versions differ
    and that is not allowed."""
    if base.run.dataset_version != new.run.dataset_version:
        versions = f"base {base.run.dataset_version}, new {new.run.dataset_version}"
        if not allow_dataset_change:
            raise RunStateError(
                f"dataset versions differ ({versions}); pass --allow-dataset-change to compare anyway"
            )
        return [f"dataset versions differ ({versions}); results may not be comparable"]
    if base.run.dataset_hash != new.run.dataset_hash:
        return ["dataset hash differs although the version is the same: cases were edited in place"]
    return []


@dataclass
class _Paired:
    """The targets of two runs, paired up and compared."""

    targets: list[TargetComparison] = field(default_factory=list)
    """One comparison per BASE target x mode that has a partner in NEW."""
    unpaired: list[str] = field(default_factory=list)
    """Why each BASE target x mode without a partner has none (each a failure)."""
    only_in_base: list[str] = field(default_factory=list)
    """The titles of those BASE target x modes."""
    only_in_new: list[str] = field(default_factory=list)
    """The titles of the NEW target x modes no BASE one was paired with."""


def _pair_up(
    base: RunMetrics, new: RunMetrics, pairs: Sequence[tuple[str, str]], gates: _Gates, only_given: bool
) -> _Paired:
    """Each BASE target x mode compared with its partner in NEW (:func:`pair_targets`)."""
    label_pairs, notes = pair_targets(base, new, pairs, only_given=only_given)
    out = _Paired()
    used_new: set[tuple[str, str]] = set()
    partner = {b: (n, rule) for b, n, rule in label_pairs}
    for b in base.targets:
        match = partner.get(b.target)
        n = new.find(match[0], b.mode) if match else None
        if match is None or n is None:
            title = f"{named(b.name, b.target)} [{b.mode}]"
            out.only_in_base.append(title)
            why = notes.get(b.target) or (
                f"its partner {match[0]} has no {b.mode} mode in NEW"
                if match
                else f"no NEW target is named {b.name or b.target!r}; pair it with --pair BASE=NEW"
            )
            out.unpaired.append(f"{title}: BASE target has no partner in NEW ({why})")
            continue
        used_new.add((n.target, n.mode))
        out.targets.append(_compare_target(b, n, match[1], gates))
    if not out.targets:
        out.unpaired.append(
            f"compared 0 targets (BASE has {len(base.targets)} target x mode, NEW {len(new.targets)})"
        )
    out.only_in_new = [
        f"{named(t.name, t.target)} [{t.mode}]" for t in new.targets if (t.target, t.mode) not in used_new
    ]
    return out


def _with_new_unsafe_writes(
    t: TargetComparison, base: Sequence[UnsafeWrite], new: Sequence[UnsafeWrite]
) -> TargetComparison:
    """``t``, regressed when NEW made an unsafe write call (tool and case) that BASE did not."""
    before = {(w.case_id, w.call) for w in base if w.target == t.base_target and w.mode == t.mode}
    fresh = [
        w for w in new if w.target == t.target and w.mode == t.mode and (w.case_id, w.call) not in before
    ]
    if not fresh:
        return t
    named_calls = ", ".join(str(w) for w in fresh[:UNSAFE_LISTED])
    more = f", {len(fresh) - UNSAFE_LISTED} more" if len(fresh) > UNSAFE_LISTED else ""
    reason = f"{len(fresh)} unsafe write call(s) BASE did not make: {named_calls}{more}"
    return t.model_copy(update={"reasons": [*t.reasons, reason], "regressed": True})


def _verdict(targets: Sequence[TargetComparison], unpaired: Sequence[str]) -> str:
    """The one-line verdict of a comparison that found a regression."""
    grouped = [f"{t.title} [{t.mode}]: {', '.join(t.reasons)}" for t in targets if t.reasons]
    return "REGRESSION: " + "; ".join(grouped + list(unpaired))


def _no_regression(targets: Sequence[TargetComparison], max_drop: float, pass_to_fail: Sequence[Flip]) -> str:
    """The one-line verdict of a comparison that found none: the largest pass-rate drop, and the
    cases that now fail beyond their interval, if any."""
    drops = [-d.delta_points for t in targets for d in t.deltas if d.metric == "pass_rate" and d.delta_points]
    worst = max(drops, default=0.0)
    real = sum(1 for f in pass_to_fail if f.real)
    now_failing = f"; {real} case(s) now fail beyond their interval" if real else ""
    return (
        f"no regression: {len(targets)} target(s) compared, largest pass-rate drop "
        f"{max(worst, 0.0):.1f} points (limit {max_drop:g}){now_failing}"
    )


@dataclass(frozen=True)
class _Gates:
    """The thresholds of one comparison."""

    max_drop: float
    alpha: float
    coverage: float
    latency: float | None
    cost: float | None


def moved_beyond_interval(base: Rate, new: Rate) -> bool:
    """Whether a case's pass rate moved beyond its interval: the new rate outside the base's Wilson
    95% interval and the base rate outside the new one's (False when either side measured nothing)."""
    if base.rate is None or new.rate is None or None in (base.low, base.high, new.low, new.high):
        return False
    outside_base = not (base.low or 0.0) <= new.rate <= (base.high or 0.0)
    outside_new = not (new.low or 0.0) <= base.rate <= (new.high or 0.0)
    return outside_base and outside_new


def delta_interval(b: Rate, n: Rate) -> tuple[float, float] | None:
    """The Newcombe (hybrid score) 95% interval of ``n.rate - b.rate``, in points, from the two
    Wilson intervals; None when either side measured nothing."""
    if b.rate is None or n.rate is None or b.low is None or b.high is None or n.low is None or n.high is None:
        return None
    delta = n.rate - b.rate
    low = delta - ((n.rate - n.low) ** 2 + (b.high - b.rate) ** 2) ** 0.5
    high = delta + ((n.high - n.rate) ** 2 + (b.rate - b.low) ** 2) ** 0.5
    return low * 100.0, high * 100.0


def _delta(metric: str, b: Rate, n: Rate, alpha: float) -> MetricDelta:
    if b.rate is None or n.rate is None:
        return MetricDelta(
            metric=metric, base=b, new=n, delta_points=None, p_value=None, significant_drop=False
        )
    p = proportion_test(b.n, b.d, n.n, n.d)
    delta = (n.rate - b.rate) * 100.0
    significant = p is not None and p < alpha
    interval = delta_interval(b, n)
    return MetricDelta(
        metric=metric,
        base=b,
        new=n,
        delta_points=delta,
        delta_low=interval[0] if interval else None,
        delta_high=interval[1] if interval else None,
        p_value=p,
        significant=significant,
        significant_drop=significant and delta < 0,
    )


def _rate(metrics: TargetMetrics, name: str) -> Rate:
    value = getattr(metrics, name)
    return value.as_rate if isinstance(value, Stability) else value


def _value_delta(metric: str, b: float | None, n: float | None, limit: float | None) -> ValueDelta:
    change: float | None = None
    if b is not None and n is not None:
        if b == n:
            change = 0.0
        elif b > 0:
            change = (n - b) / b * 100.0
    exceeded = limit is not None and (change is None or change > limit)
    return ValueDelta(metric=metric, base=b, new=n, change_pct=change, limit_pct=limit, exceeded=exceeded)


def fmt_value(metric: str, value: float | None) -> str:
    """A latency in ms or a cost in USD; ``–`` when unknown."""
    if value is None:
        return "–"
    return f"${value:.6f}" if metric.endswith("usd") else f"{value:,.0f} ms"


def _value_reason(v: ValueDelta) -> str:
    title = {"latency_p95_ms": "p95 latency", "cost_per_pass_usd": "cost per passing observation"}[v.metric]
    values = f"{fmt_value(v.metric, v.base)} -> {fmt_value(v.metric, v.new)}"
    if v.change_pct is not None:
        return f"{title} {values} ({v.change_pct:+.1f}%, limit +{v.limit_pct:g}%)"
    if v.base is None or v.new is None:
        return f"{title} cannot be compared ({values}), and its gate (+{v.limit_pct:g}%) was asked for"
    return f"{title} {values} (an increase from 0, limit +{v.limit_pct:g}%)"


def _errors_text(t: TargetMetrics) -> str:
    codes = ", ".join(f"{code} x{count}" for code, count in sorted(t.provider_errors.items()))
    return codes or "no provider errors recorded"


def _compare_target(b: TargetMetrics, n: TargetMetrics, rule: PairingRule, gates: _Gates) -> TargetComparison:
    title = pair_title(b, n)
    deltas = [_delta(m, _rate(b, m), _rate(n, m), gates.alpha) for m in GATED_METRICS + WATCHED_METRICS]
    operations = [
        _value_delta("latency_p50_ms", b.latency_ms.p50, n.latency_ms.p50, None),
        _value_delta("latency_p95_ms", b.latency_ms.p95, n.latency_ms.p95, gates.latency),
        _value_delta("cost_per_pass_usd", b.cost_per_pass, n.cost_per_pass, gates.cost),
    ]
    reasons: list[str] = []
    warnings: list[str] = []
    for side, t in (("NEW", n), ("BASE", b)):
        if t.scorable == 0:
            reasons.append(
                f"{side} has nothing scorable (0 of {t.planned} planned observations; {_errors_text(t)})"
            )
    for d in deltas:
        label = d.metric.replace("_", " ")
        if d.metric == "pass_rate" and d.delta_points is not None and -d.delta_points > gates.max_drop:
            reasons.append(
                f"pass rate {fmt_rate(d.base)} -> {fmt_rate(d.new)} "
                f"({d.delta_points:+.1f} points, limit -{gates.max_drop:g})"
            )
        if d.metric in GATED_METRICS and d.significant_drop:
            reasons.append(f"{label} dropped significantly ({d.delta_points:+.1f} points, p={d.p_value:.3g})")
        if d.metric == "coverage" and d.delta_points is not None and -d.delta_points > gates.coverage:
            reasons.append(
                f"coverage {fmt_rate(d.base)} -> {fmt_rate(d.new)} "
                f"({d.delta_points:+.1f} points, limit -{gates.coverage:g}; NEW: {_errors_text(n)})"
            )
        elif (
            d.metric in ("accepted", "stability")
            and d.delta_points is not None
            and -d.delta_points > gates.max_drop
        ):
            warnings.append(f"{title} [{n.mode}]: {label} {fmt_rate(d.base)} -> {fmt_rate(d.new)}")
    reasons += [_value_reason(v) for v in operations if v.exceeded]
    return TargetComparison(
        name=b.name or b.target,
        new_name=n.name or n.target,
        base_target=b.target,
        target=n.target,
        mode=n.mode,
        pairing=rule,
        title=title,
        deltas=deltas,
        operations=operations,
        base_provider_errors=dict(b.provider_errors),
        new_provider_errors=dict(n.provider_errors),
        regressed=bool(reasons),
        reasons=reasons,
        warnings=warnings,
    )


def _flips(
    base: RunMetrics, new: RunMetrics, targets: list[TargetComparison]
) -> tuple[list[Flip], list[Flip]]:
    """The cases of each pair that flipped, in pair order, then in NEW's case order (rows paired by
    :func:`_pairs`); a Rate is built only for a flip."""
    down: list[Flip] = []
    up: list[Flip] = []
    for t in targets:
        for case_id, prior, row in _pairs(base.cases, (t.base_target, t.mode), new.cases, (t.target, t.mode)):
            if prior.scorable == 0 or row.scorable == 0:
                continue
            was, now = prior.passes == prior.scorable, row.passes == row.scorable
            if was == now:
                continue
            failing = row if was else prior
            before, after = rate_of(prior.passes, prior.scorable), rate_of(row.passes, row.scorable)
            flip = Flip(
                title=t.title,
                base_target=t.base_target,
                target=t.target,
                mode=t.mode,
                case_id=case_id,
                base=before,
                new=after,
                kind="full" if failing.passes == 0 else "partial",
                real=moved_beyond_interval(before, after),
            )
            (down if was else up).append(flip)
    return down, up


def _pairs(
    base: CaseSummaries, base_key: tuple[str, str], new: CaseSummaries, new_key: tuple[str, str]
) -> Iterable[tuple[str, CaseRow, CaseRow]]:
    """(case id, BASE row, NEW row) of each case of NEW's (target, mode) ``new_key`` that BASE's
    ``base_key`` has too, in NEW's order; of several rows of one case on a side, the last
    (:meth:`~fcbench.metrics.cases.CaseSummaries.case_rows`). Two runs of one suite have the same
    cases in the same order (by case id): then the rows pair by position."""
    before = [g.rows for g in base.groups if (g.target, g.mode) == base_key]
    after = [g.rows for g in new.groups if (g.target, g.mode) == new_key]
    if len(before) == 1 and len(after) == 1:
        ids = [r.case_id for r in after[0]]
        if ids == [r.case_id for r in before[0]] and len(set(ids)) == len(ids):
            return zip(ids, before[0], after[0], strict=True)
    prior = base.case_rows(base_key)
    latest = new.case_rows(new_key)
    return ((case_id, prior[case_id], row) for case_id, row in latest.items() if case_id in prior)
