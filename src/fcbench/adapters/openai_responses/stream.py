"""Assemble a Responses API SSE stream into one canonical turn (pure; never raises).

Events are named (``event: response.output_item.added``) and repeat their name in the data's
``type``; the data's ``type`` wins, the ``event:`` line is the fallback. Items are keyed by
``output_index`` and found again by ``item_id``. ``function_call_arguments.delta`` fragments are
concatenated, and the ``.done`` events are authoritative: ``function_call_arguments.done`` replaces
the concatenation, ``output_item.done`` replaces the whole item. Text and refusal parts are rebuilt
the same way. The terminal event (``response.completed``, ``response.incomplete`` or
``response.failed``) supplies status, usage and any error; the assembled items are then read by the
same code as a non-streamed response.

Deviations recorded: an event type the adapter does not know (or none at all), a fragment for an
item never announced (``unknown_event``); no terminal event (``stream_incomplete``). Event data
that is not a JSON object is a corrupted wire, not something the model did: the turn is a
``bad_response`` provider error (coverage loss), as in every other dialect. An ``error`` event ends
the turn as a provider error; a stream with no event at all is ``bad_response``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.common import anomaly
from fcbench.adapters.openai_chat.errors import error_outcome
from fcbench.adapters.openai_chat.response import bad_response
from fcbench.adapters.openai_responses.response import parse_response
from fcbench.contract import Anomaly

TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})

IGNORED = frozenset(
    {
        "response.in_progress",
        "response.queued",
        "response.output_text.annotation.added",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_part.done",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_text.delta",
        "response.reasoning_text.done",
    }
)
"""Known events that carry nothing a function-calling turn needs (reasoning is replayed from
``output_item.done``)."""


@dataclass
class _Item:
    """One output item as the stream builds it."""

    data: dict[str, Any]
    arguments: list[str] = field(default_factory=list)
    arguments_done: str | None = None
    parts: dict[int, dict[str, Any]] = field(default_factory=dict)
    done: bool = False

    def finished(self) -> dict[str, Any]:
        """The item as a non-streamed response would list it."""
        if self.done:
            return self.data
        item = dict(self.data)
        if item.get("type") == "function_call" and (self.arguments or self.arguments_done is not None):
            item["arguments"] = (
                self.arguments_done if self.arguments_done is not None else "".join(self.arguments)
            )
        if item.get("type") == "message" and self.parts:
            item["content"] = [self.parts[i] for i in sorted(self.parts)]
        return item


@dataclass
class _Assembly:
    """Everything gathered from the events of one stream."""

    items: dict[int, _Item] = field(default_factory=dict)
    by_id: dict[str, int] = field(default_factory=dict)
    response: dict[str, Any] = field(default_factory=dict)
    terminal: str | None = None
    events: int = 0
    anomalies: list[Anomaly] = field(default_factory=list)

    def _index(self, payload: dict[str, Any]) -> int | None:
        item_id = payload.get("item_id")
        if isinstance(item_id, str) and item_id in self.by_id:
            return self.by_id[item_id]
        index = payload.get("output_index")
        return index if isinstance(index, int) and index in self.items else None

    def target(self, payload: dict[str, Any], where: str) -> _Item | None:
        """The item a fragment belongs to, or None (recorded) when it was never announced."""
        index = self._index(payload)
        if index is None:
            self.anomalies.append(anomaly("unknown_event", f"{where}: fragment for an item never announced"))
            return None
        return self.items[index]

    def put_item(self, payload: dict[str, Any], where: str, done: bool) -> None:
        """``output_item.added`` / ``output_item.done``: announce or replace an item."""
        item = payload.get("item")
        if not isinstance(item, dict):
            self.anomalies.append(anomaly("unknown_event", f"{where}: item is not an object"))
            return
        index = payload.get("output_index")
        if not isinstance(index, int) or isinstance(index, bool):
            index = self._index({"item_id": item.get("id")})
            index = len(self.items) if index is None else index
        if done:
            current = self.items.setdefault(index, _Item(data={}))
            current.data, current.done = dict(item), True
        else:
            self.items[index] = _Item(data=dict(item))
        if isinstance(item.get("id"), str):
            self.by_id[item["id"]] = index

    def put_part(self, payload: dict[str, Any], where: str, key: str, mode: str) -> None:
        """Content part events: ``added``/``done`` set a part, ``delta`` appends, ``text`` replaces."""
        item = self.target(payload, where)
        if item is None:
            return
        index = payload.get("content_index", 0)
        index = index if isinstance(index, int) else 0
        if mode == "part":
            part = payload.get("part")
            if isinstance(part, dict):
                item.parts[index] = dict(part)
            return
        kind = "refusal" if key == "refusal" else "output_text"
        part = item.parts.setdefault(index, {"type": kind, key: ""})
        value = payload.get("delta" if mode == "delta" else key)
        if isinstance(value, str):
            part[key] = (str(part.get(key) or "") + value) if mode == "delta" else value

    def arguments(self, payload: dict[str, Any], where: str, done: bool) -> None:
        """``function_call_arguments.delta`` appends; ``.done`` sets the authoritative text."""
        item = self.target(payload, where)
        if item is None:
            return
        if done and isinstance(payload.get("arguments"), str):
            item.arguments_done = payload["arguments"]
        elif not done and isinstance(payload.get("delta"), str):
            item.arguments.append(payload["delta"])

    def set_response(self, payload: dict[str, Any]) -> None:
        """``response.created`` and the terminal events carry the response object."""
        response = payload.get("response")
        if isinstance(response, dict):
            self.response = response

    def body(self) -> dict[str, Any]:
        """The assembled response, shaped like a non-streamed one."""
        body = dict(self.response)
        if self.items:
            body["output"] = [self.items[i].finished() for i in sorted(self.items)]
        elif not isinstance(body.get("output"), list):
            body["output"] = []
        if self.terminal is None:
            body["status"] = None
        return body


Handler = Callable[[_Assembly, dict[str, Any], str], None]

HANDLERS: dict[str, Handler] = {
    "response.created": lambda s, p, w: s.set_response(p),
    "response.output_item.added": lambda s, p, w: s.put_item(p, w, done=False),
    "response.output_item.done": lambda s, p, w: s.put_item(p, w, done=True),
    "response.function_call_arguments.delta": lambda s, p, w: s.arguments(p, w, done=False),
    "response.function_call_arguments.done": lambda s, p, w: s.arguments(p, w, done=True),
    "response.content_part.added": lambda s, p, w: s.put_part(p, w, "text", "part"),
    "response.content_part.done": lambda s, p, w: s.put_part(p, w, "text", "part"),
    "response.output_text.delta": lambda s, p, w: s.put_part(p, w, "text", "delta"),
    "response.output_text.done": lambda s, p, w: s.put_part(p, w, "text", "text"),
    "response.refusal.delta": lambda s, p, w: s.put_part(p, w, "refusal", "delta"),
    "response.refusal.done": lambda s, p, w: s.put_part(p, w, "refusal", "text"),
}
"""Event type -> how it changes the assembly (terminal, error and ignored events are handled apart)."""


def _payload(
    event: str | None, data: str, where: str, anomalies: list[Anomaly]
) -> tuple[str, dict[str, Any]] | ParsedTurn | None:
    """``(type, payload)`` of one event; a ``bad_response`` turn when the data is not a JSON object;
    None (recorded) for a well-formed event without a type."""
    try:
        payload = json.loads(data)
    except (ValueError, RecursionError):
        return bad_response(f"stream {where} ({event}) is not JSON: {data[:80]!r}", anomalies)
    if not isinstance(payload, dict):
        return bad_response(f"stream {where} ({event}) is not a JSON object: {data[:80]!r}", anomalies)
    kind = payload.get("type") if isinstance(payload.get("type"), str) else event
    if not kind:
        anomalies.append(anomaly("unknown_event", f"{where} has no event type: {data[:80]!r}"))
        return None
    return kind, payload


def parse_stream(
    events: Iterable[tuple[str | None, str]], offered_tools: Sequence[str] | None = None
) -> ParsedTurn:
    """Assemble ``(event, data)`` pairs of a Responses stream into one turn."""
    state = _Assembly()
    for number, (event, data) in enumerate(events):
        where = f"event {number}"
        if not data.strip():
            continue
        read = _payload(event, data, where, state.anomalies)
        if isinstance(read, ParsedTurn):
            return read
        if read is None:
            continue
        kind, payload = read
        state.events += 1
        if kind == "error":  # its fields flat ({"code", "message"}) or nested under "error"
            nested = payload.get("error")
            fields = {**payload, **nested} if isinstance(nested, Mapping) else payload
            return ParsedTurn(outcome=error_outcome(fields), anomalies=state.anomalies)
        if kind in TERMINAL:
            state.terminal = kind
            state.set_response(payload)
        elif kind in HANDLERS:
            HANDLERS[kind](state, payload, where)
        elif kind not in IGNORED:
            state.anomalies.append(anomaly("unknown_event", f"{where}: {kind!r}"))
    if state.events == 0:
        return bad_response("the stream carried no response event", state.anomalies)
    if state.terminal is None:
        state.anomalies.append(
            anomaly("stream_incomplete", "no response.completed, .incomplete or .failed event")
        )
    turn = parse_response(state.body(), offered_tools)
    turn.anomalies[:0] = state.anomalies
    return turn
