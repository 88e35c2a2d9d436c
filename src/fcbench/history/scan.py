"""One streaming pass over a run's records: failure types per target and the patterns each model shows.

Each line is decoded (msgspec) into :class:`_Line`, which names only what the pass reads: the raw
exchanges, the tool results and the timestamps are skipped without being built. Observations are
taken as the metrics take them: provider and harness errors are coverage loss and never a pattern,
and of several scored records of one (target, case, repeat, mode) the first counts.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from fcbench.endpoints import target_label
from fcbench.errors import FcbenchError
from fcbench.grading.inputs import anomaly_codes
from fcbench.history.patterns import Observed, PatternKey, failure_type, patterns_of
from fcbench.store.records import RECORDS_FILE, Manifest
from fcbench.store.view import complete_lines
from fcbench.suite.loader import Suite, load_suite
from fcbench.suite.models import Case

EXAMPLES = 3
"""Example observations kept per pattern."""


class _Call(msgspec.Struct):
    name: Any = None


class _Outcome(msgspec.Struct):
    kind: Any = None
    calls: list[_Call] | None = None


class _Turn(msgspec.Struct):
    outcome: _Outcome | None = None


class _Case(msgspec.Struct):
    tags: list[Any] = msgspec.field(default_factory=list)


class _Target(msgspec.Struct):
    endpoint: Any = None
    model: Any = None


class _Line(msgspec.Struct):
    case_id: str
    repeat: int
    mode: str
    target: _Target
    outcome: _Outcome
    seq: Any = None
    case: _Case | None = None
    anomalies: list[Any] | None = None
    verdict: dict[str, Any] | None = None
    turns: list[_Turn] | None = None


_DECODER = msgspec.json.Decoder(_Line)


@dataclass(frozen=True)
class Example:
    """One observation that showed a pattern."""

    run_id: str
    """The run it belongs to."""
    case_id: str
    """The case's id."""
    seq: int | None
    """The record's position in the plan."""
    target: str
    """The target label, ``endpoint:model``."""


@dataclass
class RunScan:
    """What one pass over a run's records found."""

    run_id: str
    """The run's id."""
    failures: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    """(target label, mode) -> failure type (:func:`fcbench.history.patterns.failure_type`) -> failing
    observations."""
    scored: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(target label, mode) -> scored observations."""
    patterns: dict[tuple[str, PatternKey], int] = field(default_factory=dict)
    """(target label, pattern) -> observations showing it."""
    examples: dict[PatternKey, list[Example]] = field(default_factory=dict)
    """Pattern -> up to :data:`EXAMPLES` observations showing it, in record order."""


def _suite_of(manifest: Manifest) -> Suite | None:
    """The run's suite, or None when it cannot be loaded any more (then tools are not known)."""
    try:
        return load_suite(manifest.suite_ref or manifest.suite)
    except (FcbenchError, OSError, ValueError):
        return None


class _CaseFacts:
    """Expected tool names and offered tools' side effects per case id, looked up once each."""

    def __init__(self, suite: Suite | None) -> None:
        self._cases = {c.id: c for c in suite.cases} if suite is not None else {}
        self._suite = suite
        self._facts: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {}

    def of(self, case_id: str) -> tuple[tuple[str, ...], dict[str, str]]:
        found = self._facts.get(case_id)
        if found is None:
            case = self._cases.get(case_id)
            found = ((), {}) if case is None or self._suite is None else _facts(self._suite, case)
            self._facts[case_id] = found
        return found


def _facts(suite: Suite, case: Case) -> tuple[tuple[str, ...], dict[str, str]]:
    names = case.expected_tool_names
    try:
        tools = suite.tools_for(case)
    except FcbenchError:
        tools = []
    return tuple(names), {t.name: t.side_effect for t in tools}


def _decode(line: bytes) -> _Line | None:
    try:
        return _DECODER.decode(line)
    except (msgspec.DecodeError, RecursionError, ValueError):
        pass
    try:
        return msgspec.convert(json.loads(line), _Line)
    except (msgspec.ValidationError, RecursionError, ValueError, TypeError):
        return None


def _names(outcome: _Outcome | None) -> list[str]:
    if outcome is None or outcome.kind != "tool_calls":
        return []
    return [str(c.name) for c in outcome.calls or []]


def scan_run(run_dir: Path, manifest: Manifest) -> RunScan:
    """Read ``run_dir``'s records once and collect failure types and patterns (see the module)."""
    scan = RunScan(manifest.run_id)
    facts = _CaseFacts(_suite_of(manifest))
    seen: set[tuple[str, str, int, str]] = set()
    for lines, _ in complete_lines(run_dir / RECORDS_FILE):
        for line in lines:
            rec = _decode(line)
            if rec is None:
                continue
            verdict = rec.verdict
            if not isinstance(verdict, dict) or rec.outcome.kind == "provider_error":
                continue
            if verdict.get("decision") in (None, "not_scored"):
                continue
            label = target_label(str(rec.target.endpoint), str(rec.target.model))
            where = (label, rec.case_id, rec.repeat, rec.mode)
            if where in seen:
                continue
            seen.add(where)
            _fold(scan, rec, verdict, label, facts)
    return scan


def _fold(scan: RunScan, rec: _Line, verdict: dict[str, Any], label: str, facts: _CaseFacts) -> None:
    group = (label, rec.mode)
    scan.scored[group] += 1
    passed = verdict.get("passed") is True
    if not passed:
        scan.failures.setdefault(group, Counter())[failure_type(verdict)] += 1
    calls = _names(rec.outcome)
    turns = rec.turns or []
    expected, effects = facts.of(rec.case_id)
    found: list[Any] = list(rec.anomalies or []) + list(verdict.get("anomalies") or [])
    obs = Observed(
        model=str(rec.target.model),
        verdict=verdict,
        passed=passed,
        tags=[str(t) for t in (rec.case.tags if rec.case is not None else [])],
        calls=calls,
        all_calls=[n for t in turns for n in _names(t.outcome)] if turns else calls,
        expected=expected,
        side_effects=effects,
        anomalies=anomaly_codes(a for a in found if isinstance(a, dict | str)),
    )
    seq = rec.seq if isinstance(rec.seq, int) and not isinstance(rec.seq, bool) else None
    for pattern in patterns_of(obs):
        scan.patterns[(label, pattern)] = scan.patterns.get((label, pattern), 0) + 1
        kept = scan.examples.setdefault(pattern, [])
        if len(kept) < EXAMPLES:
            kept.append(Example(scan.run_id, rec.case_id, seq, label))


__all__ = ["EXAMPLES", "Example", "RunScan", "scan_run"]
