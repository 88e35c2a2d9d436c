"""Re-grade recorded observations under another grading profile, and list where profiles disagree.

Records keep everything needed to grade them again (the canonical outcome and the adapter's
anomalies), so a run made once can be scored by fcbench's ``strict`` rules and by the ``bfcl``
profile side by side. Single-turn records (modes in :data:`REGRADABLE_MODES`) are graded again
against the suite's case and the tools it offered; multi-turn records (``recovery``) are scored
by their own conversation rules and keep their verdict. Provider and harness errors stay
``not_scored`` under every profile.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from fcbench.contract import MODES
from fcbench.endpoints import label_of
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


class _Regrader:
    """Grades record dicts against one suite, reusing compiled schemas and the case index."""

    def __init__(self, suite: Suite) -> None:
        self.suite = suite
        self.cases: dict[str, Case] = {case.id: case for case in suite.cases}
        self.validators = ValidatorCache()

    def case(self, record: Mapping[str, Any]) -> Case:
        case_id = record.get("case_id")
        case = self.cases.get(str(case_id))
        if case is None:
            where = f"record {record.get('seq', '?')}"
            raise CaseError(f"{where}: case {case_id!r} is not in suite {self.suite.name!r}")
        return case

    def verdict(self, record: Mapping[str, Any], profile: str) -> dict[str, Any] | None:
        """The record's verdict under ``profile`` (its recorded verdict for multi-turn modes)."""
        if record.get("mode") not in REGRADABLE_MODES:
            verdict = record.get("verdict")
            return dict(verdict) if isinstance(verdict, Mapping) else None
        case = self.case(record)
        anomalies = [a for a in record.get("anomalies") or [] if isinstance(a, Mapping | str)]
        result: Verdict = grade(
            case,
            record.get("outcome") or {},
            self.suite.tools_for(case),
            profile=profile,
            validators=self.validators,
            anomalies=anomalies,
        )
        return result.model_dump()


def regrade_records(
    record_dicts: Iterable[dict[str, Any]], suite: Suite, profile: str
) -> Iterator[dict[str, Any]]:
    """Yield each record dict (a copy) with its ``verdict`` replaced by ``profile``'s verdict.

    Cases are looked up by ``case_id`` in ``suite`` (a missing case raises
    :class:`~fcbench.errors.CaseError`); records of multi-turn modes keep their verdict; the
    record's anomalies are kept and passed to the grader.
    """
    _check_profiles([profile])
    return _regraded(record_dicts, _Regrader(suite), profile)


def _regraded(
    record_dicts: Iterable[dict[str, Any]], regrader: _Regrader, profile: str
) -> Iterator[dict[str, Any]]:
    for record in record_dicts:
        yield {**record, "verdict": regrader.verdict(record, profile)}


def _label(record: Mapping[str, Any]) -> str:
    target = record.get("target")
    return label_of(target) if isinstance(target, Mapping) else "?"


def disagreements(
    record_dicts: Iterable[Mapping[str, Any]], suite: Suite, profiles: Sequence[str] = ("strict", "bfcl")
) -> list[dict[str, Any]]:
    """Observations (record dicts of one run) whose ``passed`` differs between ``profiles``, in order.

    Each entry: ``seq``, ``target`` (``endpoint:model``), ``case_id``, ``repeat``, ``mode``,
    ``passed`` / ``decision`` / ``reasons`` per profile, and ``verdicts`` (the full verdicts per
    profile), so a user sees exactly what one profile forgives that the other does not.
    """
    names = _check_profiles(profiles)
    if len(set(names)) < 2:
        raise ConfigError("compare at least two different grading profiles", key="profile")
    regrader = _Regrader(suite)
    found: list[dict[str, Any]] = []
    for record in record_dicts:
        if record.get("mode") not in REGRADABLE_MODES:
            continue
        verdicts = {name: regrader.verdict(record, name) or {} for name in dict.fromkeys(names)}
        if len({bool(v.get("passed")) for v in verdicts.values()}) < 2:
            continue
        found.append(
            {
                "seq": record.get("seq"),
                "target": _label(record),
                "case_id": record.get("case_id"),
                "repeat": record.get("repeat"),
                "mode": record.get("mode"),
                "passed": {name: bool(v.get("passed")) for name, v in verdicts.items()},
                "decision": {name: v.get("decision") for name, v in verdicts.items()},
                "reasons": {name: list(v.get("reasons") or []) for name, v in verdicts.items()},
                "verdicts": verdicts,
            }
        )
    return found


__all__ = ["REGRADABLE_MODES", "disagreements", "regrade_records"]
