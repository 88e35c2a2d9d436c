"""Read Chat Completions responses into canonical turns (pure; never raises on provider data).

One function, :func:`turn_from_message`, turns the assistant message of the first choice into a
:class:`~fcbench.adapters.base.ParsedTurn`; the JSON path (:func:`parse_response`) and the stream
assembler (``stream.py``) both end there, so a streamed turn reads exactly like a non-streamed one.
The outcome decision itself (:func:`assemble_turn`) and the call reader (:func:`call_from_wire`)
are shared with the Responses adapter.

Checks beyond the shared ones (:func:`fcbench.adapters.common.check_calls`):

* ``arguments`` that is not a string (an object, a number) is kept as it came and flagged
  ``arguments_type_mismatch``; a missing ``arguments`` is kept as null with a parse error;
* ``finish_reason: "tool_calls"`` (or legacy ``function_call``) without calls, ``length`` with an
  argument text that does not parse, and ``content_filter`` beside calls are ``finish_reason_mismatch``.
  ``stop`` with calls is normal (OpenAI answers a named ``tool_choice`` that way) and not flagged;
* ``message.refusal`` becomes a refusal outcome with a ``refusal_field`` anomaly; ``content_filter``
  with no calls is a refusal without that anomaly;
* text holding written calls (JSON, Python-style, call tags) is ``json_call_in_text``
  (:func:`fcbench.contract.text_calls.calls_in_text`);
* a body that is not a completion (not an object, no ``choices``, wrong types) is a
  ``bad_response`` provider error, and ``{"error": {...}}`` is a provider error by its code.
"""

from __future__ import annotations

from collections.abc import Sequence
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
from fcbench.adapters.openai_chat.errors import error_object, error_outcome
from fcbench.contract import (
    Anomaly,
    AssistantMessage,
    Outcome,
    RefusalOutcome,
    TextOutcome,
    ToolCall,
    ToolCallsOutcome,
    Usage,
    make_call,
)

USAGE = UsageFields(
    "prompt_tokens", ("completion_tokens",), cache_read=("prompt_tokens_details", "cached_tokens")
)
"""``prompt_tokens`` already counts ``prompt_tokens_details.cached_tokens``; no cache writes are reported."""


def read_usage(value: Any) -> Usage:
    """``prompt_tokens`` (cached part apart)/``completion_tokens`` as canonical usage (null when
    absent or not integers)."""
    return usage_of(value, USAGE)


def _content_text(content: Any, anomalies: list[Anomaly]) -> str | None:
    """Message content as text: a string, or the text parts of a content-part array."""
    if content is None or isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise BadResponse(f"message.content is {type(content).__name__}, not a string")
    texts: list[str] = []
    for index, part in enumerate(content):
        if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        else:
            kind = part.get("type") if isinstance(part, dict) else type(part).__name__
            anomalies.append(anomaly("unknown_content", f"content part {index} of type {kind!r}"))
    return "".join(texts)


MISSING: Any = object()
"""Marks a wire field that was absent (as opposed to present and null)."""


def call_from_wire(where: str, call_id: Any, name: Any, raw: Any, anomalies: list[Anomaly]) -> ToolCall:
    """A canonical call from wire fields; arguments parsed, never repaired.

    A string is parsed; any other value is kept and flagged ``arguments_type_mismatch``; absent or
    null arguments become a call with null arguments and a parse error. A missing name or a
    non-string id means the body is malformed.
    """
    if not isinstance(name, str):
        raise BadResponse(f"{where}: name is missing or not a string")
    if call_id is not None and not isinstance(call_id, str):
        raise BadResponse(f"{where}: id is {type(call_id).__name__}, not a string")
    if raw is MISSING or raw is None:
        return ToolCall(id=call_id, name=name, parse_error="arguments missing")
    if not isinstance(raw, str):
        anomalies.append(
            anomaly("arguments_type_mismatch", f"{where} ({name}): arguments sent as {type(raw).__name__}")
        )
    return make_call(call_id, name, raw)


def _read_call(index: int, item: Any, anomalies: list[Anomaly]) -> ToolCall | None:
    where = f"message.tool_calls[{index}]"
    if not isinstance(item, dict):
        raise BadResponse(f"{where} is {type(item).__name__}, not an object")
    kind = item.get("type", "function")
    if kind != "function":
        anomalies.append(anomaly("unknown_content", f"{where} has type {kind!r}; not a function call"))
        return None
    function = item.get("function")
    if not isinstance(function, dict):
        raise BadResponse(f"{where}.function is missing or not an object")
    return call_from_wire(
        where, item.get("id"), function.get("name"), function.get("arguments", MISSING), anomalies
    )


def cut_off(call: ToolCall) -> bool:
    """True when a call's argument text is empty or does not parse (as when output hit the limit)."""
    return call.parse_error is not None or (call.raw_arguments or "").strip() == ""


