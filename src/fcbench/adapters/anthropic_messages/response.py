"""Read Anthropic Messages responses into canonical turns (protocols.md §3.2; pure, never raises).

:data:`REPLY` says how a ``content`` array is read (by :func:`fcbench.adapters.blocks.reply_turn`);
the JSON path (:func:`parse_response`) and the stream assembler (``stream.py``) both end there,
so a streamed turn reads like a non-streamed one.

* ``text`` blocks are joined into the turn's text; ``thinking`` and ``redacted_thinking`` blocks
  are not text but are kept for replay; any other block type is ``unknown_content``.
* ``tool_use`` ``input`` is an object on this wire and is kept exactly as produced. A string
  ``input`` is parsed as JSON text and flagged ``arguments_type_mismatch``.
* ``stop_reason``: ``tool_use`` without tool_use blocks, tool_use blocks with ``end_turn`` or
  ``stop_sequence``, and ``max_tokens`` with arguments that do not parse are
  ``finish_reason_mismatch``; ``refusal`` is a refusal outcome (flagged when calls came with it).
* Text holding written calls (JSON, Python-style, call tags) is ``json_call_in_text``
  (:func:`fcbench.contract.text_calls.calls_in_text`).
* Usage: ``input_tokens`` excludes cache reads and writes on this wire, so canonical input is
  ``input_tokens + cache_read_input_tokens + cache_creation_input_tokens`` (both parts also kept
  apart); ``output_tokens`` out.
* A body that is not a message is a ``bad_response`` provider error; an error body is a provider
  error by its ``error.type``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fcbench.adapters.anthropic_messages.errors import error_object, error_outcome
from fcbench.adapters.anthropic_messages.request import SPELLING
from fcbench.adapters.base import ParsedTurn
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

REPLAYED_BLOCKS = frozenset({"thinking", "redacted_thinking"})
"""Block types that are not output text but must be replayed unchanged."""


USAGE = UsageFields(
    "input_tokens",
    ("output_tokens",),
    cache_read=("cache_read_input_tokens",),
    cache_creation=("cache_creation_input_tokens",),
    cache_apart=True,
)
"""This wire's ``input_tokens`` leaves cache reads and writes out; canonical input adds them back."""


def read_usage(value: Any) -> Usage:
    """Canonical usage: input plus cache reads and writes in, ``output_tokens`` out (null when absent)."""
    return usage_of(value, USAGE)


def _kind_of(block: dict[str, Any]) -> BlockKind:
    kind = block.get("type")
    if kind == "text":
        return "text", block.get("text")
    if kind == "tool_use":
        return "use", block
    return (
        ("replayed", None)
        if isinstance(kind, str) and kind in REPLAYED_BLOCKS
        else ("unknown", f"type {kind!r}")
    )


REPLY = ReplySpelling(
    spelling=SPELLING,
    stop_field="stop_reason",
    use_kind="tool_use",
    id_key="id",
    kind_of=_kind_of,
    refusals=frozenset({"refusal"}),
)
"""How a Messages reply spells its blocks and stop reasons."""


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
    usage = read_usage(body.get("usage"))
    return reply_turn(
        REPLY, body["content"], body.get("stop_reason"), usage, offered_tools, response_id=response_id
    )
