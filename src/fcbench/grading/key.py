"""A stable key for "the same outcome", used to measure stability across repeats."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from fcbench.contract import Outcome, ToolCallsOutcome, parse_outcome
from fcbench.grading.jsonvalues import canonical_json
from fcbench.grading.verdict import Verdict


def _decision(verdict: Verdict | Mapping[str, Any]) -> str:
    if isinstance(verdict, Verdict):
        return verdict.decision
    return str(verdict.get("decision", ""))


def normalised_outcome_key(outcome: Outcome | Mapping[str, Any], verdict: Verdict | Mapping[str, Any]) -> str:
    """A stable text key for an observation: ``"<decision>:<16 hex digits>"``.

    The digest covers the decision and, for tool calls, every call's name and canonical argument
    JSON (sorted keys, integral numbers written alike, calls sorted so their order does not
    matter; unparseable arguments contribute their raw text). Text is left out: two answers that
    reach the same decision in different words are the same outcome. Accepts models or their
    JSON dicts (as stored in records).
    """
    decision = _decision(verdict)
    parsed = parse_outcome(outcome)
    calls: list[str] = []
    if isinstance(parsed, ToolCallsOutcome):
        for call in parsed.calls:
            arguments: Any = call.arguments
            if call.parse_error is not None:
                arguments = {"unparsed": call.raw_arguments}
            calls.append(canonical_json([call.name, arguments]))
    payload = canonical_json({"decision": decision, "calls": sorted(calls)})
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]
    return f"{decision}:{digest}"
