"""The regression gate: compare two runs target by target, metric by metric, case by case.

Targets are matched by label (``endpoint:model``) and mode; cases additionally by case id. A target
regresses when its pass rate drops by more than ``max_drop`` percentage points, or when any model
metric (:data:`GATED_METRICS`) drops with a two-sided p-value below ``alpha``
(:func:`fcbench.metrics.stats.proportion_test`). Coverage and acceptance changes are reported as
warnings: provider trouble is not a model regression, but it must not go unnoticed.

The tests treat every observation as independent; repeats of one case are correlated, so p-values
are optimistic when repeats dominate the sample.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from fcbench.errors import RunStateError
from fcbench.metrics import Rate, RunMetrics, Stability, TargetMetrics
from fcbench.metrics.stats import proportion_test
from fcbench.report.common import RATE_COLUMNS, fmt_rate, md_escape
from fcbench.report.markdown import table

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
"""Metrics reported (and warned about) but never gating: acceptance and coverage (provider trouble),
and stability over repeats (the one "same outcome" key, :func:`fcbench.grading.normalised_outcome_key`)."""
MAX_FLIPS_SHOWN = 50
_TITLES = dict(RATE_COLUMNS)


class MetricDelta(BaseModel):
    """One metric of one target in both runs."""

    metric: str
    base: Rate
    new: Rate
    delta_points: float | None
    """New rate minus base rate, in percentage points; null when either side has d = 0."""
    p_value: float | None
    significant_drop: bool


class TargetComparison(BaseModel):
    """Every metric delta of one target and mode, and whether it regressed."""

    target: str
    mode: str
    deltas: list[MetricDelta]
    regressed: bool
    reasons: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class Flip(BaseModel):
    """A case x target whose majority verdict changed between the runs."""

    target: str
    mode: str
    case_id: str
    base: Rate
    new: Rate


class Comparison(BaseModel):
    """The outcome of comparing a new run against a base run."""

    base_run: str
    new_run: str
    base_dataset: str
    new_dataset: str
    max_drop: float
    alpha: float
    targets: list[TargetComparison]
    only_in_base: list[str]
    only_in_new: list[str]
    pass_to_fail: list[Flip]
    fail_to_pass: list[Flip]
    warnings: list[str]
    regression: bool
    verdict: str


def compare_runs(
    base: RunMetrics,
    new: RunMetrics,
    *,
    max_drop: float = 5.0,
    alpha: float = 0.05,
    allow_dataset_change: bool = False,
) -> Comparison:
    """Compare ``new`` against ``base``; raise :class:`RunStateError` on a dataset mismatch."""
    warnings: list[str] = []
    if base.run.dataset_version != new.run.dataset_version:
        versions = f"base {base.run.dataset_version}, new {new.run.dataset_version}"
        if not allow_dataset_change:
            raise RunStateError(
                f"dataset versions differ ({versions}); pass --allow-dataset-change to compare anyway"
            )
        warnings.append(f"dataset versions differ ({versions}); results may not be comparable")
    elif base.run.dataset_hash != new.run.dataset_hash:
        warnings.append("dataset hash differs although the version is the same: cases were edited in place")

    keys_base = [(t.target, t.mode) for t in base.targets]
    keys_new = [(t.target, t.mode) for t in new.targets]
    targets = []
    for key in keys_base:
        b, n = base.find(*key), new.find(*key)
        if b is not None and n is not None:
            targets.append(_compare_target(b, n, max_drop, alpha))
    pass_to_fail, fail_to_pass = _flips(base, new)
    regressed = [t for t in targets if t.regressed]
    if regressed:
        detail = "; ".join(f"{t.target} [{t.mode}]: {', '.join(t.reasons)}" for t in regressed)
        verdict = f"REGRESSION: {detail}"
    else:
        drops = [
            -d.delta_points for t in targets for d in t.deltas if d.metric == "pass_rate" and d.delta_points
        ]
        worst = max(drops, default=0.0)
        verdict = (
            f"no regression: {len(targets)} target(s) compared, largest pass-rate drop "
            f"{max(worst, 0.0):.1f} points (limit {max_drop:g})"
        )
    return Comparison(
        base_run=base.run.run_id,
        new_run=new.run.run_id,
        base_dataset=base.run.dataset_version,
        new_dataset=new.run.dataset_version,
        max_drop=max_drop,
        alpha=alpha,
        targets=targets,
        only_in_base=[f"{t} [{m}]" for t, m in keys_base if (t, m) not in keys_new],
        only_in_new=[f"{t} [{m}]" for t, m in keys_new if (t, m) not in keys_base],
        pass_to_fail=pass_to_fail,
        fail_to_pass=fail_to_pass,
        warnings=warnings + [w for t in targets for w in t.warnings],
        regression=bool(regressed),
        verdict=verdict,
    )


def _delta(metric: str, b: Rate, n: Rate, alpha: float) -> MetricDelta:
    if b.rate is None or n.rate is None:
        return MetricDelta(
            metric=metric, base=b, new=n, delta_points=None, p_value=None, significant_drop=False
        )
    p = proportion_test(b.n, b.d, n.n, n.d)
    delta = (n.rate - b.rate) * 100.0
    significant = p is not None and p < alpha and delta < 0
    return MetricDelta(
        metric=metric, base=b, new=n, delta_points=delta, p_value=p, significant_drop=significant
    )


def _rate(metrics: TargetMetrics, name: str) -> Rate:
    value = getattr(metrics, name)
    return value.as_rate if isinstance(value, Stability) else value


def _compare_target(b: TargetMetrics, n: TargetMetrics, max_drop: float, alpha: float) -> TargetComparison:
    deltas = [_delta(m, _rate(b, m), _rate(n, m), alpha) for m in GATED_METRICS + WATCHED_METRICS]
    reasons: list[str] = []
    warnings: list[str] = []
    for d in deltas:
        label = d.metric.replace("_", " ")
        if d.metric == "pass_rate" and d.delta_points is not None and -d.delta_points > max_drop:
            reasons.append(
                f"pass rate {fmt_rate(d.base)} -> {fmt_rate(d.new)} "
                f"({d.delta_points:+.1f} points, limit -{max_drop:g})"
            )
        if d.metric in GATED_METRICS and d.significant_drop:
            reasons.append(f"{label} dropped significantly ({d.delta_points:+.1f} points, p={d.p_value:.3g})")
        if d.metric in WATCHED_METRICS and d.delta_points is not None and -d.delta_points > max_drop:
            warnings.append(f"{n.target} [{n.mode}]: {label} {fmt_rate(d.base)} -> {fmt_rate(d.new)}")
    if n.pass_rate.d == 0 and b.pass_rate.d > 0:
        warnings.append(f"{n.target} [{n.mode}]: no scorable observations in the new run")
    return TargetComparison(
        target=n.target,
        mode=n.mode,
        deltas=deltas,
        regressed=bool(reasons),
        reasons=reasons,
        warnings=warnings,
    )


def _majority_pass(rate: Rate) -> bool | None:
    """True when more than half the scorable repeats passed; None when nothing was scorable."""
    return None if rate.d == 0 else 2 * rate.n > rate.d


def _flips(base: RunMetrics, new: RunMetrics) -> tuple[list[Flip], list[Flip]]:
    base_cases = {(c.target, c.mode, c.case_id): c.passed for c in base.cases}
    down: list[Flip] = []
    up: list[Flip] = []
    for c in new.cases:
        before = base_cases.get((c.target, c.mode, c.case_id))
        if before is None:
            continue
        was, now = _majority_pass(before), _majority_pass(c.passed)
        if was is None or now is None or was == now:
            continue
        flip = Flip(target=c.target, mode=c.mode, case_id=c.case_id, base=before, new=c.passed)
        (down if was else up).append(flip)
    return down, up


def render_compare_json(comparison: Comparison) -> str:
    """The comparison as indented JSON."""
    return comparison.model_dump_json(indent=2) + "\n"


def render_compare_markdown(comparison: Comparison) -> str:
    """The comparison as markdown; the last line is the verdict."""
    c = comparison
    out = [
        f"# fcbench compare: {md_escape(c.base_run)} -> {md_escape(c.new_run)}",
        "",
        f"Dataset {md_escape(c.base_dataset)} -> {md_escape(c.new_dataset)}. Gate: pass-rate drop over "
        f"{c.max_drop:g} points, or a drop with p < {c.alpha:g} in any model metric.",
    ]
    if c.warnings or c.only_in_base or c.only_in_new:
        out.append("")
    for w in c.warnings:
        out.append(f"- WARNING: {md_escape(w, limit=500)}")
    for label, items in (("only in base", c.only_in_base), ("only in new", c.only_in_new)):
        if items:
            out.append(f"- Targets {label}: {md_escape(', '.join(items), limit=1000)}")
    for t in c.targets:
        flag = "REGRESSED" if t.regressed else "ok"
        out += ["", f"## {md_escape(t.target)} [{md_escape(t.mode)}]: {flag}", ""]
        out += [f"- {md_escape(r, limit=500)}" for r in t.reasons] + ([""] if t.reasons else [])
        rows = [
            [
                _TITLES.get(d.metric, md_escape(d.metric)),
                fmt_rate(d.base),
                fmt_rate(d.new),
                "–" if d.delta_points is None else f"{d.delta_points:+.1f}",
                "–" if d.p_value is None else f"{d.p_value:.3g}",
                "significant drop" if d.significant_drop else "",
            ]
            for d in t.deltas
        ]
        out += table(["Metric", "Base", "New", "Δ points", "p-value", ""], rows)
    for title, flips in (("Flipped pass -> fail", c.pass_to_fail), ("Flipped fail -> pass", c.fail_to_pass)):
        out += ["", f"## {title} ({len(flips)})", ""]
        if not flips:
            out.append("None.")
            continue
        rows = [
            [
                md_escape(f.case_id),
                md_escape(f"{f.target} [{f.mode}]"),
                fmt_rate(f.base, 0),
                fmt_rate(f.new, 0),
            ]
            for f in flips[:MAX_FLIPS_SHOWN]
        ]
        out += table(["Case", "Target", "Base", "New"], rows)
        if len(flips) > MAX_FLIPS_SHOWN:
            out.append(f"\n{len(flips) - MAX_FLIPS_SHOWN} more not shown (see --format json).")
    out += ["", c.verdict]
    return "\n".join(out) + "\n"
