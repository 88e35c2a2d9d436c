"""The judge's agreement with the deterministic verdicts of a run (``fcbench run --judge TARGET``).

Read from the records' ``judge`` fields beside their recorded verdicts, per target and mode:

* ``agreement``: ratings whose label agrees with the verdict's decision
  (:data:`fcbench.grading.judge.AGREEING_LABELS`) out of the observations the judge rated;
* ``judged``: observations the judge was asked about; ``failed``: those it gave no usable rating
  for (its provider error, no ``rate_reply`` call, a label outside the rubric), which are coverage
  of the judge and never count against the target;
* ``labels``: ratings per label; and every disagreement, with its case id, repeat, the decision
  and the judge's label and reason.

Like the metrics, the first record of each (target, case, repeat, mode) is taken.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from fcbench.grading.judge import agrees
from fcbench.metrics.models import Rate
from fcbench.store.records import JudgePin
from fcbench.store.view import RecordView


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class JudgeDisagreement(_Model):
    """One observation where the judge's label and the deterministic decision differ."""

    target: str
    """The target that answered, ``endpoint:model``."""
    mode: str
    """The observation's mode."""
    case_id: str
    """The case's id."""
    repeat: int
    """The repeat, from 0."""
    decision: str
    """The deterministic verdict's decision."""
    label: str
    """The judge's label."""
    reason: str | None = None
    """The judge's reason."""


class JudgeTargetAgreement(_Model):
    """The judge's agreement with one target's verdicts in one mode."""

    target: str
    """The target, ``endpoint:model``."""
    mode: str
    """The mode."""
    agreement: Rate = Field(default_factory=Rate)
    """Ratings agreeing with the decision / observations the judge rated."""
    judged: int = 0
    """Observations the judge was asked about."""
    failed: int = 0
    """Of those, the ones the judge gave no usable rating for (coverage of the judge)."""
    labels: dict[str, int] = Field(default_factory=dict)
    """Ratings per judge label."""


class JudgeAgreement(_Model):
    """The judge of a run and its agreement with the run's verdicts (``metrics.judge``)."""

    judge: str
    """The judge target, ``endpoint:model``."""
    rubric: str
    """The rubric's version."""
    rubric_sha256: str
    """sha256 of the rubric's text, as pinned in the manifest."""
    targets: list[JudgeTargetAgreement] = Field(default_factory=list)
    """Per target and mode, in the order the records name them."""
    disagreements: list[JudgeDisagreement] = Field(default_factory=list)
    """Every observation where the judge's label and the decision differ, in record order."""


def _rated(view: RecordView) -> tuple[dict[str, Any], dict[str, Any]] | None:
    verdict = view.verdict_data()
    rating = view.judge_data()
    if verdict is None or rating is None or view.outcome.kind == "provider_error":
        return None
    return verdict, rating


def judge_agreement(
    views: Iterable[RecordView], pin: JudgePin, modes: set[str] | None = None
) -> JudgeAgreement:
    """The agreement of the judge pinned as ``pin`` over the records ``views`` (see the module)."""
    rows: dict[tuple[str, str], JudgeTargetAgreement] = {}
    disagreements: list[JudgeDisagreement] = []
    seen: set[tuple[str, str, int, str]] = set()
    counts: dict[tuple[str, str], list[int]] = {}
    for view in views:
        found = _rated(view)
        if found is None or (modes is not None and view.mode not in modes) or view.key in seen:
            continue
        seen.add(view.key)
        verdict, rating = found
        where = (view.label, view.mode)
        row = rows.setdefault(where, JudgeTargetAgreement(target=view.label, mode=view.mode))
        agreed_rated = counts.setdefault(where, [0, 0])
        row.judged += 1
        label = rating.get("label")
        if not isinstance(label, str):
            row.failed += 1
            continue
        row.labels[label] = row.labels.get(label, 0) + 1
        agreed_rated[1] += 1
        decision = str(verdict.get("decision"))
        if agrees(decision, label):
            agreed_rated[0] += 1
            continue
        reason = rating.get("reason")
        disagreements.append(
            JudgeDisagreement(
                target=view.label,
                mode=view.mode,
                case_id=view.case_id,
                repeat=view.repeat,
                decision=decision,
                label=label,
                reason=reason if isinstance(reason, str) else None,
            )
        )
    for where, row in rows.items():
        row.agreement = Rate(n=counts[where][0], d=counts[where][1])
    return JudgeAgreement(
        judge=pin.target.ident,
        rubric=pin.rubric,
        rubric_sha256=pin.rubric_sha256,
        targets=list(rows.values()),
        disagreements=disagreements,
    )


__all__ = ["JudgeAgreement", "JudgeDisagreement", "JudgeTargetAgreement", "judge_agreement"]
