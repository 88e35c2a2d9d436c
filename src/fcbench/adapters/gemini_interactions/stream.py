"""Assemble a Gemini Interactions SSE stream into one canonical turn (protocols.md §4.6; pure).

Each event's data is a JSON object whose ``event_type`` names it (the SSE ``event:`` line is the
fallback). The interaction's steps are rebuilt by position (``index``):

=============================  ==================================================================
event                          effect
=============================  ==================================================================
``interaction.created``        the interaction's id and status
``interaction.status_update``  the status (and usage, when given)
``step.start``                 a step begins (``step`` as a JSON body would list it)
``step.delta``                 ``text`` appended to a ``model_output`` step; ``arguments_delta``
                               text appended to a call's argument text; ``thought_signature``
                               and ``thought_summary`` completed on a thought step
``step.stop``                  the step is done (usage, when given)
``interaction.completed``      terminal: id, status, usage (and the steps, when it lists them)
``error``                      the turn is a provider error (``error.code`` a status name)
=============================  ==================================================================

The assembled interaction is read by
:func:`~fcbench.adapters.gemini_interactions.response.turn_from_interaction`; a call's
arguments are its concatenated ``arguments_delta`` text (the raw text, parsed there) and are
stored parsed in the step kept for replay. Recorded deviations: an unknown event or
delta type, a delta or stop for a step never started (``unknown_event``), no
``interaction.completed`` (``stream_incomplete``). Data that is not a JSON object, or an event
without its fields, is a ``bad_response``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.common import BadResponse, anomaly, bad_response
from fcbench.adapters.gemini_interactions.errors import interactions_error_outcome
from fcbench.adapters.gemini_interactions.response import turn_from_interaction
from fcbench.contract import Anomaly


@dataclass
class _Assembly:
    """The interaction as the events build it."""

    interaction: dict[str, Any] = field(default_factory=dict)
    steps: dict[int, dict[str, Any]] = field(default_factory=dict)
    arguments: dict[int, list[str]] = field(default_factory=dict)
    terminal: bool = False
    events: int = 0
    anomalies: list[Anomaly] = field(default_factory=list)

    def merge(self, payload: dict[str, Any], where: str) -> None:
        """``interaction.created`` / ``.completed``: the (partial) interaction object."""
        interaction = payload.get("interaction")
        if not isinstance(interaction, dict):
            raise BadResponse(f"{where}: no interaction object")
        self.interaction.update(interaction)

    def status(self, payload: dict[str, Any], where: str) -> None:
        """``interaction.status_update``."""
        if not isinstance(payload.get("status"), str):
            raise BadResponse(f"{where}: status_update without a status")
        self.interaction["status"] = payload["status"]
        if isinstance(payload.get("usage"), dict):
            self.interaction["usage"] = payload["usage"]

    def _index(self, payload: dict[str, Any], where: str) -> int:
        index = payload.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise BadResponse(f"{where}: index is missing or not a non-negative integer")
        return index

    def start(self, payload: dict[str, Any], where: str) -> None:
        """``step.start``."""
        index = self._index(payload, where)
        step = payload.get("step")
        if not isinstance(step, dict):
            raise BadResponse(f"{where}: step.start without a step object")
        self.steps[index] = dict(step)

    def _started(self, index: int, where: str) -> dict[str, Any] | None:
        step = self.steps.get(index)
        if step is None:
            self.anomalies.append(anomaly("unknown_event", f"{where}: step {index} was never started"))
        return step

    def delta(self, payload: dict[str, Any], where: str) -> None:
        """``step.delta``."""
        index = self._index(payload, where)
        delta = payload.get("delta")
        if not isinstance(delta, dict):
            raise BadResponse(f"{where}: step.delta without a delta object")
        step = self._started(index, where)
        if step is None:
            return
        kind = delta.get("type")
        apply = DELTAS.get(kind) if isinstance(kind, str) else None
        if apply is None:
            self.anomalies.append(anomaly("unknown_event", f"{where}: delta of type {kind!r}"))
            return
        apply(self, index, step, delta)

    def stop(self, payload: dict[str, Any], where: str) -> None:
        """``step.stop``."""
        self._started(self._index(payload, where), where)
        if isinstance(payload.get("usage"), dict):
            self.interaction["usage"] = payload["usage"]

    def body(self) -> tuple[dict[str, Any], dict[int, str]]:
        """The assembled interaction and the raw argument text of each streamed call, by position."""
        body = dict(self.interaction)
        raw: dict[int, str] = {}
        if self.steps:
            ordered = sorted(self.steps)
            steps = []
            for position, index in enumerate(ordered):
                step = self.steps[index]
                if index in self.arguments:
                    raw[position] = "".join(self.arguments[index])
                    step = {**step, "arguments": _parsed(raw[position])}
                steps.append(step)
            body["steps"] = steps
        if not self.terminal:
            body.setdefault("status", None)
        return body, raw


def _parsed(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def _text(state: _Assembly, index: int, step: dict[str, Any], delta: dict[str, Any]) -> None:
    content = step.setdefault("content", [])
    if not isinstance(content, list) or not isinstance(delta.get("text"), str):
        raise BadResponse(f"step {index}: text delta that does not fit the step")
    if content and isinstance(content[-1], dict) and content[-1].get("type") == "text":
        content[-1] = {**content[-1], "text": str(content[-1].get("text", "")) + delta["text"]}
    else:
        content.append({"type": "text", "text": delta["text"]})


def _arguments(state: _Assembly, index: int, step: dict[str, Any], delta: dict[str, Any]) -> None:
    fragment = delta.get("arguments")
    if not isinstance(fragment, str):
        raise BadResponse(f"step {index}: arguments_delta without argument text")
    state.arguments.setdefault(index, []).append(fragment)


def _signature(state: _Assembly, index: int, step: dict[str, Any], delta: dict[str, Any]) -> None:
    if isinstance(delta.get("signature"), str):
        step["signature"] = str(step.get("signature", "")) + delta["signature"]


def _summary(state: _Assembly, index: int, step: dict[str, Any], delta: dict[str, Any]) -> None:
    if isinstance(delta.get("content"), dict):
        step.setdefault("summary", []).append(delta["content"])


Delta = Callable[[_Assembly, int, dict[str, Any], dict[str, Any]], None]

DELTAS: dict[str, Delta] = {
    "text": _text,
    "arguments_delta": _arguments,
    "thought_signature": _signature,
    "thought_summary": _summary,
}
"""``step.delta`` type -> how it changes the step."""

Handler = Callable[[_Assembly, dict[str, Any], str], None]

HANDLERS: dict[str, Handler] = {
    "interaction.created": _Assembly.merge,
    "interaction.status_update": _Assembly.status,
    "step.start": _Assembly.start,
    "step.delta": _Assembly.delta,
    "step.stop": _Assembly.stop,
    "interaction.completed": _Assembly.merge,
}
"""Event type -> how it changes the assembly (``error`` ends the turn and is handled apart)."""


def _payload(event: str | None, data: str, where: str) -> tuple[str | None, dict[str, Any]]:
    try:
        payload = json.loads(data)
    except (ValueError, RecursionError):
        raise BadResponse(f"{where} ({event}) is not JSON: {data[:80]!r}") from None
    if not isinstance(payload, dict):
        raise BadResponse(f"{where} ({event}) is not a JSON object: {data[:80]!r}")
    kind = payload.get("event_type") if isinstance(payload.get("event_type"), str) else event
    return kind, payload


def parse_stream(
    events: Iterable[tuple[str | None, str]], offered_tools: Sequence[str] | None = None
) -> ParsedTurn:
    """Assemble ``(event, data)`` pairs of one Interactions stream into a turn."""
    state = _Assembly()
    try:
        for number, (event, data) in enumerate(events):
            where = f"event {number}"
            if not data.strip():
                continue
            kind, payload = _payload(event, data, where)
            state.events += 1
            if kind == "error":
                error = payload.get("error")
                fields = error if isinstance(error, dict) else payload
                return ParsedTurn(outcome=interactions_error_outcome(fields), anomalies=state.anomalies)
            handler = HANDLERS.get(kind) if kind else None
            if handler is None:
                state.anomalies.append(anomaly("unknown_event", f"{where}: {kind!r}"))
                continue
            handler(state, payload, where)
            state.terminal = state.terminal or kind == "interaction.completed"
    except BadResponse as exc:
        return bad_response(f"stream {exc}", state.anomalies)
    if state.events == 0:
        return bad_response("the stream carried no event", state.anomalies)
    if not state.terminal:
        state.anomalies.append(anomaly("stream_incomplete", "no interaction.completed event"))
    body, raw = state.body()
    return turn_from_interaction(body, offered_tools, state.anomalies, raw)
