"""The failure patterns one scored observation shows, derived from its verdict, case and calls.

A pattern is defined by the model, a ``kind`` and a few string ``fields``; its id is a hash of
those (:func:`pattern_id`), so the same failure of the same model gets the same id in every run.
Kinds (:data:`PATTERN_KINDS`):

* ``decision``: a wrong decision, with the expected and the called tools
  (``wrong_tool: lookup_order -> search_orders``).
* ``recovery``: a multi-turn conversation that ended without success, by its outcome.
* ``reason``: a failure reason with its values blanked (quoted text becomes ``…``, numbers ``N``).
* ``anomaly``: an anomaly code (on any scored observation, passing or not).
* ``argument``: one argument key of one tool: ``number_as_string`` / ``string_as_number`` /
  ``case_changed`` / ``wrong_value`` from ``verdict.wrong``, ``unknown_key`` from ``unexpected``,
  ``dropped_key`` from ``missing``.
* ``tag``: a failing observation of a case carrying the tag.
* ``order``: a write tool called before any read tool, in the calls of a failing observation
  (every turn's calls in order, for multi-turn modes), when a read tool was offered.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fcbench.grading import RIGHT_DECISIONS
from fcbench.metrics import failure_reasons

PATTERN_KINDS: tuple[str, ...] = ("decision", "recovery", "argument", "order", "anomaly", "reason", "tag")
"""Every pattern kind, in the order a catalogue lists them within a model."""

_QUOTED = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
_CALL_PREFIX = re.compile(r"^calls\[(\d+)\]\.")


@dataclass(frozen=True)
class PatternKey:
    """What defines one pattern (its id is the hash of these)."""

    model: str
    """The model id exactly as sent to the provider."""
    kind: str
    """One of :data:`PATTERN_KINDS`."""
    fields: tuple[tuple[str, str], ...]
    """The kind's defining fields, as sorted (name, value) pairs."""

    @property
    def id(self) -> str:
        """:func:`pattern_id` of this key."""
        return pattern_id(self.model, self.kind, dict(self.fields))


