"""The official ``google-genai`` SDK's Interactions client against the mock, unchanged (retries off).

The Interactions client raises its own status classes (``google.genai._interactions``:
``BadRequestError``, ``NotFoundError``), not ``google.genai.errors.ClientError``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from google import genai
from google.genai import types
from google.genai._interactions import BadRequestError, NotFoundError

from fcbench.mock.server import MockServer


def _client(server: MockServer) -> genai.Client:
    options = types.HttpOptions(
        base_url=server.url,
        api_version="v1beta",
        timeout=20_000,
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    return genai.Client(api_key="test-key", http_options=options)


def _tools(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "function", "name": "get_weather", "description": "Weather", "parameters": schema}]


def _question() -> dict[str, Any]:
    return {"type": "user_input", "content": [{"type": "text", "text": "Weather in Paris?"}]}


def _result(call_id: str) -> dict[str, Any]:
    return {"type": "function_result", "call_id": call_id, "name": "get_weather", "result": "18 C"}


def _seen(text: str, call_id: str) -> None:
    turns = json.loads(text)["tool_turns"]
    assert turns == [{"call_id": call_id, "tool_name": "get_weather", "result": "18 C", "is_error": False}]


def test_stateless_tool_loop_replays_the_whole_input(
    inspector: MockServer, weather_schema: dict[str, Any]
) -> None:
    client = _client(inspector)
    first = client.interactions.create(
        model="sim-inspector", input=[_question()], tools=_tools(weather_schema)
    )
    assert first.status == "requires_action"
    calls = [step for step in first.steps if step.type == "function_call"]
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris"})]
    replay = [step.model_dump(mode="json", exclude_none=True) for step in first.steps]
    second = client.interactions.create(
        model="sim-inspector",
        input=[*replay, _result(calls[0].id)],
        tools=_tools(weather_schema),
        store=False,
    )
    assert second.status == "completed"
    _seen(second.output_text, calls[0].id)
    assert second.usage.total_input_tokens > 0


def test_stateful_tool_loop_continues_by_id(inspector: MockServer, weather_schema: dict[str, Any]) -> None:
    client = _client(inspector)
    first = client.interactions.create(
        model="sim-inspector", input="Weather in Paris?", tools=_tools(weather_schema)
    )
    call = next(step for step in first.steps if step.type == "function_call")
    second = client.interactions.create(
        model="sim-inspector",
        previous_interaction_id=first.id,
        input=[_result(call.id)],
        tools=_tools(weather_schema),
    )
    assert second.previous_interaction_id == first.id
    _seen(second.output_text, call.id)


def test_streamed_tool_loop(inspector: MockServer, weather_schema: dict[str, Any]) -> None:
    client = _client(inspector)
    events = list(
        client.interactions.create(
            model="sim-inspector", input="Weather in Paris?", tools=_tools(weather_schema), stream=True
        )
    )
    kinds = [event.event_type for event in events]
    assert kinds[0] == "interaction.created" and kinds[-1] == "interaction.completed"
    fragments = [
        e.delta.arguments
        for e in events
        if e.event_type == "step.delta" and e.delta.type == "arguments_delta"
    ]
    assert len(fragments) > 1 and json.loads("".join(fragments)) == {"city": "Paris"}
    call = next(e.step for e in events if e.event_type == "step.start" and e.step.type == "function_call")
    finished = events[-1].interaction
    assert finished.status == "requires_action"
    follow_up = client.interactions.create(
        model="sim-inspector",
        previous_interaction_id=finished.id,
        input=[_result(call.id)],
        tools=_tools(weather_schema),
        stream=True,
    )
    text = "".join(e.delta.text for e in follow_up if e.event_type == "step.delta" and e.delta.type == "text")
    _seen(text, call.id)


def test_unknown_fields_and_ids_raise_the_sdk_error(inspector: MockServer) -> None:
    client = _client(inspector)
    with pytest.raises(BadRequestError) as unknown:
        client.interactions.create(model="sim-inspector", input="hi", generation_config={"temprature": 0})
    assert unknown.value.status_code == 400 and "temprature" in str(unknown.value)
    with pytest.raises(NotFoundError) as missing:
        client.interactions.create(model="sim-inspector", input="hi", previous_interaction_id="v1_nope")
    assert missing.value.status_code == 404
