"""Read Bedrock Converse responses into canonical turns (pure, never raises).

:data:`REPLY` says how an ``output.message.content`` array is read (by
:func:`fcbench.adapters.blocks.reply_turn`); the JSON path (:func:`parse_response`) and the stream
assembler (``stream.py``) both end there, so a streamed turn reads like a non-streamed one.

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
* Usage: ``inputTokens`` excludes cache reads and writes on this wire, so canonical input is
  ``inputTokens + cacheReadInputTokens + cacheWriteInputTokens`` (both parts also kept apart).
  The response has no id (the request id is only a header), so ``response_id`` is None.
* The assistant turn keeps ``provider_state = {"bedrock-converse": {"content": [...]}}``: the
  content blocks, replayed unchanged.
* A body that is not a Converse response is a ``bad_response`` provider error; an error body
  (``{"message": ...}`` without ``output``) is a provider error by its ``__type``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.bedrock_converse.errors import error_outcome, error_type
from fcbench.adapters.bedrock_converse.request import SPELLING
from fcbench.adapters.blocks import BlockKind, ReplySpelling, reply_turn
from fcbench.adapters.common import (
    UsageFields,
    bad_response,
    decode_json_body,
    usage_of,
)
from fcbench.contract import (
    Usage,
)

REPLAYED_BLOCKS = frozenset({"reasoningContent"})
"""Block kinds that are not output text but must be replayed unchanged."""
REFUSAL_STOPS = frozenset({"guardrail_intervened", "content_filtered"})
"""``stopReason`` values that make the turn a refusal."""
MALFORMED_STOPS = frozenset({"malformed_tool_use", "malformed_model_output"})
"""``stopReason`` values that say the model produced a call Bedrock could not read."""


USAGE = UsageFields(
    "inputTokens",
    ("outputTokens",),
    cache_read=("cacheReadInputTokens",),
    cache_creation=("cacheWriteInputTokens",),
    cache_apart=True,
)
"""This wire's ``inputTokens`` leaves cache reads and writes out (``totalTokens`` is
``inputTokens + outputTokens + cacheReadInputTokens + cacheWriteInputTokens``); canonical input
adds them back."""


def read_usage(value: Any) -> Usage:
    """Canonical usage: input plus cache reads and writes in, ``outputTokens`` out (null when absent)."""
    return usage_of(value, USAGE)


def _kind_of(block: dict[str, Any]) -> BlockKind:
    if "text" in block:
        return "text", block["text"]
    if "toolUse" in block:
        return "use", block["toolUse"]
    return ("replayed", None) if REPLAYED_BLOCKS & set(block) else ("unknown", f"kind {sorted(block)[:3]}")


REPLY = ReplySpelling(
    spelling=SPELLING,
    stop_field="stopReason",
    use_kind="toolUse",
    id_key="toolUseId",
    kind_of=_kind_of,
    refusals=REFUSAL_STOPS,
    malformed=MALFORMED_STOPS,
)
"""How a Converse reply spells its blocks and stop reasons."""


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
    return reply_turn(
        REPLY, message["content"], body.get("stopReason"), read_usage(body.get("usage")), offered_tools
    )