def pattern_id(model: str, kind: str, fields: Mapping[str, str]) -> str:
    """A stable 12-hex-digit id: SHA-256 of the model, the kind and the fields as canonical JSON."""
    text = json.dumps({"model": model, "kind": kind, "fields": dict(fields)}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def key(model: str, kind: str, **fields: str) -> PatternKey:
    """A :class:`PatternKey` from keyword fields."""
    return PatternKey(model, kind, tuple(sorted(fields.items())))


ARGUMENT_WORDS: dict[str, str] = {
    "number_as_string": "writes numbers as strings in `{key}`",
    "string_as_number": "writes strings as numbers in `{key}`",
    "case_changed": "changes the letter case of `{key}`",
    "wrong_value": "puts a wrong value in `{key}`",
    "unknown_key": "adds the unknown key `{key}`",
    "dropped_key": "drops the required key `{key}`",
}
"""Argument pattern shape -> its description (``{key}`` is the argument key)."""


def describe(kind: str, fields: Mapping[str, str]) -> str:
    """A generated one-line description of a pattern."""
    if kind == "decision":
        expected, called = fields.get("expected", ""), fields.get("called", "")
        arrow = f"{expected or '(none)'} -> {called or '(none)'}"
        return f"{fields.get('decision', '')}: {arrow}"
    if kind == "argument":
        words = ARGUMENT_WORDS.get(fields.get("shape", ""), "{key}: " + fields.get("shape", ""))
        tool = fields.get("tool", "")
        return words.format(key=fields.get("key", "")) + (f" ({tool})" if tool else "")
    if kind == "order":
        return f"calls write tool {fields.get('write', '')} without a read tool first"
    if kind == "recovery":
        return f"recovery ends as {fields.get('outcome', '')}"
    if kind == "anomaly":
        return f"anomaly {fields.get('code', '')}"
    if kind == "tag":
        return f"fails cases tagged {fields.get('tag', '')}"
    return fields.get("reason", "") if kind == "reason" else json.dumps(dict(fields), sort_keys=True)


def blank_values(reason: str) -> str:
    """A failure reason with its values blanked, so the same failure reads the same in every case."""
    return _NUMBER.sub("N", _QUOTED.sub("…", reason))


@dataclass(frozen=True)
class Observed:
    """What pattern derivation reads of one scored observation."""

    model: str
    """The model id."""
    verdict: Mapping[str, Any]
    """The verdict dict, as recorded."""
    passed: bool
    """Whether the verdict passed."""
    tags: Sequence[str]
    """The case's tags."""
    calls: Sequence[str]
    """Names of the calls of the first turn's outcome, in order."""
    all_calls: Sequence[str]
    """Names of every call, every turn in order (the first turn's calls for single-turn modes)."""
    expected: Sequence[str]
    """Names of the tools the case expects (empty when not known or none)."""
    side_effects: Mapping[str, str]
    """Tool name -> ``read`` or ``write``, of the tools offered (empty when not known)."""
    anomalies: Sequence[str]
    """The record's and the verdict's anomaly codes, each once."""


def failure_type(verdict: Mapping[str, Any]) -> str:
    """The failure type of a failing verdict: its decision when wrong, else ``recovery: OUTCOME``
    for a failed conversation, else ``bad_arguments`` (right decision, arguments or schema failed)."""
    decision = str(verdict.get("decision"))
    if decision not in RIGHT_DECISIONS:
        return decision
    recovery = verdict.get("recovery")
    if isinstance(recovery, dict) and not recovery.get("success"):
        return f"recovery: {recovery.get('outcome')}"
    return "bad_arguments"


def patterns_of(obs: Observed) -> Iterator[PatternKey]:
    """Every pattern ``obs`` shows (each once): anomalies always, the rest only when it failed."""
    seen: set[PatternKey] = set()
    for found in _derive(obs):
        if found not in seen:
            seen.add(found)
            yield found


def _derive(obs: Observed) -> Iterator[PatternKey]:
    model, v = obs.model, obs.verdict
    for code in obs.anomalies:
        yield key(model, "anomaly", code=code)
    if obs.passed:
        return
    decision = str(v.get("decision"))
    if decision not in RIGHT_DECISIONS:
        yield key(
            model, "decision", decision=decision, expected=_names(obs.expected), called=_names(obs.calls)
        )
    recovery = v.get("recovery")
    if isinstance(recovery, dict) and not recovery.get("success"):
        yield key(model, "recovery", outcome=str(recovery.get("outcome")))
    yield from _arguments(obs)
    write = _write_before_read(obs)
    if write is not None:
        yield key(model, "order", write=write)
    reasons = list(failure_reasons(dict(v)))
    if isinstance(recovery, dict):
        reasons += [str(r) for r in recovery.get("reasons") or [] if not str(r).startswith("turn ")]
    for reason in reasons:
        yield key(model, "reason", reason=blank_values(reason))
    for tag in obs.tags:
        yield key(model, "tag", tag=str(tag))


def _names(names: Sequence[str]) -> str:
    return ", ".join(dict.fromkeys(names))


def _tool_and_key(obs: Observed, raw_key: Any) -> tuple[str, str]:
    """The tool a verdict key belongs to (``calls[i].`` picks the call) and the bare key."""
    text = str(raw_key)
    match = _CALL_PREFIX.match(text)
    index = int(match.group(1)) if match else 0
    bare = text[match.end() :] if match else text
    tool = obs.calls[index] if index < len(obs.calls) else (obs.expected[0] if obs.expected else "")
    return tool, bare


def _arguments(obs: Observed) -> Iterator[PatternKey]:
    for wrong in obs.verdict.get("wrong") or []:
        if not isinstance(wrong, dict) or wrong.get("note"):
            continue  # a tolerant key's other value does not fail the case
        tool, bare = _tool_and_key(obs, wrong.get("key"))
        yield key(
            obs.model,
            "argument",
            tool=tool,
            key=bare,
            shape=_shape(wrong.get("expected"), wrong.get("actual")),
        )
    for name, shape in (("unexpected", "unknown_key"), ("missing", "dropped_key")):
        for raw in obs.verdict.get(name) or []:
            tool, bare = _tool_and_key(obs, raw)
            yield key(obs.model, "argument", tool=tool, key=bare, shape=shape)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _shape(expected: Any, actual: Any) -> str:
    """How a wrong value differs from the expected one."""
    if _is_number(expected) and isinstance(actual, str):
        return "number_as_string"
    if isinstance(expected, str) and _is_number(actual):
        return "string_as_number"
    if isinstance(expected, str) and isinstance(actual, str) and expected.casefold() == actual.casefold():
        return "case_changed"
    return "wrong_value"


def _write_before_read(obs: Observed) -> str | None:
    """The first write tool called before any read tool, when a read tool was offered."""
    if "read" not in obs.side_effects.values():
        return None
    for name in obs.all_calls:
        effect = obs.side_effects.get(name)
        if effect == "read":
            return None
        if effect == "write":
            return name
    return None


__all__ = [
    "ARGUMENT_WORDS",
    "PATTERN_KINDS",
    "Observed",
    "PatternKey",
    "blank_values",
    "describe",
    "failure_type",
    "key",
    "pattern_id",
    "patterns_of",
]
