"""Assemble an Anthropic Messages SSE stream into a canonical turn (protocols.md §3.4).

Events (named by their ``event:`` line and by the ``type`` in their data, which wins):
``message_start`` (id, usage), ``content_block_start``/``_delta``/``_stop`` per block ``index``,
``message_delta`` (``stop_reason``, cumulative usage), ``message_stop`` (the terminal event),
``ping`` (ignored) and ``error`` (a provider error, whatever came before).

``text_delta`` fragments are joined per block; ``input_json_delta.partial_json`` fragments are
joined per block and parsed once, when the stream is over (an empty join means the block's start
``input``, normally ``{}``). Data lines may carry padding spaces; they are plain JSON whitespace.
The assembled blocks go through the same reader as a JSON body. No ``message_stop`` is
``stream_incomplete``; unknown event or delta types are ``unknown_event``; a data line that is not
a JSON object is a ``bad_response`` provider error.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fcbench.adapters.anthropic_messages.errors import error_outcome
from fcbench.adapters.anthropic_messages.response import REPLY, bad_response, read_usage
from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.blocks import reply_turn
from fcbench.adapters.common import anomaly, token_count
from fcbench.contract import Anomaly


@dataclass
class _Block:
    start: dict[str, Any]
    text: list[str] = field(default_factory=list)
    json_parts: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    signature: str | None = None
    stopped: bool = False


@dataclass
class _Stream:
    anomalies: list[Anomaly] = field(default_factory=list)
    blocks: dict[int, _Block] = field(default_factory=dict)
    response_id: str | None = None
    reported_usage: dict[str, int] = field(default_factory=dict)
    """The usage counts of ``message_start`` and ``message_delta``, a later count replacing an
    earlier one (the delta's counts are cumulative)."""
    stop_reason: Any = None
    started: bool = False
    finished: bool = False
    error: dict[str, Any] | None = None

    def message_start(self, data: dict[str, Any]) -> None:
        self.started = True
        message = data.get("message")
        if not isinstance(message, dict):
            message = {}
        self.response_id = message.get("id") if isinstance(message.get("id"), str) else None
        self._usage(message.get("usage"))

    def _usage(self, value: Any) -> None:
        if isinstance(value, dict):
            counts = {key: token_count(count) for key, count in value.items()}
            self.reported_usage.update({key: n for key, n in counts.items() if n is not None})

    def _index(self, data: dict[str, Any], kind: str) -> int | None:
        index = data.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            self.anomalies.append(anomaly("unknown_event", f"{kind} without an integer index"))
            return None
        return index

    def content_block_start(self, data: dict[str, Any]) -> None:
        index = self._index(data, "content_block_start")
        block = data.get("content_block")
        if index is None:
            return
        if not isinstance(block, dict):
            self.anomalies.append(anomaly("unknown_event", f"content_block_start {index} without a block"))
            return
        self.blocks[index] = _Block(start=dict(block))

    def content_block_delta(self, data: dict[str, Any]) -> None:
        index = self._index(data, "content_block_delta")
        delta = data.get("delta")
        if index is None:
            return
        block = self.blocks.get(index)
        if block is None or not isinstance(delta, dict):
            self.anomalies.append(
                anomaly("unknown_event", f"content_block_delta for unstarted block {index}")
            )
            return
        handler = _DELTAS.get(str(delta.get("type")))
        if handler is None:
            self.anomalies.append(
                anomaly("unknown_event", f"delta type {delta.get('type')!r} in block {index}")
            )
            return
        handler(block, delta)

    def content_block_stop(self, data: dict[str, Any]) -> None:
        index = self._index(data, "content_block_stop")
        if index is not None and index in self.blocks:
            self.blocks[index].stopped = True

    def message_delta(self, data: dict[str, Any]) -> None:
        delta = data.get("delta")
        if isinstance(delta, dict) and "stop_reason" in delta:
            self.stop_reason = delta["stop_reason"]
        self._usage(data.get("usage"))

    def message_stop(self, data: dict[str, Any]) -> None:
        self.finished = True

    def ping(self, data: dict[str, Any]) -> None:
        """Keep-alive; carries nothing."""

    def error_event(self, data: dict[str, Any]) -> None:
        self.error = data

    def content(self) -> tuple[list[dict[str, Any]], dict[int, str]]:
        """The assembled ``content`` array and the streamed argument text per tool_use position."""
        content: list[dict[str, Any]] = []
        raw_inputs: dict[int, str] = {}
        for position, index in enumerate(sorted(self.blocks)):
            block = self.blocks[index]
            wire = dict(block.start)
            kind = wire.get("type")
            if kind == "text":
                wire["text"] = str(wire.get("text") or "") + "".join(block.text)
            elif kind == "thinking":
                wire["thinking"] = str(wire.get("thinking") or "") + "".join(block.thinking)
                if block.signature is not None:
                    wire["signature"] = block.signature
            elif kind == "tool_use" and "".join(block.json_parts).strip():
                raw = "".join(block.json_parts)
                raw_inputs[position] = raw
                try:
                    wire["input"] = json.loads(raw)
                except (ValueError, RecursionError):
                    wire["input"] = {}
            content.append(wire)
        return content, raw_inputs


def _text_delta(block: _Block, delta: dict[str, Any]) -> None:
    block.text.append(str(delta.get("text") or ""))


def _json_delta(block: _Block, delta: dict[str, Any]) -> None:
    block.json_parts.append(str(delta.get("partial_json") or ""))


def _thinking_delta(block: _Block, delta: dict[str, Any]) -> None:
    block.thinking.append(str(delta.get("thinking") or ""))


def _signature_delta(block: _Block, delta: dict[str, Any]) -> None:
    block.signature = str(delta.get("signature") or "")


def _ignored_delta(block: _Block, delta: dict[str, Any]) -> None:
    """Deltas that add nothing the canonical turn carries (citations)."""


_DELTAS: dict[str, Callable[[_Block, dict[str, Any]], None]] = {
    "text_delta": _text_delta,
    "input_json_delta": _json_delta,
    "thinking_delta": _thinking_delta,
    "signature_delta": _signature_delta,
    "citations_delta": _ignored_delta,
}

_EVENTS: dict[str, Callable[[_Stream, dict[str, Any]], None]] = {
    "message_start": _Stream.message_start,
    "content_block_start": _Stream.content_block_start,
    "content_block_delta": _Stream.content_block_delta,
    "content_block_stop": _Stream.content_block_stop,
    "message_delta": _Stream.message_delta,
    "message_stop": _Stream.message_stop,
    "ping": _Stream.ping,
    "error": _Stream.error_event,
}


def parse_stream(
    events: Iterable[tuple[str | None, str]], offered_tools: Sequence[str] | None = None
) -> ParsedTurn:
    """Assemble ``(event, data)`` pairs of one Messages stream into a turn."""
    state = _Stream()
    for number, (name, data) in enumerate(events):
        try:
            payload = json.loads(data)
        except (ValueError, RecursionError):
            return bad_response(
                f"stream event {number} ({name}): data is not JSON: {data[:200]!r}", state.anomalies
            )
        if not isinstance(payload, dict):
            return bad_response(f"stream event {number} ({name}): data is not a JSON object", state.anomalies)
        kind = payload.get("type") if isinstance(payload.get("type"), str) else name
        handler = _EVENTS.get(kind or "")
        if handler is None:
            state.anomalies.append(anomaly("unknown_event", f"event {number}: {kind!r}"))
            continue
        handler(state, payload)
        if state.error is not None:
            return ParsedTurn(outcome=error_outcome(state.error), anomalies=state.anomalies)
    if not state.finished:
        state.anomalies.append(anomaly("stream_incomplete", "the stream ended without message_stop"))
    if not state.started and not state.blocks:
        return bad_response("the stream carried no message", state.anomalies)
    content, raw_inputs = state.content()
    usage = read_usage(state.reported_usage)
    return reply_turn(
        REPLY,
        content,
        state.stop_reason,
        usage,
        offered_tools,
        raw_inputs,
        state.anomalies,
        state.response_id,
    )
