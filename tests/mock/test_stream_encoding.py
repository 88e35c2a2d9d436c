"""Stream events written from parts encoded once are the compact JSON of the events they stand for.

OpenAI Chat chunks and Responses deltas are spliced from pieces of JSON text (the fields every
chunk starts with, each piece of text quoted on its own). Every event must still be exactly the
compact JSON of its value, keys in the order the real APIs send them, and the pieces must add up to
the reply, whatever the text holds (quotes, backslashes, control characters, non-ASCII).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from fcbench.mock.common import COMPACT_JSON, Decoded, IdMaker, RenderContext, SseEvent
from fcbench.mock.openai_chat import OpenAIChatDialect
from fcbench.mock.openai_responses import OpenAIResponsesDialect
from fcbench.mock.sim.base import SimCall, SimReply, SimRequest, SimTurn

TEXT = 'He said "no" \\ then\ttabbed,\nnew line \x01 é 中 😀 </script> done.'
REPLIES = [
    SimReply("text", text=TEXT),
    SimReply("refusal", text=TEXT),
    SimReply(
        "calls", text="", calls=(SimCall("lookup_order", '{"order_id": "ORD-1\\"04821", "n": 1.5e-7}'),)
    ),
    SimReply("calls", text="Looking.", calls=(SimCall("a", "{}"), SimCall("b", '{"x": "é"}'))),
]
CHAT_KEYS = ["id", "object", "created", "model", "service_tier", "system_fingerprint", "choices"]


def context(fine: bool) -> RenderContext:
    return RenderContext(
        ids=IdMaker("seed"), created=1_700_000_000, input_tokens=12, output_tokens=5, fine_arguments=fine
    )


def canonical(event: SseEvent) -> Any:
    """The event's value, after checking its text is exactly the value's compact JSON."""
    text = event.data_text()
    value = json.loads(text)
    assert COMPACT_JSON.encode(value) == text
    assert event.data_bytes() == text.encode()
    return value


@pytest.mark.parametrize("reply", REPLIES)
@pytest.mark.parametrize("include_usage", [False, True])
@pytest.mark.parametrize("fine", [False, True])
def test_chat_chunks_are_compact_json_in_the_api_order(
    reply: SimReply, include_usage: bool, fine: bool
) -> None:
    request = SimRequest(model="sim-careful", system="", turns=(SimTurn("user", "x"),), tools=())
    decoded = Decoded("sim-careful", True, request, {"named": False, "include_usage": include_usage})
    events = OpenAIChatDialect().render_stream(reply, decoded, context(fine))
    assert events[-1].data == "[DONE]"
    chunks = [canonical(event) for event in events[:-1]]
    text, refusal, arguments = "", "", {}
    for chunk in chunks:
        keys = [*CHAT_KEYS, *(["usage"] if include_usage else []), "obfuscation"]
        assert list(chunk) == keys and chunk["obfuscation"].isalnum()
        for choice in chunk["choices"]:
            assert list(choice) == ["index", "delta", "logprobs", "finish_reason"]
            text += choice["delta"].get("content") or ""
            refusal += choice["delta"].get("refusal") or ""
            for call in choice["delta"].get("tool_calls", []):
                arguments[call["index"]] = arguments.get(call["index"], "") + call["function"]["arguments"]
    assert (refusal if reply.kind == "refusal" else text) == reply.text
    assert [arguments[i] for i in sorted(arguments)] == [call.arguments_json for call in reply.calls]
    assert [c.get("usage") is not None for c in chunks].count(True) == (1 if include_usage else 0)


@pytest.mark.parametrize("reply", REPLIES)
@pytest.mark.parametrize("fine", [False, True])
def test_responses_events_are_compact_json_in_the_api_order(reply: SimReply, fine: bool) -> None:
    request = SimRequest(model="sim-careful", system="", turns=(SimTurn("user", "x"),), tools=())
    echo = {
        key: None
        for key in (
            "instructions",
            "max_output_tokens",
            "max_tool_calls",
            "previous_response_id",
            "reasoning",
        )
    }
    echo |= {"parallel_tool_calls": True, "store": False, "temperature": 1.0, "top_p": 1.0, "metadata": {}}
    echo |= {"text": {"format": {"type": "text"}}, "tool_choice": "auto", "tools": []}
    decoded = Decoded("sim-careful", True, request, echo)
    events = OpenAIResponsesDialect().render_stream(reply, decoded, context(fine))
    values = [canonical(event) for event in events]
    assert [v["sequence_number"] for v in values] == list(range(len(values)))
    assert all(
        list(v)[:2] == ["type", "sequence_number"] and v["type"] == e.event
        for v, e in zip(values, events, strict=True)
    )
    deltas = [v for v in values if v["type"].endswith(".delta")]
    for delta in deltas:
        assert list(delta)[2:4] == ["item_id", "output_index"]
        if "obfuscation" in delta:
            assert list(delta)[-1] == "obfuscation" and delta["obfuscation"].isalnum()
    said = "".join(d["delta"] for d in deltas if not d["type"].startswith("response.function_call"))
    assert said == reply.text
    called = "".join(d["delta"] for d in deltas if d["type"].startswith("response.function_call"))
    assert called == "".join(call.arguments_json for call in reply.calls)
    completed = values[-1]["response"]
    assert completed["status"] == "completed" and values[0]["response"]["status"] == "in_progress"
    assert values[0]["response"] == {**values[1]["response"]} and values[0]["type"] == "response.created"
