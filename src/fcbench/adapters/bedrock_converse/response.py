"""Read Bedrock Converse responses into canonical turns (pure, never raises).

:func:`turn_from_blocks` reads an ``output.message.content`` array; the JSON path
(:func:`parse_response`) and the stream assembler (``stream.py``) both end there, so a streamed
turn reads like a non-streamed one.

* ``text`` blocks are joined into the turn's text; ``reasoningContent`` blocks are not text but
  are kept for replay; any other block (``image``, ``citationsContent``, ...) is
  ``unknown_content``.
* ``toolUse.input`` is a JSON document on this wire and is kept exactly as produced. A string
  ``input`` is parsed as JSON text and flagged ``arguments_type_mismatch``.
* ``stopReason``: ``tool_use`` without toolUse blocks, toolUse blocks with ``end_turn`` or
  ``stop_sequence``, and ``max_tokens`` with arguments that do not parse are
  ``finish_reason_mismatch``; ``guardrail_intervened`` and ``content_filtered`` are a refusal
  outcome (flagged when calls came with them); ``malformed_tool_use`` and
  ``malformed_model_output`` are ``malformed_call``. Other values are kept verbatim.
* Text holding JSON calls of offered tools is ``json_call_in_text``.
* Usage is ``inputTokens``/``outputTokens`` as reported. The response has no id (the request id
  is only a header), so ``response_id`` is None.
* The assistant turn keeps ``provider_state = {"bedrock-converse": {"content": [...]}}``: the
  content blocks, replayed unchanged.
* A body that is not a Converse response is a ``bad_response`` provider error; an error body
  (``{"message": ...}`` without ``output``) is a provider error by its ``__type``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.bedrock_converse.errors import error_outcome, error_type
from fcbench.adapters.bedrock_converse.request import SPELLING
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

REPLAYED_BLOCKS = frozenset({"reasoningContent"})
"""Block kinds that are not output text but must be replayed unchanged."""
REFUSAL_STOPS = frozenset({"guardrail_intervened", "content_filtered"})
"""``stopReason`` values that make the turn a refusal."""
MALFORMED_STOPS = frozenset({"malformed_tool_use", "malformed_model_output"})
"""``stopReason`` values that say the model produced a call Bedrock could not read."""


def read_usage(value: Any) -> Usage:
    """``inputTokens``/``outputTokens`` as canonical usage (null when absent)."""
    if not isinstance(value, dict):
        return Usage()
    return Usage(
        input_tokens=token_count(value.get("inputTokens")),
        output_tokens=token_count(value.get("outputTokens")),
    )


def _read_call(index: int, use: Any, raw_input: str | None, anomalies: list[Anomaly]) -> ToolCall:
    where = f"content[{index}].toolUse"
    if not isinstance(use, dict):
        raise BadResponse(f"{where} is not an object")
    name = use.get("name")
    if not isinstance(name, str):
        raise BadResponse(f"{where} without a string name")
    call_id = use.get("toolUseId")
    if call_id is not None and not isinstance(call_id, str):
        raise BadResponse(f"{where}.toolUseId is {type(call_id).__name__}, not a string")
    if raw_input is not None:
        return make_call(call_id, name, raw_input)
    if "input" not in use:
        return ToolCall(id=call_id, name=name, parse_error="input missing")
    value = use["input"]
    if isinstance(value, str):
        anomalies.append(anomaly("arguments_type_mismatch", f"{where} ({name}): input sent as a string"))
    return make_call(call_id, name, value)


def _finish_anomalies(stop_reason: str | None, calls: Sequence[ToolCall]) -> list[Anomaly]:
    if stop_reason in MALFORMED_STOPS:
        return [anomaly("malformed_call", f"stopReason {stop_reason!r}")]
    if calls and stop_reason in ("end_turn", "stop_sequence"):
        return [anomaly("finish_reason_mismatch", f"stopReason {stop_reason!r} beside toolUse blocks")]
    if calls and stop_reason == "max_tokens" and any(c.parse_error for c in calls):
        return [anomaly("finish_reason_mismatch", "stopReason 'max_tokens': tool input cut off")]
    if calls and stop_reason in REFUSAL_STOPS:
        return [anomaly("finish_reason_mismatch", f"stopReason {stop_reason!r} beside toolUse blocks")]
    if not calls and stop_reason == "tool_use":
        return [anomaly("finish_reason_mismatch", "stopReason 'tool_use' but no toolUse blocks")]
    return []


def turn_from_blocks(
    blocks: Any,
    stop_reason: Any,
    usage: Usage,
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
            raise BadResponse(f"stopReason is {type(stop_reason).__name__}, not a string")
        for index, block in enumerate(blocks):
            if not isinstance(block, dict):
                raise BadResponse(f"content[{index}] is {type(block).__name__}, not an object")
            if "text" in block:
                if not isinstance(block["text"], str):
                    raise BadResponse(f"content[{index}]: text block without a string text")
                texts.append(block["text"])
            elif "toolUse" in block:
                calls.append(_read_call(index, block["toolUse"], (raw_inputs or {}).get(index), found))
            elif not REPLAYED_BLOCKS & set(block):
                found.append(anomaly("unknown_content", f"content[{index}] of kind {sorted(block)[:3]}"))
    except BadResponse as exc:
        return bad_response(str(exc), found)
    return blocks_turn(
        SPELLING,
        blocks,
        "".join(texts),
        calls,
        stop_field="stopReason",
        stop_reason=stop_reason,
        refused=stop_reason in REFUSAL_STOPS,
        stop_anomalies=_finish_anomalies(stop_reason, calls),
        usage=usage,
        offered_tools=offered_tools,
        anomalies=found,
    )


def parse_response(body: Any, offered_tools: Sequence[str] | None = None) -> ParsedTurn:
    """Read one non-streamed Converse body (decoded JSON, or its text) into a turn."""
    body = decode_json_body(body)
    if not isinstance(body, dict):
        preview = body[:200] if isinstance(body, str) else type(body).__name__
        return bad_response(f"response body is not a JSON object: {preview!r}")
    output = body.get("output")
    if output is None and isinstance(body.get("message") or body.get("Message"), str):
        return ParsedTurn(outcome=error_outcome(error_type(body.get("__type")), body))
    if not isinstance(output, dict) or not isinstance(output.get("message"), dict):
        return bad_response(f"response has no output.message (keys: {sorted(body)[:12]})")
    message = output["message"]
    if "content" not in message:
        return bad_response("output.message has no content")
    return turn_from_blocks(
        message["content"], body.get("stopReason"), read_usage(body.get("usage")), offered_tools
    )
