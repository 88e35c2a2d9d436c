"""Assemble a Chat Completions SSE stream into one canonical turn (pure; never raises).

The stream is unnamed ``data:`` records, each a ``chat.completion.chunk``, ended by
``data: [DONE]``. Text and refusal deltas are concatenated; tool-call fragments are keyed by
``delta.tool_calls[i].index`` (the first fragment carries ``id`` and ``function.name``, every
fragment may add to ``function.arguments``); a fragment without an index continues the last call,
or opens a new one when it brings a new id. Arguments are parsed once, after the stream ends, by
the same code as a non-streamed response.

Deviations recorded: no ``[DONE]``, or no ``finish_reason`` before it (``stream_incomplete``);
records after ``[DONE]`` (``unknown_event``). A record before ``[DONE]`` that is not a JSON object
is a corrupted wire, not something the model did: the turn is a ``bad_response`` provider error
(coverage loss), as in every other dialect. An ``{"error": {...}}`` record ends the turn as a
provider error; a stream with no chunk at all is ``bad_response``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.common import anomaly
from fcbench.adapters.openai_chat.errors import error_object, error_outcome
from fcbench.adapters.openai_chat.response import bad_response, read_usage, turn_from_message
from fcbench.contract import Anomaly, Usage

DONE = "[DONE]"


@dataclass
class _CallParts:
    """Fragments of one streamed tool call."""

    id: str | None = None
    name: str | None = None
    kind: str | None = None
    text: list[str] = field(default_factory=list)
    objects: list[Any] = field(default_factory=list)

    def wire(self) -> dict[str, Any]:
        """The call as a non-streamed ``tool_calls`` item."""
        function: dict[str, Any] = {"name": self.name}
        if self.text:
            function["arguments"] = "".join(self.text)
        elif self.objects:
            function["arguments"] = self.objects[-1]
        return {"id": self.id, "type": self.kind or "function", "function": function}


@dataclass
class _Assembly:
    """Everything gathered from the chunks of one stream."""

    content: list[str] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)
    calls: dict[int, _CallParts] = field(default_factory=dict)
    last_index: int | None = None
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    response_id: str | None = None
    chunks: int = 0
    anomalies: list[Anomaly] = field(default_factory=list)

    def add_call_fragment(self, fragment: dict[str, Any]) -> None:
        """Merge one ``delta.tool_calls[i]`` fragment into its call."""
        index = fragment.get("index")
        new_id = fragment.get("id") if isinstance(fragment.get("id"), str) and fragment.get("id") else None
        if not isinstance(index, int) or isinstance(index, bool):
            known_ids = {c.id for c in self.calls.values()}
            if self.last_index is None or (new_id is not None and new_id not in known_ids):
                index = max(self.calls, default=-1) + 1
            else:
                index = self.last_index
        self.last_index = index
        parts = self.calls.setdefault(index, _CallParts())
        if new_id is not None and parts.id is None:
            parts.id = new_id
        if isinstance(fragment.get("type"), str):
            parts.kind = fragment["type"]
        function = fragment.get("function")
        if not isinstance(function, dict):
            return
        name = function.get("name")
        if isinstance(name, str) and name and parts.name is None:
            parts.name = name
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            parts.text.append(arguments)
        elif arguments is not None:
            parts.objects.append(arguments)

    def add_delta(self, delta: dict[str, Any], where: str) -> None:
        """Merge one ``choices[0].delta``."""
        if isinstance(delta.get("content"), str):
            self.content.append(delta["content"])
        if isinstance(delta.get("refusal"), str):
            self.refusal.append(delta["refusal"])
        fragments = delta.get("tool_calls")
        if fragments is None:
            return
        if not isinstance(fragments, list):
            self.anomalies.append(anomaly("unknown_event", f"{where}: delta.tool_calls is not an array"))
            return
        for fragment in fragments:
            if isinstance(fragment, dict):
                self.add_call_fragment(fragment)
            else:
                self.anomalies.append(
                    anomaly("unknown_event", f"{where}: tool call fragment is not an object")
                )

    def add_chunk(self, chunk: dict[str, Any], where: str) -> None:
        """Merge one ``chat.completion.chunk``."""
        self.chunks += 1
        if self.response_id is None and isinstance(chunk.get("id"), str):
            self.response_id = chunk["id"]
        if isinstance(chunk.get("usage"), dict):
            self.usage = read_usage(chunk["usage"])
        choices = chunk.get("choices")
        if choices is None:
            return
        if not isinstance(choices, list):
            self.anomalies.append(anomaly("unknown_event", f"{where}: choices is not an array"))
            return
        for choice in choices:
            if not isinstance(choice, dict):
                self.anomalies.append(anomaly("unknown_event", f"{where}: a choice is not an object"))
                continue
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict):
                self.add_delta(delta, where)
            elif delta is not None:
                self.anomalies.append(anomaly("unknown_event", f"{where}: delta is not an object"))
            if isinstance(choice.get("finish_reason"), str):
                self.finish_reason = choice["finish_reason"]

    def message(self) -> dict[str, Any]:
        """The assembled assistant message, shaped like a non-streamed one."""
        message: dict[str, Any] = {
            "content": "".join(self.content) if self.content else None,
            "refusal": "".join(self.refusal) if self.refusal else None,
        }
        if self.calls:
            message["tool_calls"] = [self.calls[i].wire() for i in sorted(self.calls)]
        return message


def _preview(data: str) -> str:
    return repr(data[:80])


def parse_stream(
    events: Iterable[tuple[str | None, str]], offered_tools: Sequence[str] | None = None
) -> ParsedTurn:
    """Assemble ``(event, data)`` pairs of a Chat Completions stream into one turn."""
    state = _Assembly()
    done = False
    for number, (_event, data) in enumerate(events):
        where = f"record {number}"
        text = data.strip()
        if not text:
            continue
        if done:
            state.anomalies.append(anomaly("unknown_event", f"{where} after [DONE]: {_preview(data)}"))
            continue
        if text == DONE:
            done = True
            continue
        try:
            chunk = json.loads(text)
        except (ValueError, RecursionError):
            return bad_response(f"stream {where} is not JSON: {_preview(data)}", state.anomalies)
        if not isinstance(chunk, dict):
            return bad_response(f"stream {where} is not a JSON object: {_preview(data)}", state.anomalies)
        error = error_object(chunk)
        if error is not None:
            return ParsedTurn(
                outcome=error_outcome(error), anomalies=state.anomalies, response_id=state.response_id
            )
        state.add_chunk(chunk, where)
    if state.chunks == 0:
        return bad_response("the stream carried no completion chunk", state.anomalies)
    if not done:
        state.anomalies.append(anomaly("stream_incomplete", "the stream ended without [DONE]"))
    elif state.finish_reason is None:
        state.anomalies.append(anomaly("stream_incomplete", "no finish_reason before [DONE]"))
    turn = turn_from_message(
        state.message(), state.finish_reason, state.usage, state.response_id, offered_tools
    )
    turn.anomalies[:0] = state.anomalies
    return turn
