"""The one key for "the same outcome": stability over repeats, compare and recovery all use it.

Two observations are the same outcome when they reach the same decision and make the same calls
with equal arguments, whatever the order of the calls or of the keys, and whether a number is
written ``750`` or ``750.0`` (the grader treats both alike). ``true`` is never ``1`` and ``"750"``
is never ``750``. Text is left out: two answers that reach the same decision in different words
are the same outcome.

Every "same outcome" question asks this key: repeats of one case (stability), the two modes
stream parity pairs, two runs (compare, replay), recovery's repeated calls (:func:`call_key`), and
compat's stream probe, which compares a streamed turn with its non-streamed twin before any
decision is taken (:func:`turn_key`: the turn's kind stands in for the decision).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from fcbench.contract import Outcome, ToolCall, ToolCallsOutcome, canonical_json
from fcbench.grading.verdict import Verdict

DecisionLike = Verdict | Mapping[str, Any] | str | None
"""A verdict model, a verdict dict (as stored in records), or the decision itself."""


def call_key(call: ToolCall | Mapping[str, Any]) -> str:
    """Canonical text of one call: its name and arguments (the raw text when they did not parse)."""
    data: Mapping[str, Any] = call.model_dump() if isinstance(call, ToolCall) else call
    name, arguments = data.get("name"), data.get("arguments")
    parse_error, raw = data.get("parse_error"), data.get("raw_arguments")
    return canonical_json([name, {"unparsed": raw} if parse_error is not None else arguments])


def _decision(verdict: DecisionLike) -> str:
    if isinstance(verdict, Verdict):
        return verdict.decision
    if isinstance(verdict, Mapping):
        return str(verdict.get("decision", ""))
    return verdict or ""


def _kind(outcome: Outcome | Mapping[str, Any]) -> str:
    if isinstance(outcome, Mapping):
        return str(outcome.get("kind", ""))
    return outcome.kind


def _calls(outcome: Outcome | Mapping[str, Any]) -> list[Any]:
    if isinstance(outcome, ToolCallsOutcome):
        return list(outcome.calls)
    if isinstance(outcome, Mapping) and outcome.get("kind") == "tool_calls":
        return list(outcome.get("calls") or [])
    return []


def normalised_outcome_key(outcome: Outcome | Mapping[str, Any], verdict: DecisionLike) -> str:
    """A stable text key for an observation: ``"<decision>:<16 hex digits>"``.

    The digest covers the decision and every call's :func:`call_key`, sorted so call order does
    not matter. Accepts models or their JSON dicts (as stored in records), and the verdict, its
    dict, or the decision string.
    """
    decision = _decision(verdict)
    calls = sorted(call_key(call) for call in _calls(outcome))
    payload = canonical_json({"decision": decision, "calls": calls})
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]
    return f"{decision}:{digest}"


def turn_key(outcome: Outcome | Mapping[str, Any]) -> str:
    """The outcome key of a turn compared without a verdict: ``"<kind>:<16 hex digits>"``.

    The outcome's kind (``tool_calls``, ``text``, ``refusal``, ``provider_error``) takes the
    decision's place in :func:`normalised_outcome_key`, and the calls are compared exactly as
    there: in any order, ``1`` equal to ``1.0``, the raw text when the arguments did not parse.
    """
    return normalised_outcome_key(outcome, _kind(outcome))
