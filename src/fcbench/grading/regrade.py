"""Re-grade recorded observations under another grading profile, and list where profiles disagree.

Records keep everything needed to grade them again (the canonical outcome and the adapter's
anomalies); the reader of the records hands those over as an :class:`Observation` (grading sits
below the store and never reads a record itself), so a run made once can be scored by fcbench's
``strict`` rules and by the ``bfcl`` profile side by side. Single-turn records (modes in
:data:`REGRADABLE_MODES`) are graded again
against the suite's case and the tools it offered; multi-turn records (``recovery``) are scored
by their own conversation rules and keep their verdict. Provider and harness errors stay
``not_scored`` under every profile.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fcbench.contract import MODES
from fcbench.errors import CaseError, ConfigError
from fcbench.grading import PROFILES, Verdict, grade
from fcbench.schema.validate import ValidatorCache
from fcbench.suite.loader import Suite
from fcbench.suite.models import Case

REGRADABLE_MODES = frozenset(name for name, info in MODES.items() if info.regradable)
"""Modes whose records are one outcome of one turn, graded by :func:`fcbench.grading.grade` (from
the mode table)."""


def _check_profiles(profiles: Iterable[str]) -> list[str]:
    names = list(profiles)
    unknown = [name for name in names if name not in PROFILES]
    if unknown:
        known = ", ".join(sorted(PROFILES))
        raise ConfigError(f"unknown grading profile(s) {', '.join(unknown)} (known: {known})", key="profile")
    return names


@dataclass(frozen=True)
class Observation:
    """What re-grading reads of one recorded observation, given by the caller (who reads the record)."""

    case_id: str
    """The case's id in the suite."""
    mode: str
    """The record's mode (only :data:`REGRADABLE_MODES` are graded again)."""
    outcome: Mapping[str, Any]
    """The canonical outcome, as the record holds it."""
    anomalies: Sequence[Any] = ()
    """The adapter's anomalies, as recorded (kept and passed to the grader)."""
    recorded: Mapping[str, Any] | None = None
    """The recorded verdict (kept by multi-turn modes)."""
    seq: Any = None
    """The record's position in the plan (for messages and listings)."""
    target: str = "?"
    """The target label, ``endpoint:model``."""
    repeat: Any = 0
    """The repeat index."""


class Regrader:
    """Grades observations against one suite, reusing compiled schemas and the case index."""

    def __init__(self, suite: Suite) -> None:
        self.suite = suite
        self.cases: dict[str, Case] = {case.id: case for case in suite.cases}
        self.validators = ValidatorCache()

    def case(self, obs: Observation) -> Case:
        """The suite's case of an observation (:class:`CaseError` when the suite has none)."""
        case = self.cases.get(str(obs.case_id))
        if case is None:
            where = f"record {'?' if obs.seq is None else obs.seq}"
            raise CaseError(f"{where}: case {obs.case_id!r} is not in suite {self.suite.name!r}")
        return case

    def verdict(self, obs: Observation, profile: str) -> Verdict | None:
        """The observation's verdict under ``profile``; None for multi-turn modes (they keep theirs)."""
        if obs.mode not in REGRADABLE_MODES:
            return None
        case = self.case(obs)
        return grade(
            case,
            obs.outcome,
            self.suite.tools_for(case),
            profile=profile,
            validators=self.validators,
            anomalies=[a for a in obs.anomalies if isinstance(a, Mapping | str)],
        )

    def verdict_data(self, obs: Observation, profile: str) -> dict[str, Any] | None:
        """:meth:`verdict` as its JSON value (the recorded verdict of a multi-turn mode)."""
        found = self.verdict(obs, profile)
        if found is not None:
            return found.model_dump()
        return dict(obs.recorded) if isinstance(obs.recorded, Mapping) else None


def regrader(suite: Suite, profile: str) -> Regrader:
    """A :class:`Regrader` of ``suite``, after checking ``profile`` is known (:class:`ConfigError`)."""
    _check_profiles([profile])
    return Regrader(suite)


def disagreements(
    observations: Iterable[Observation], suite: Suite, profiles: Sequence[str] = ("strict", "bfcl")
) -> list[dict[str, Any]]:
    """Observations (of one run) whose ``passed`` differs between ``profiles``, in order.

    Each entry: ``seq``, ``target`` (``endpoint:model``), ``case_id``, ``repeat``, ``mode``,
    ``passed`` / ``decision`` / ``reasons`` per profile, and ``verdicts`` (the full verdicts per
    profile), so a user sees exactly what one profile forgives that the other does not.
    """
    names = _check_profiles(profiles)
    if len(set(names)) < 2:
        raise ConfigError("compare at least two different grading profiles", key="profile")
    grader = Regrader(suite)
    found: list[dict[str, Any]] = []
    for obs in observations:
        if obs.mode not in REGRADABLE_MODES:
            continue
        verdicts = {name: grader.verdict_data(obs, name) or {} for name in dict.fromkeys(names)}
        if len({bool(v.get("passed")) for v in verdicts.values()}) < 2:
            continue
        found.append(
            {
                "seq": obs.seq,
                "target": obs.target,
                "case_id": obs.case_id,
                "repeat": obs.repeat,
                "mode": obs.mode,
                "passed": {name: bool(v.get("passed")) for name, v in verdicts.items()},
                "decision": {name: v.get("decision") for name, v in verdicts.items()},
                "reasons": {name: list(v.get("reasons") or []) for name, v in verdicts.items()},
                "verdicts": verdicts,
            }
        )
    return found


__all__ = ["REGRADABLE_MODES", "Observation", "Regrader", "disagreements", "regrader"]
