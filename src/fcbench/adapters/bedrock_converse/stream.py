"""Assemble a Bedrock ``ConverseStream`` into a canonical turn.

The transport decodes the AWS event-stream frames (:mod:`fcbench.adapters.eventstream`) into
``(event name, payload text)`` pairs: the name is the frame's ``:event-type``, or
``exception:<type>`` (``error:<code>``) for an exception (error) frame. Events:
``messageStart`` (role), ``contentBlockStart`` (``start.toolUse`` with ``toolUseId`` and
``name``; text blocks have none), ``contentBlockDelta`` (``delta.text``,
``delta.toolUse.input`` as a fragment of JSON text, ``delta.reasoningContent``),
``contentBlockStop``, ``messageStop`` (``stopReason``) and ``metadata`` (``usage``, ``metrics``;
the last event). Blocks are keyed by ``contentBlockIndex``; fields the turn does not use (such as
the ``p`` padding real streams carry) are ignored.

Input fragments are joined per block and parsed once, when the stream is over (an empty join is
``{}``). The assembled blocks go through the same reader as a JSON body. An exception frame is a
provider error by its type (:mod:`.errors`), whatever came before. No ``messageStop`` is
``stream_incomplete``; an unknown event or delta kind is ``unknown_event``; a payload that is not
a JSON object is a ``bad_response`` provider error.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.bedrock_converse.errors import exception_outcome
from fcbench.adapters.bedrock_converse.response import REPLY, bad_response, read_usage
from fcbench.adapters.blocks import reply_turn
from fcbench.adapters.common import anomaly
from fcbench.contract import Anomaly, ProviderErrorOutcome, Usage

ERROR_EVENT_PREFIXES = ("exception:", "error:")
"""Event-name prefixes of frames that report a failure rather than carry the answer (the
transport's names for ``:message-type`` ``exception`` and ``error`` frames)."""


@dataclass
class _Block:
    tool_use: dict[str, Any] | None = None
    """The ``start.toolUse`` of a tool block (None: a text or reasoning block)."""
    text: list[str] = field(default_factory=list)
    input_parts: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    signature: str | None = None


@dataclass
class _Stream:
    anomalies: list[Anomaly] = field(default_factory=list)
    blocks: dict[int, _Block] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    stop_reason: Any = None
    started: bool = False
    finished: bool = False

    def _index(self, data: dict[str, Any], kind: str) -> int | None:
        index = data.get("contentBlockIndex")
        if not isinstance(index, int) or isinstance(index, bool):
            self.anomalies.append(anomaly("unknown_event", f"{kind} without an integer contentBlockIndex"))
            return None
        return index

    def message_start(self, data: dict[str, Any]) -> None:
        self.started = True

    def block_start(self, data: dict[str, Any]) -> None:
        index = self._index(data, "contentBlockStart")
        start = data.get("start")
        if index is None:
            return
        tool_use = start.get("toolUse") if isinstance(start, dict) else None
        if not isinstance(tool_use, dict):
            self.anomalies.append(
                anomaly("unknown_event", f"contentBlockStart {index} without start.toolUse")
            )
            return
        self.blocks[index] = _Block(tool_use=dict(tool_use))

    def block_delta(self, data: dict[str, Any]) -> None:
        index = self._index(data, "contentBlockDelta")
        delta = data.get("delta")
        if index is None:
            return
        if not isinstance(delta, dict):
            self.anomalies.append(anomaly("unknown_event", f"contentBlockDelta {index} without a delta"))
            return
        block = self.blocks.setdefault(index, _Block())  # text blocks start with their first delta
        for kind, value in delta.items():
            handler = _DELTAS.get(kind)
            if handler is None:
                self.anomalies.append(anomaly("unknown_event", f"delta kind {kind!r} in block {index}"))
                continue
            handler(block, value)

    def block_stop(self, data: dict[str, Any]) -> None:
        self._index(data, "contentBlockStop")

    def message_stop(self, data: dict[str, Any]) -> None:
        self.finished = True
        self.stop_reason = data.get("stopReason")

    def metadata(self, data: dict[str, Any]) -> None:
        self.usage = read_usage(data.get("usage"))

    def content(self) -> tuple[list[dict[str, Any]], dict[int, str]]:
        """The assembled ``content`` array and the streamed input text per toolUse position."""
        content: list[dict[str, Any]] = []
        raw_inputs: dict[int, str] = {}
        for position, index in enumerate(sorted(self.blocks)):
            block = self.blocks[index]
            if block.tool_use is not None:
                use = dict(block.tool_use)
                raw = "".join(block.input_parts)
                if raw.strip():
                    raw_inputs[position] = raw
                    try:
                        use["input"] = json.loads(raw)
                    except (ValueError, RecursionError):
                        use["input"] = {}
                else:
                    use["input"] = {}
                content.append({"toolUse": use})
            elif block.reasoning or block.signature is not None:
                reasoning: dict[str, Any] = {"text": "".join(block.reasoning)}
                if block.signature is not None:
                    reasoning["signature"] = block.signature
                content.append({"reasoningContent": {"reasoningText": reasoning}})
            else:
                content.append({"text": "".join(block.text)})
        return content, raw_inputs


def _text_delta(block: _Block, value: Any) -> None:
    block.text.append(value if isinstance(value, str) else "")


def _tool_use_delta(block: _Block, value: Any) -> None:
    fragment = value.get("input") if isinstance(value, dict) else None
    block.input_parts.append(fragment if isinstance(fragment, str) else "")


def _reasoning_delta(block: _Block, value: Any) -> None:
    if not isinstance(value, dict):
        return
    if isinstance(value.get("text"), str):
        block.reasoning.append(value["text"])
    if isinstance(value.get("signature"), str):
        block.signature = value["signature"]


def _ignored_delta(block: _Block, value: Any) -> None:
    """Deltas that add nothing the canonical turn carries (citations)."""


_DELTAS: dict[str, Callable[[_Block, Any], None]] = {
    "text": _text_delta,
    "toolUse": _tool_use_delta,
    "reasoningContent": _reasoning_delta,
    "citation": _ignored_delta,
}
"""``delta`` member -> how it extends its block."""

_EVENTS: dict[str, Callable[[_Stream, dict[str, Any]], None]] = {
    "messageStart": _Stream.message_start,
    "contentBlockStart": _Stream.block_start,
    "contentBlockDelta": _Stream.block_delta,
    "contentBlockStop": _Stream.block_stop,
    "messageStop": _Stream.message_stop,
    "metadata": _Stream.metadata,
}
"""``:event-type`` -> handler."""


def _failure(name: str, data: str, anomalies: list[Anomaly]) -> ParsedTurn:
    error: ProviderErrorOutcome = exception_outcome(name.partition(":")[2], data)
    return ParsedTurn(outcome=error, anomalies=anomalies)


def parse_stream(
    events: Iterable[tuple[str | None, str]], offered_tools: Sequence[str] | None = None
) -> ParsedTurn:
    """Assemble ``(event, data)`` pairs of one ConverseStream into a turn."""
    state = _Stream()
    for number, (name, data) in enumerate(events):
        if name is not None and name.startswith(ERROR_EVENT_PREFIXES):
            return _failure(name, data, state.anomalies)
        try:
            payload = json.loads(data)
        except (ValueError, RecursionError):
            return bad_response(
                f"stream event {number} ({name}): data is not JSON: {data[:200]!r}", state.anomalies
            )
        if not isinstance(payload, dict):
            return bad_response(f"stream event {number} ({name}): data is not a JSON object", state.anomalies)
        handler = _EVENTS.get(name or "")
        if handler is None:
            state.anomalies.append(anomaly("unknown_event", f"event {number}: {name!r}"))
            continue
        handler(state, payload)
    if not state.finished:
        state.anomalies.append(anomaly("stream_incomplete", "the stream ended without messageStop"))
    if not state.started and not state.blocks:
        return bad_response("the stream carried no message", state.anomalies)
    content, raw_inputs = state.content()
    return reply_turn(
        REPLY, content, state.stop_reason, state.usage, offered_tools, raw_inputs, state.anomalies
    )
