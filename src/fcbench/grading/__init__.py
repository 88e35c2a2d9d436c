"""The grader: one observed outcome of one case becomes one :class:`Verdict`.

:func:`grade` checks its inputs, then hands them to a grading profile. Profiles live in a
registry (:data:`PROFILES`, name -> function from a :class:`GradeInput` to a :class:`Verdict`):
``strict`` is fcbench's own rules (:mod:`fcbench.grading.strict`); ``bfcl`` reproduces BFCL's AST
checker (:mod:`fcbench.grading.bfcl`), and ``bfcl_prompt`` the same for a prompted model whose
text in BFCL's prompt format is its answer; ``repairs`` applies the strict rules after the repairs a
production stack commonly makes, each one recorded in ``verdict.repairs``
(:mod:`fcbench.grading.repairs`). Another rule set is one more module and one more entry.

Stages, each reported separately in the verdict:

1. provider errors are ``not_scored`` (coverage loss, never a model failure);
2. the tool decision (``decision``);
3. schema validity of every call's arguments, exactly as produced, against the offered tool;
4. semantic correctness of the graded calls' arguments against the case's expectation.

After the profile, whatever it is, the calls of write tools that the case did not expect are
listed in ``verdict.unexpected_writes`` (:mod:`fcbench.grading.writes`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Protocol

from fcbench.contract import Outcome, Tool
from fcbench.errors import CaseError, ConfigError
from fcbench.grading.bfcl import grade_bfcl, grade_bfcl_prompt
from fcbench.grading.inputs import (
    AnomalyLike,
    GradeInput,
    anomaly_codes,
    coerce_case,
    coerce_outcome,
    coerce_tools,
    expected_calls,
)
from fcbench.grading.key import normalised_outcome_key
from fcbench.grading.repairs import grade_repairs
from fcbench.grading.strict import grade_strict
from fcbench.grading.verdict import (
    DECISIONS,
    REPAIR_KINDS,
    RIGHT_DECISIONS,
    Decision,
    Repair,
    RepairKind,
    Verdict,
    WrongValue,
)
from fcbench.grading.writes import with_unexpected_writes
from fcbench.schema.validate import ValidatorCache
from fcbench.suite.models import Case

__all__ = [
    "DECISIONS",
    "PROFILES",
    "REPAIRING_PROFILES",
    "REPAIR_KINDS",
    "RIGHT_DECISIONS",
    "Decision",
    "GradeInput",
    "GradingProfile",
    "Repair",
    "RepairKind",
    "Verdict",
    "WrongValue",
    "grade",
    "normalised_outcome_key",
]


class GradingProfile(Protocol):
    """A grading rule set: turns one checked observation into a verdict, never raising on model output."""

    def __call__(self, inp: GradeInput, /) -> Verdict:
        """Grade one observation."""
        ...


PROFILES: Mapping[str, GradingProfile] = MappingProxyType(
    {"strict": grade_strict, "bfcl": grade_bfcl, "bfcl_prompt": grade_bfcl_prompt, "repairs": grade_repairs}
)
"""Grading profiles by name. ``strict`` is the default."""

REPAIRING_PROFILES: frozenset[str] = frozenset({"repairs"})
"""Profiles that repair an observation before scoring it: their verdicts list the repairs
(``verdict.repairs``), and metrics computed with them count the repairs per target."""


def grade(
    case: Case | Mapping[str, Any],
    outcome: Outcome | Mapping[str, Any],
    tools: Sequence[Tool | Mapping[str, Any]] | Mapping[str, Any] | None,
    *,
    profile: str = "strict",
    validators: ValidatorCache | None = None,
    anomalies: Iterable[AnomalyLike] | None = None,
) -> Verdict:
    """Grade one outcome of one case.

    ``case`` and ``outcome`` are models or their JSON dicts; ``tools`` are the tools that were
    offered (models, dicts, or a ``{"tools": [...]}`` object; None means the case's inline tool
    list). ``anomalies`` are the adapter's anomalies for this outcome (models, dicts or codes);
    their codes are copied into the verdict. Pass one ``validators`` cache to reuse compiled
    schemas across many calls.

    Raises :class:`~fcbench.errors.ConfigError` for an unknown profile,
    :class:`~fcbench.errors.CaseError` for a malformed case (including one that expects a tool
    that is not offered), and :class:`~fcbench.errors.InputError` for a malformed outcome or
    tool list. Whatever the model produced is graded, never raised.
    """
    strategy = PROFILES.get(profile)
    if strategy is None:
        known = ", ".join(sorted(PROFILES))
        raise ConfigError(f"unknown grading profile {profile!r} (known: {known})", key="profile")
    checked_case = coerce_case(case)
    if tools is None:
        if isinstance(checked_case.tools, str):
            raise CaseError(
                f"case {checked_case.id!r}: uses tool set {checked_case.tools!r}; "
                "pass the offered tools to grade()"
            )
        tools = checked_case.tools
    offered = coerce_tools(tools)
    inp = GradeInput(
        case=checked_case,
        outcome=coerce_outcome(outcome),
        tools=MappingProxyType(offered),
        calls=expected_calls(checked_case, offered),
        validators=validators if validators is not None else ValidatorCache(),
        anomalies=anomaly_codes(anomalies),
    )
    return with_unexpected_writes(inp, strategy(inp))
