"""Read Gemini ``Interaction`` objects into canonical turns (protocols.md §4.6; pure, never raises).

An interaction lists ``steps``; the steps of this request's input (``user_input``,
``function_result``) may be echoed first, so the turn is read from the steps after the last of
them (the model's steps):

* ``model_output`` steps give text (``text`` content items; any other item is
  ``unknown_content``); ``function_call`` steps are calls, ``arguments`` an object as the API
  sends it (a string is parsed and flagged ``arguments_type_mismatch``; streamed argument text
  is the raw text); ``thought`` steps are kept for replay only; any other step type (built-in
  tools) is ``unknown_content``. A call without ``id`` stays id-less (``missing_call_id``).
* A ``model_output`` step carrying an ``error`` status is read by the reason of its ``ErrorInfo``
  detail through the ``gemini`` finish-reason table
  (:data:`fcbench.adapters.gemini.response.FINISH_KINDS`): ``SAFETY`` and the like are a refusal,
  ``MALFORMED_FUNCTION_CALL`` an anomaly; any other error is a provider error.
* ``status`` is the finish reason, verbatim. Calls pending are ``requires_action``: calls under
  ``completed``, ``requires_action`` without calls, or a status that should never end a turn
  (:data:`UNFINISHED`) is ``finish_reason_mismatch``. ``failed`` is a provider error (from
  ``errors[0]`` when given).
* Usage: ``total_input_tokens`` in (it counts ``total_cached_tokens``, also kept apart);
  ``total_output_tokens + total_thought_tokens`` out.
* The assistant turn keeps ``provider_state = {"gemini-interactions": {"steps": [...],
  "interaction_id": ...}}``: the model steps exactly as received, for stateless replay.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.common import (
    BadResponse,
    UsageFields,
    anomaly,
    bad_response,
    check_calls,
    decode_json_body,
    text_call_anomaly,
    usage_of,
)
from fcbench.adapters.gemini.errors import error_object
from fcbench.adapters.gemini.response import FINISH_KINDS
from fcbench.adapters.gemini_interactions.errors import interactions_error_outcome
from fcbench.adapters.gemini_interactions.request import DIALECT, STEPS_KEY
from fcbench.contract import (
    Anomaly,
    AssistantMessage,
    Outcome,
    ProviderErrorOutcome,
    RefusalOutcome,
    TextOutcome,
    ToolCall,
    ToolCallsOutcome,
    Usage,
    make_call,
)

INPUT_STEPS = frozenset({"user_input", "function_result"})
"""Step types that belong to the request's input (echoed before the model's steps)."""
UNFINISHED = frozenset({"in_progress", "queued", "cancelled", "idle"})
"""Statuses that should never end a returned turn."""
CALLS_PENDING = "requires_action"
"""The status of an interaction that ends with function calls for the client to run."""


USAGE = UsageFields(
    "total_input_tokens", ("total_output_tokens", "total_thought_tokens"), cache_read=("total_cached_tokens",)
)
"""``total_input_tokens`` already counts ``total_cached_tokens``; no cache writes are reported."""


def read_usage(value: Any) -> Usage:
    """``total_input_tokens`` in (cached part apart); output plus thought tokens out (null when
    neither is reported)."""
    return usage_of(value, USAGE)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def model_steps(steps: Sequence[Any]) -> list[Any]:
    """The steps after the last input step (all of them when none is echoed)."""
    last = max(
        (i for i, s in enumerate(steps) if isinstance(s, dict) and _text(s.get("type")) in INPUT_STEPS),
        default=-1,
    )
    return list(steps[last + 1 :])


def _reason(error: Mapping[str, Any]) -> str | None:
    details = error.get("details")
    for detail in details if isinstance(details, list) else []:
        if isinstance(detail, dict) and isinstance(detail.get("reason"), str):
            return str(detail["reason"])
    return None


@dataclass
class _Reading:
    """Calls, text and step errors gathered from the model steps of one interaction."""

    raw_arguments: Mapping[int, str]
    calls: list[ToolCall] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    refusal: str | None = None
    error: ProviderErrorOutcome | None = None
    anomalies: list[Anomaly] = field(default_factory=list)

    def call(self, where: str, index: int, step: dict[str, Any]) -> None:
        name, call_id = step.get("name"), step.get("id")
        if not isinstance(name, str):
            raise BadResponse(f"{where}: name is missing or not a string")
        if call_id is not None and not isinstance(call_id, str):
            raise BadResponse(f"{where}: id is {type(call_id).__name__}, not a string")
        call_id = call_id or None
        if index in self.raw_arguments:
            self.calls.append(make_call(call_id, name, self.raw_arguments[index]))
            return
        arguments = step.get("arguments")
        if arguments is None:
            self.calls.append(ToolCall(id=call_id, name=name, parse_error="arguments missing"))
            return
        if not isinstance(arguments, dict):
            kind = type(arguments).__name__
            self.anomalies.append(
                anomaly("arguments_type_mismatch", f"{where} ({name}): arguments sent as {kind}")
            )
        self.calls.append(make_call(call_id, name, arguments))

    def output(self, where: str, step: dict[str, Any]) -> None:
        content = step.get("content")
        if content is not None and not isinstance(content, list):
            raise BadResponse(f"{where}.content is {type(content).__name__}, not an array")
        texts: list[str] = []
        for position, item in enumerate(content or []):
            kind = item.get("type") if isinstance(item, dict) else type(item).__name__
            if kind == "text" and isinstance(item.get("text"), str):
                texts.append(item["text"])
            else:
                self.anomalies.append(
                    anomaly("unknown_content", f"{where}.content[{position}] of type {kind!r}")
                )
        self.text.extend(texts)
        error = step.get("error")
        if isinstance(error, dict):
            self.step_error(where, error, "".join(texts))

    def step_error(self, where: str, error: dict[str, Any], text: str) -> None:
        reason = _reason(error)
        kind = FINISH_KINDS.get(reason) if reason is not None else None
        message = str(error.get("message") or reason or "")
        if kind == "refusal":
            self.refusal = text or message or ""
        elif kind is not None and kind != "bad_request":
            self.anomalies.append(anomaly(kind, f"{where}: {reason}: {message}"[:500]))
        else:
            self.error = interactions_error_outcome(error)

    def step(self, index: int, step: Any) -> None:
        where = f"steps[{index}]"
        if not isinstance(step, dict):
            raise BadResponse(f"{where} is {type(step).__name__}, not an object")
        kind = step.get("type")
        if kind == "function_call":
            self.call(where, index, step)
        elif kind == "model_output":
            self.output(where, step)
        elif kind != "thought":
            self.anomalies.append(anomaly("unknown_content", f"{where} is a step of type {kind!r}"))


def _status_anomalies(status: Any, calls: Sequence[ToolCall]) -> list[Anomaly]:
    if isinstance(status, str) and status in UNFINISHED:
        return [anomaly("finish_reason_mismatch", f"status {status!r} on a returned interaction")]
    if calls and status == "completed":
        return [
            anomaly(
                "finish_reason_mismatch",
                f"status 'completed' beside function calls ({CALLS_PENDING} expected)",
            )
        ]
    if not calls and status == CALLS_PENDING:
        return [anomaly("finish_reason_mismatch", f"status {CALLS_PENDING!r} without a function call")]
    return []


def _failed(body: dict[str, Any]) -> ProviderErrorOutcome:
    errors = body.get("errors")
    first = errors[0] if isinstance(errors, list) and errors and isinstance(errors[0], dict) else None
    if first is None:
        return ProviderErrorOutcome(code="server", message="interaction status 'failed' without an error")
    return interactions_error_outcome(first)


def _outcome(reading: _Reading, text: str) -> Outcome:
    if reading.refusal is not None:
        if reading.calls:
            reading.anomalies.append(anomaly("finish_reason_mismatch", "a refusal beside function calls"))
        return RefusalOutcome(text=reading.refusal or None)
    if reading.calls:
        return ToolCallsOutcome(calls=reading.calls, text=text or None)
    if not text:
        reading.anomalies.append(anomaly("empty_response", "no text and no function call"))
    return TextOutcome(text=text)


def turn_from_interaction(
    body: dict[str, Any],
    offered_tools: Sequence[str] | None,
    anomalies: Sequence[Anomaly] = (),
    raw_arguments: Mapping[int, str] | None = None,
) -> ParsedTurn:
    """The canonical turn for one interaction object; ``raw_arguments`` holds streamed argument
    text by position in ``steps``, read instead of those steps' ``arguments``."""
    found = list(anomalies)
    interaction_id = body.get("id") if isinstance(body.get("id"), str) and body.get("id") else None
    usage = read_usage(body.get("usage"))
    status = body.get("status")
    finish = status if isinstance(status, str) else None
    if status == "failed":
        return ParsedTurn(
            outcome=_failed(body),
            anomalies=found,
            usage=usage,
            finish_reason=finish,
            response_id=interaction_id,
        )
    steps = body.get("steps")
    if steps is None:
        steps = []
    if not isinstance(steps, list):
        return bad_response(f"steps is {type(steps).__name__}, not an array", found)
    own = model_steps(steps)
    offset = len(steps) - len(own)
    shifted = {
        position - offset: text for position, text in (raw_arguments or {}).items() if position >= offset
    }
    reading = _Reading(raw_arguments=shifted, anomalies=found)
    try:
        for index, step in enumerate(own):
            reading.step(index, step)
    except BadResponse as exc:
        return bad_response(str(exc), reading.anomalies)
    if reading.error is not None:
        return ParsedTurn(
            outcome=reading.error,
            anomalies=found,
            usage=usage,
            finish_reason=finish,
            response_id=interaction_id,
        )
    text = "".join(reading.text)
    found.extend(_status_anomalies(status, reading.calls))
    found.extend(check_calls(reading.calls, offered_tools))
    outcome = _outcome(reading, text)
    in_text = text_call_anomaly(text, offered_tools) if isinstance(outcome, TextOutcome) else None
    if in_text is not None:
        found.append(in_text)
    state = {DIALECT: {STEPS_KEY: own, "interaction_id": interaction_id}}
    return ParsedTurn(
        outcome=outcome,
        anomalies=found,
        usage=usage,
        finish_reason=finish,
        assistant=AssistantMessage(content=text or None, calls=reading.calls, provider_state=state),
        response_id=interaction_id,
    )


def parse_response(body: Any, offered_tools: Sequence[str] | None = None) -> ParsedTurn:
    """Read one ``Interaction`` body (decoded JSON, or its text) into a canonical turn."""
    body = decode_json_body(body)
    error = error_object(body)
    if error is not None:
        return ParsedTurn(outcome=interactions_error_outcome(error))
    if not isinstance(body, dict):
        preview = body[:200] if isinstance(body, str) else type(body).__name__
        return bad_response(f"interaction body is not a JSON object: {preview!r}")
    if "status" not in body and "steps" not in body:
        return bad_response(f"not an interaction (keys: {sorted(body)[:12]})")
    return turn_from_interaction(body, offered_tools)
