"""The run gate: did a run measure enough, and well enough, to be green? (``fcbench run`` exit 1).

Fail closed: a run that scored nothing fails whatever the thresholds; a target whose coverage
(scorable / planned) is below ``min_coverage`` fails, and so does one stopped early by
``fail_fast``; then the pass-rate thresholds, overall, per category and per tag, apply to every
target and mode that has scorable observations of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from fcbench.config import Gate
from fcbench.metrics import Rate, RunMetrics, TargetMetrics
from fcbench.report.common import fmt_rate


@dataclass(frozen=True)
class GateFailure:
    """One threshold a run did not meet."""

    target: str
    """The target's name (its label unless the config named it)."""
    mode: str
    """The mode measured, or ``*`` for the run as a whole."""
    message: str
    """What failed, with the measured n/d and the threshold."""

    def __str__(self) -> str:
        return f"{self.target} [{self.mode}]: {self.message}"


def _below(rate: Rate, minimum: float) -> bool:
    return rate.d > 0 and rate.n < minimum * rate.d


def _target_failures(t: TargetMetrics, gate: Gate) -> Iterator[str]:
    if gate.min_coverage > 0 and t.planned and _below(t.coverage, gate.min_coverage):
        errors = ", ".join(f"{code} {count}" for code, count in t.provider_errors.items()) or "none"
        yield f"coverage {fmt_rate(t.coverage)} is below {gate.min_coverage:.0%} (provider errors: {errors})"
    if gate.min_pass_rate is not None and _below(t.pass_rate, gate.min_pass_rate):
        yield f"pass rate {fmt_rate(t.pass_rate)} is below {gate.min_pass_rate:.0%}"
    for kind, required, measured in (
        ("category", gate.min_pass_rate_by_category, t.by_category),
        ("tag", gate.min_pass_rate_by_tag, t.by_tag),
    ):
        for key, minimum in required.items():
            rate = measured.get(key)
            if rate is not None and _below(rate, minimum):
                yield f"{kind} {key!r} pass rate {fmt_rate(rate)} is below {minimum:.0%}"


def check_gate(
    metrics: RunMetrics, gate: Gate, stopped: Mapping[str, str] | None = None
) -> list[GateFailure]:
    """Every threshold the run failed (empty: green). ``stopped``: target label -> why it was stopped."""
    failures: list[GateFailure] = []
    if not any(t.scorable for t in metrics.targets):
        failures.append(GateFailure("*", "*", "nothing was scored: every observation was lost or none ran"))
    names = {t.target: t.name or t.target for t in metrics.targets}
    for label, why in (stopped or {}).items():
        failures.append(GateFailure(names.get(label, label), "*", f"stopped early: {why}"))
    for t in metrics.targets:
        failures.extend(GateFailure(t.name or t.target, t.mode, m) for m in _target_failures(t, gate))
    return failures
