"""What the metrics read from one record: the normalised outcome, failure reasons, target label."""

from __future__ import annotations

import json
from typing import Any

from fcbench.grading import RIGHT_DECISIONS

CORRECT_DECISIONS = RIGHT_DECISIONS
"""Decisions that count as the right choice (selection accuracy): the grader's own set."""
SELECTION_KINDS = frozenset({"tool", "tools", "text", "clarification"})
"""Expected kinds that selection accuracy applies to."""
MAX_REASON_CHARS = 200
_SCALARS = frozenset({str, int, float, bool, type(None)})
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def normalised_outcome(outcome: dict[str, Any], decision: str | None) -> str:
    """Canonical text of what the model did: decision plus each call's name and arguments.

    Arguments are serialised with sorted keys, so key order never makes two outcomes differ;
    unparseable arguments are represented by their raw text.
    """
    calls = []
    if outcome.get("kind") == "tool_calls":
        for call in outcome.get("calls") or []:
            args = call.get("arguments")
            if call.get("parse_error") is not None:
                args = {"unparsed": call.get("raw_arguments")}
            calls.append([call.get("name"), args])
    return _CANONICAL.encode([decision, calls])


def outcome_key(outcome: dict[str, Any], decision: str | None) -> int:
    """A hash that is equal for equal :func:`normalised_outcome` texts (barring hash collisions).

    Flat argument objects of scalars (the common case) are hashed as sorted tuples tagged with each
    value's type, so ``1``, ``1.0``, ``True`` and ``"1"`` stay distinct; anything else falls back to
    hashing the canonical JSON text. Only meaningful within one process (``hash`` is salted).
    """
    if outcome.get("kind") != "tool_calls":
        return hash((decision, ()))
    parts = []
    for call in outcome.get("calls") or []:
        args = call.get("arguments")
        if call.get("parse_error") is not None or type(args) is not dict:
            return hash(normalised_outcome(outcome, decision))
        items = []
        for key, value in args.items():
            if type(value) not in _SCALARS:
                return hash(normalised_outcome(outcome, decision))
            items.append((key, type(value).__name__, value))
        items.sort(key=_first)
        parts.append((call.get("name"), tuple(items)))
    return hash((decision, tuple(parts)))


def _first(item: tuple[str, str, Any]) -> str:
    return item[0]


def failure_reasons(verdict: dict[str, Any]) -> list[str]:
    """Short, human-readable reasons an observation failed.

    The verdict's own ``reasons`` when it has them; otherwise derived from the decision, schema
    errors, missing, wrong and unexpected keys and a failed recovery.
    """
    given = verdict.get("reasons")
    reasons: list[str] = [str(r) for r in given] if isinstance(given, list) and given else []
    if not reasons:
        decision = verdict.get("decision")
        if decision and decision not in CORRECT_DECISIONS:
            reasons.append(str(decision))
        reasons += [f"schema: {e}" for e in verdict.get("schema_errors") or []]
        reasons += [f"missing: {k}" for k in verdict.get("missing") or []]
        for w in verdict.get("wrong") or []:
            if isinstance(w, dict):
                expected = json.dumps(w.get("expected"), ensure_ascii=False)
                actual = json.dumps(w.get("actual"), ensure_ascii=False)
                reasons.append(f"wrong {w.get('key')}: expected {expected}, got {actual}")
            else:
                reasons.append(f"wrong: {w}")
        reasons += [f"unexpected: {k}" for k in verdict.get("unexpected") or []]
        recovery = verdict.get("recovery")
        if isinstance(recovery, dict) and not recovery.get("success"):
            reasons.append(f"recovery: {recovery.get('outcome')}")
    if not reasons:
        reasons.append("failed")
    return [r if len(r) <= MAX_REASON_CHARS else r[: MAX_REASON_CHARS - 1] + "…" for r in reasons]


def target_label(target: dict[str, Any]) -> str:
    """``endpoint:model`` of a record's or manifest's target dict."""
    return f"{target.get('endpoint')}:{target.get('model')}"
