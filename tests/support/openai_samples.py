"""Canonical sample tools, histories and test-side stream builders for the OpenAI adapter tests.

The stream builders turn a recorded non-streamed body into the event sequence the API would
have sent for it (arguments and text cut into small fragments). They are written from the wire
description, independently of the adapters, so "a stream reads like its JSON body" is a real check.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from fcbench.adapters.base import RequestOptions, ToolChoice
from fcbench.contract import (
    AssistantMessage,
    Message,
    SystemMessage,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    make_call,
)

WEATHER = Tool(
    name="get_weather",
    description="Current weather for a city.",
    parameters={
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 1},
            "units": {"type": "string", "enum": ["c", "f"], "default": "c"},
        },
        "required": ["city"],
    },
)
ORDER = Tool(
    name="lookup_order",
    description="Look up an order by id.",
    parameters={
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "order_id": {"type": "string", "pattern": "^ORD-[0-9]+$"},
            "include_items": {"type": "boolean"},
        },
        "required": ["order_id"],
        "additionalProperties": False,
    },
    side_effect="read",
)
TOOLS = [WEATHER, ORDER]
NAMES = [t.name for t in TOOLS]

OPTIONS = RequestOptions(model="gpt-test")

CHOICES = [
    ToolChoice(mode="auto"),
    ToolChoice(mode="required"),
    ToolChoice(mode="none"),
    ToolChoice(mode="named", name="lookup_order"),
]

CALL_A = make_call("call_a1", "get_weather", '{"city": "Paris"}')
CALL_B = make_call("call_b2", "lookup_order", '{"order_id":"ORD-104821"}')


def history() -> list[Message]:
    """A conversation with a parallel call turn, its results (one failed) and a follow-up."""
    return [
        SystemMessage(content="Answer briefly."),
        UserMessage(content="Weather in Paris, and where is order ORD-104821?"),
        AssistantMessage(content=None, calls=[CALL_A, CALL_B]),
        ToolResultMessage(call_id="call_b2", name="lookup_order", content={"status": "shipped"}),
        ToolResultMessage(call_id="call_a1", name="get_weather", content="upstream timeout", is_error=True),
        AssistantMessage(content="The order has shipped; the weather service failed."),
        UserMessage(content="Try the weather again."),
    ]


def results_for(calls: list[ToolCall], texts: list[str]) -> list[ToolResultMessage]:
    """Tool results answering ``calls`` in order with ``texts``."""
    return [
        ToolResultMessage(call_id=c.id, name=c.name, content=t) for c, t in zip(calls, texts, strict=True)
    ]


def pieces(text: str, size: int) -> Iterator[str]:
    """``text`` cut into fragments of ``size`` characters (at least one, possibly empty)."""
    if not text:
        yield ""
        return
    for start in range(0, len(text), size):
        yield text[start : start + size]


def chat_stream(body: dict[str, Any], size: int = 3) -> list[tuple[str | None, str]]:
    """The Chat Completions chunks for a non-streamed ``chat.completion`` body, then ``[DONE]``."""
    head = {"id": body["id"], "object": "chat.completion.chunk", "model": body.get("model", "m")}
    choice = body["choices"][0]
    message = choice["message"]

    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[None, str]:
        data = {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return None, json.dumps(data)

    events: list[tuple[str | None, str]] = [chunk({"role": "assistant", "content": None})]
    for key in ("content", "refusal"):
        if message.get(key):
            events += [chunk({key: piece}) for piece in pieces(message[key], size)]
    for index, call in enumerate(message.get("tool_calls") or []):
        first = {"index": index, "id": call["id"], "type": "function"}
        events.append(
            chunk(
                {"tool_calls": [{**first, "function": {"name": call["function"]["name"], "arguments": ""}}]}
            )
        )
        for piece in pieces(call["function"]["arguments"], size):
            events.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    events.append(chunk({}, choice["finish_reason"]))
    events.append((None, json.dumps({**head, "choices": [], "usage": body.get("usage")})))
    events.append((None, "[DONE]"))
    return events


def responses_stream(body: dict[str, Any], size: int = 3) -> list[tuple[str | None, str]]:
    """The Responses events for a non-streamed ``response`` body, ending with ``response.completed``."""
    events: list[tuple[str | None, str]] = []

    def emit(kind: str, **fields: Any) -> None:
        events.append((kind, json.dumps({"type": kind, "sequence_number": len(events), **fields})))

    emit("response.created", response={**body, "status": "in_progress", "output": [], "usage": None})
    emit("response.in_progress", response={**body, "status": "in_progress", "output": [], "usage": None})
    for index, item in enumerate(body["output"]):
        item_id = item.get("id", f"item_{index}")
        if item["type"] == "function_call":
            emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "arguments": "", "status": "in_progress"},
            )
            for piece in pieces(item["arguments"], size):
                emit(
                    "response.function_call_arguments.delta", item_id=item_id, output_index=index, delta=piece
                )
            emit(
                "response.function_call_arguments.done",
                item_id=item_id,
                output_index=index,
                arguments=item["arguments"],
            )
        elif item["type"] == "message":
            emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "content": [], "status": "in_progress"},
            )
            for part_index, part in enumerate(item["content"]):
                key = "refusal" if part["type"] == "refusal" else "text"
                where = {"item_id": item_id, "output_index": index, "content_index": part_index}
                emit("response.content_part.added", **where, part={**part, key: ""})
                delta_kind = "response.refusal.delta" if key == "refusal" else "response.output_text.delta"
                for piece in pieces(part[key], size):
                    emit(delta_kind, **where, delta=piece)
                emit(delta_kind.replace(".delta", ".done"), **where, **{key: part[key]})
                emit("response.content_part.done", **where, part=part)
        else:
            emit("response.output_item.added", output_index=index, item=item)
        emit("response.output_item.done", output_index=index, item=item)
    emit("response.completed", response=body)
    return events
