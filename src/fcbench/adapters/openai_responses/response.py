"""Read Responses API ``response`` objects into canonical turns (pure; never raises on provider data).

The Responses API has no finish reason: a turn is read from ``status``,
``incomplete_details.reason`` and the ``output`` items. ``ParsedTurn.finish_reason`` carries the
status verbatim, or the incomplete reason (``max_output_tokens``, ``content_filter``) when the
status is ``incomplete``.

* ``function_call`` items are calls; the canonical id is ``call_id`` (the id echoed back), not the
  item id ``fc_…``; a non-string ``arguments`` is kept and flagged ``arguments_type_mismatch``;
* ``message`` items give text (``output_text`` parts) and refusals (``refusal`` parts, a refusal
  outcome plus a ``refusal_field`` anomaly); other parts are ``unknown_content``;
* ``reasoning`` items are kept only for replay; any other item type is ``unknown_content``;
* ``status: failed`` (or any ``error`` object) is a provider error by its code; ``incomplete``
  at the token limit with unparseable arguments, a content filter beside calls, or an unfinished
  status (``in_progress``, ``queued``, ``cancelled``) is ``finish_reason_mismatch``;
* the raw ``output`` list goes in ``assistant.provider_state`` so the next request can replay it.
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
    decode_json_body,
    usage_of,
)
from fcbench.adapters.openai_chat.errors import error_object, error_outcome
from fcbench.adapters.openai_chat.response import (
    MISSING,
    assemble_turn,
    call_from_wire,
    cut_off,
)
from fcbench.adapters.openai_responses.request import STATE_KEY
from fcbench.contract import Anomaly, ProviderErrorOutcome, ToolCall, Usage

UNFINISHED = frozenset({"in_progress", "queued", "cancelled"})
"""Statuses that should never end a turn."""


USAGE = UsageFields("input_tokens", ("output_tokens",), cache_read=("input_tokens_details", "cached_tokens"))
"""``input_tokens`` already counts ``input_tokens_details.cached_tokens``; no cache writes are reported."""


def read_usage(value: Any) -> Usage:
    """``input_tokens`` (cached part apart)/``output_tokens`` as canonical usage (null when absent
    or not integers)."""
    return usage_of(value, USAGE)


class _Reading:
    """Calls, text and refusals gathered from the ``output`` items of one response."""

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []
        self.text: list[str] = []
        self.refusal: list[str] = []
        self.anomalies: list[Anomaly] = []

    def message(self, where: str, item: dict[str, Any]) -> None:
        content = item.get("content")
        if isinstance(content, str):
            self.text.append(content)
            return
        if not isinstance(content, list):
            raise BadResponse(f"{where}.content is {type(content).__name__}, not an array")
        for index, part in enumerate(content):
            kind = part.get("type") if isinstance(part, dict) else type(part).__name__
            if kind == "output_text" and isinstance(part.get("text"), str):
                self.text.append(part["text"])
            elif kind == "refusal" and isinstance(part.get("refusal"), str):
                self.refusal.append(part["refusal"])
            else:
                self.anomalies.append(
                    anomaly("unknown_content", f"{where}.content[{index}] of type {kind!r}")
                )

    def item(self, index: int, item: Any) -> None:
        where = f"output[{index}]"
        if not isinstance(item, dict):
            raise BadResponse(f"{where} is {type(item).__name__}, not an object")
        kind = item.get("type")
        if kind == "function_call":
            call = call_from_wire(
                where, item.get("call_id"), item.get("name"), item.get("arguments", MISSING), self.anomalies
            )
            self.calls.append(call)
        elif kind == "message" or (kind is None and item.get("role") == "assistant"):
            self.message(where, item)
        elif kind != "reasoning":
            self.anomalies.append(anomaly("unknown_content", f"{where} is an item of type {kind!r}"))


def _finish(status: Any, details: Any) -> str | None:
    if not isinstance(status, str):
        return None
    if status == "incomplete" and isinstance(details, dict) and isinstance(details.get("reason"), str):
        return str(details["reason"])
    return status


def _status_anomalies(status: Any, finish: str | None, calls: Sequence[ToolCall]) -> list[Anomaly]:
    if isinstance(status, str) and status in UNFINISHED:
        return [anomaly("finish_reason_mismatch", f"status {status!r} on a returned response")]
    if calls and finish == "max_output_tokens" and any(cut_off(c) for c in calls):
        return [anomaly("finish_reason_mismatch", "incomplete at max_output_tokens: argument text cut off")]
    if calls and finish == "content_filter":
        return [anomaly("finish_reason_mismatch", "incomplete by content_filter beside function calls")]
    return []


def parse_response(body: Any, offered_tools: Sequence[str] | None = None) -> ParsedTurn:
    """Read one ``response`` object (decoded JSON, or its text) into a canonical turn."""
    body = decode_json_body(body)
    if not isinstance(body, dict):
        preview = body[:200] if isinstance(body, str) else type(body).__name__
        return bad_response(f"response body is not a JSON object: {preview!r}")
    response_id = body.get("id") if isinstance(body.get("id"), str) else None
    usage = read_usage(body.get("usage"))
    error = error_object(body)
    if error is not None:
        return ParsedTurn(outcome=error_outcome(error), usage=usage, response_id=response_id)
    status = body.get("status")
    if status == "failed":
        outcome = ProviderErrorOutcome(
            code="server", message="response status 'failed' without an error object"
        )
        return ParsedTurn(outcome=outcome, usage=usage, response_id=response_id)
    output = body.get("output")
    if not isinstance(output, list):
        return bad_response(f"response has no output array (keys: {sorted(body)[:12]})")
    reading = _Reading()
    try:
        for index, item in enumerate(output):
            reading.item(index, item)
    except BadResponse as exc:
        return bad_response(str(exc), reading.anomalies)
    finish = _finish(status, body.get("incomplete_details"))
    reading.anomalies.extend(_status_anomalies(status, finish, reading.calls))
    return assemble_turn(
        calls=reading.calls,
        text="".join(reading.text) if reading.text else None,
        refusal="".join(reading.refusal) if reading.refusal else None,
        filtered=finish == "content_filter",
        finish_reason=finish,
        anomalies=reading.anomalies,
        usage=usage,
        response_id=response_id,
        offered_tools=offered_tools,
        provider_state={STATE_KEY: output},
    )
