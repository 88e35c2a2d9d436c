"""Read Anthropic Messages responses into canonical turns (protocols.md §3.2; pure, never raises).

:func:`turn_from_blocks` reads a ``content`` array; the JSON path (:func:`parse_response`) and the
stream assembler (``stream.py``) both end there, so a streamed turn reads like a non-streamed one.

* ``text`` blocks are joined into the turn's text; ``thinking`` and ``redacted_thinking`` blocks
  are not text but are kept for replay; any other block type is ``unknown_content``.
* ``tool_use`` ``input`` is an object on this wire and is kept exactly as produced. A string
  ``input`` is parsed as JSON text and flagged ``arguments_type_mismatch``.
* ``stop_reason``: ``tool_use`` without tool_use blocks, tool_use blocks with ``end_turn`` or
  ``stop_sequence``, and ``max_tokens`` with arguments that do not parse are
  ``finish_reason_mismatch``; ``refusal`` is a refusal outcome (flagged when calls came with it).
* Text holding JSON calls of offered tools is ``json_call_in_text``
  (:func:`fcbench.contract.text_calls.calls_in_text`).
* Usage is ``input_tokens``/``output_tokens`` as reported (``input_tokens`` excludes cache reads
  and writes on this wire).
* A body that is not a message is a ``bad_response`` provider error; an error body is a provider
  error by its ``error.type``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fcbench.adapters.anthropic_messages.errors import error_object, error_outcome
from fcbench.adapters.anthropic_messages.request import SPELLING
from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.blocks import blocks_turn
from fcbench.adapters.common import (
    BadResponse,
    anomaly,
    bad_response,
    decode_json_body,
    token_count,
)
from fcbench.contract import (
    Anomaly,
    ToolCall,
    Usage,
    make_call,
)

REPLAYED_BLOCKS = frozenset({"thinking", "redacted_thinking"})
"""Block types that are not output text but must be replayed unchanged."""


def read_usage(value: Any) -> Usage:
    """``input_tokens``/``output_tokens`` as canonical usage (null when absent)."""
    if not isinstance(value, dict):
        return Usage()
    return Usage(
        input_tokens=token_count(value.get("input_tokens")),
        output_tokens=token_count(value.get("output_tokens")),
    )


def _read_call(
    index: int, block: Mapping[str, Any], raw_input: str | None, anomalies: list[Anomaly]
) -> ToolCall:
    where = f"content[{index}]"
    name = block.get("name")
    if not isinstance(name, str):
        raise BadResponse(f"{where}: tool_use without a string name")
    call_id = block.get("id")
    if call_id is not None and not isinstance(call_id, str):
        raise BadResponse(f"{where}: tool_use id is {type(call_id).__name__}, not a string")
    if raw_input is not None:
        return make_call(call_id, name, raw_input)
    if "input" not in block:
        return ToolCall(id=call_id, name=name, parse_error="input missing")
    value = block["input"]
    if isinstance(value, str):
        anomalies.append(anomaly("arguments_type_mismatch", f"{where} ({name}): input sent as a string"))
    return make_call(call_id, name, value)


def _finish_anomalies(stop_reason: str | None, calls: Sequence[ToolCall]) -> list[Anomaly]:
    if calls and stop_reason in ("end_turn", "stop_sequence"):
        return [anomaly("finish_reason_mismatch", f"stop_reason {stop_reason!r} beside tool_use blocks")]
    if calls and stop_reason == "max_tokens" and any(c.parse_error for c in calls):
        return [anomaly("finish_reason_mismatch", "stop_reason 'max_tokens': tool input cut off")]
    if calls and stop_reason == "refusal":
        return [anomaly("finish_reason_mismatch", "stop_reason 'refusal' beside tool_use blocks")]
    if not calls and stop_reason == "tool_use":
        return [anomaly("finish_reason_mismatch", "stop_reason 'tool_use' but no tool_use blocks")]
    return []


def turn_from_blocks(
    blocks: Any,
    stop_reason: Any,
    usage: Usage,
    response_id: str | None,
    offered_tools: Sequence[str] | None,
    raw_inputs: Mapping[int, str] | None = None,
    anomalies: Sequence[Anomaly] = (),
) -> ParsedTurn:
    """The canonical turn for one ``content`` array (JSON, or assembled from a stream).

    ``raw_inputs`` maps a block position to the argument text a stream delivered for it, which
    is parsed instead of the block's ``input``.
    """
    found = list(anomalies)
    texts: list[str] = []
    calls: list[ToolCall] = []
    try:
        if not isinstance(blocks, list):
            raise BadResponse(f"content is {type(blocks).__name__}, not an array")
        if stop_reason is not None and not isinstance(stop_reason, str):
            raise BadResponse(f"stop_reason is {type(stop_reason).__name__}, not a string")
        for index, block in enumerate(blocks):
            if not isinstance(block, dict):
                raise BadResponse(f"content[{index}] is {type(block).__name__}, not an object")
            kind = block.get("type")
            if kind == "text":
                if not isinstance(block.get("text"), str):
                    raise BadResponse(f"content[{index}]: text block without a string text")
                texts.append(block["text"])
            elif kind == "tool_use":
                calls.append(_read_call(index, block, (raw_inputs or {}).get(index), found))
            elif not (isinstance(kind, str) and kind in REPLAYED_BLOCKS):
                found.append(anomaly("unknown_content", f"content[{index}] of type {kind!r}"))
    except BadResponse as exc:
        return bad_response(str(exc), found)
    return blocks_turn(
        SPELLING,
        blocks,
        "".join(texts),
        calls,
        stop_field="stop_reason",
        stop_reason=stop_reason,
        refused=stop_reason == "refusal",
        stop_anomalies=_finish_anomalies(stop_reason, calls),
        usage=usage,
        offered_tools=offered_tools,
        anomalies=found,
        response_id=response_id,
    )


def parse_response(body: Any, offered_tools: Sequence[str] | None = None) -> ParsedTurn:
    """Read one non-streamed Messages body (decoded JSON, or its text) into a turn."""
    body = decode_json_body(body)
    if not isinstance(body, dict):
        preview = body[:200] if isinstance(body, str) else type(body).__name__
        return bad_response(f"response body is not a JSON object: {preview!r}")
    if body.get("type") == "error" or (error_object(body) is not None and "content" not in body):
        return ParsedTurn(outcome=error_outcome(body))
    if "content" not in body:
        return bad_response(f"response has no content (keys: {sorted(body)[:12]})")
    response_id = body.get("id") if isinstance(body.get("id"), str) else None
    return turn_from_blocks(
        body["content"], body.get("stop_reason"), read_usage(body.get("usage")), response_id, offered_tools
    )