def _finish_anomalies(finish_reason: str | None, calls: Sequence[ToolCall]) -> list[Anomaly]:
    if calls:
        if finish_reason == "length" and any(cut_off(c) for c in calls):
            return [
                anomaly(
                    "finish_reason_mismatch", "finish_reason 'length': argument text cut off at the limit"
                )
            ]
        if finish_reason == "content_filter":
            return [anomaly("finish_reason_mismatch", "finish_reason 'content_filter' beside tool calls")]
        return []
    if finish_reason in ("tool_calls", "function_call"):
        return [anomaly("finish_reason_mismatch", f"finish_reason {finish_reason!r} but no tool calls")]
    return []


def assemble_turn(
    *,
    calls: list[ToolCall],
    text: str | None,
    refusal: str | None,
    filtered: bool,
    finish_reason: str | None,
    anomalies: list[Anomaly],
    usage: Usage,
    response_id: str | None,
    offered_tools: Sequence[str] | None,
    provider_state: dict[str, Any] | None = None,
) -> ParsedTurn:
    """Decide the outcome of a read turn and add the dialect-independent anomalies.

    Calls win over text; otherwise a refusal field, then a content filter (``filtered``), make a
    refusal; otherwise text (empty text is ``empty_response``; a JSON call in it is flagged).
    ``anomalies`` holds what reading the wire already found and is extended in place.
    """
    anomalies.extend(check_calls(calls, offered_tools))
    outcome: Outcome
    if refusal:
        anomalies.append(anomaly("refusal_field", refusal[:200]))
    if calls:
        outcome = ToolCallsOutcome(calls=calls, text=text or None)
    elif refusal:
        outcome = RefusalOutcome(text=refusal)
    elif filtered:
        outcome = RefusalOutcome(text=text or None)
    else:
        outcome = TextOutcome(text=text or "")
        if not text:
            anomalies.append(anomaly("empty_response", f"finish reason {finish_reason!r}"))
        elif (in_text := text_call_anomaly(text, offered_tools)) is not None:
            anomalies.append(in_text)
    content = text or (refusal if not calls else None) or None
    return ParsedTurn(
        outcome=outcome,
        anomalies=anomalies,
        usage=usage,
        finish_reason=finish_reason,
        assistant=AssistantMessage(content=content, calls=calls, provider_state=provider_state),
        response_id=response_id,
    )


def turn_from_message(
    message: Any,
    finish_reason: Any,
    usage: Usage,
    response_id: str | None,
    offered_tools: Sequence[str] | None,
) -> ParsedTurn:
    """The canonical turn for one assistant ``message`` of a completion (JSON or assembled stream)."""
    anomalies: list[Anomaly] = []
    try:
        if not isinstance(message, dict):
            raise BadResponse(f"choices[0].message is {type(message).__name__}, not an object")
        if finish_reason is not None and not isinstance(finish_reason, str):
            raise BadResponse(f"finish_reason is {type(finish_reason).__name__}, not a string")
        text = _content_text(message.get("content"), anomalies)
        refusal = message.get("refusal")
        if refusal is not None and not isinstance(refusal, str):
            raise BadResponse(f"message.refusal is {type(refusal).__name__}, not a string")
        raw_calls = message.get("tool_calls")
        if raw_calls is not None and not isinstance(raw_calls, list):
            raise BadResponse(f"message.tool_calls is {type(raw_calls).__name__}, not an array")
        calls = [c for i, item in enumerate(raw_calls or []) if (c := _read_call(i, item, anomalies))]
    except BadResponse as exc:
        return bad_response(str(exc), anomalies)
    if message.get("function_call") is not None:
        anomalies.append(anomaly("unknown_content", "legacy message.function_call (functions API) ignored"))
    anomalies.extend(_finish_anomalies(finish_reason, calls))
    return assemble_turn(
        calls=calls,
        text=text,
        refusal=refusal,
        filtered=finish_reason == "content_filter",
        finish_reason=finish_reason,
        anomalies=anomalies,
        usage=usage,
        response_id=response_id,
        offered_tools=offered_tools,
    )


def parse_response(body: Any, offered_tools: Sequence[str] | None = None) -> ParsedTurn:
    """Read one non-streamed ``chat.completion`` body (decoded JSON, or its text) into a turn."""
    body = decode_json_body(body)
    if not isinstance(body, dict):
        preview = body[:200] if isinstance(body, str) else type(body).__name__
        return bad_response(f"response body is not a JSON object: {preview!r}")
    error = error_object(body)
    if error is not None:
        return ParsedTurn(outcome=error_outcome(error))
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        return bad_response(f"response has no choices (keys: {sorted(body)[:12]})")
    choice = choices[0]
    if not isinstance(choice, dict):
        return bad_response(f"choices[0] is {type(choice).__name__}, not an object")
    response_id = body.get("id") if isinstance(body.get("id"), str) else None
    return turn_from_message(
        choice.get("message"),
        choice.get("finish_reason"),
        read_usage(body.get("usage")),
        response_id,
        offered_tools,
    )
