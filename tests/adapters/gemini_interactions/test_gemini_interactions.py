"""The ``gemini-interactions`` adapter: requests, responses, streams and errors, checked against the
google-genai SDK's Interactions types (a wrong field name fails), and end to end on the mock."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from google.genai._gaos.types.interactions import (
    CreateModelInteraction,
    Function,
    FunctionCallStep,
    FunctionResultStep,
    GenerationConfig,
    Interaction,
    InteractionSSEStreamEvent,
    ThoughtStep,
    UserInputStep,
)
from pydantic import BaseModel

from fcbench import adapters
from fcbench.adapters.base import ParsedTurn, RequestOptions, ToolChoice
from fcbench.contract import AssistantMessage, Message, Tool, ToolCall, ToolResultMessage, UserMessage
from fcbench.endpoints import Endpoint
from fcbench.mock.gemini_interactions import (
    FUNCTION_TOOL_FIELDS,
    GENERATION_CONFIG_FIELDS,
    REQUEST_FIELDS,
    STEP_FIELDS,
)
from fcbench.mock.server import base_urls
from fcbench.transport import RetryPolicy, Transport

ADAPTER = adapters.get("gemini-interactions")
TOOL = Tool(
    name="get_weather",
    description="Weather",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)
OPTIONS = RequestOptions(model="gemini-x")
STEP_TYPES: dict[str, type[BaseModel]] = {
    "user_input": UserInputStep,
    "function_call": FunctionCallStep,
    "function_result": FunctionResultStep,
    "thought": ThoughtStep,
}


def _fields(model: type[BaseModel]) -> set[str]:
    return {field.alias or name for name, field in model.model_fields.items()}


def _assert_sdk_request(body: dict[str, Any]) -> None:
    """Every key is a field of the SDK's request types (they allow extras, so check by name)."""
    CreateModelInteraction.model_validate(body)
    assert set(body) <= _fields(CreateModelInteraction)
    assert set(body.get("generation_config", {})) <= _fields(GenerationConfig)
    for tool in body.get("tools", []):
        assert set(tool) <= _fields(Function)
    for step in body["input"]:
        model = STEP_TYPES.get(step["type"])
        if model is not None:
            model.model_validate(step)
            assert set(step) <= _fields(model), step


def _build(messages: list[Message], choice: str = "auto", **options: Any) -> dict[str, Any]:
    built = ADAPTER.build_request(
        "be brief", messages, [TOOL], ToolChoice.parse(choice), OPTIONS.model_copy(update=options)
    )
    assert built.path == "/interactions"
    _assert_sdk_request(built.body)
    return built.body


def test_the_mock_field_sets_are_the_sdk_types_fields() -> None:
    assert _fields(CreateModelInteraction) == REQUEST_FIELDS
    assert _fields(GenerationConfig) == GENERATION_CONFIG_FIELDS
    assert _fields(Function) == FUNCTION_TOOL_FIELDS
    for kind, model in STEP_TYPES.items():
        assert STEP_FIELDS[kind] == _fields(model)


@pytest.mark.parametrize(
    ("choice", "strict", "wire"),
    [
        ("auto", False, "auto"),
        ("auto", True, "validated"),
        ("required", False, "any"),
        ("none", False, "none"),
        ("tool:get_weather", False, {"allowed_tools": {"mode": "any", "tools": ["get_weather"]}}),
    ],
)
def test_tool_choice_table(choice: str, strict: bool, wire: Any) -> None:
    body = _build([UserMessage(content="hi")], choice, strict=strict)
    assert body["generation_config"]["tool_choice"] == wire
    assert body["tools"] == [
        {"type": "function", "name": "get_weather", "description": "Weather", "parameters": TOOL.parameters}
    ]


def _history() -> list[Message]:
    call = ToolCall(
        id="c1", name="get_weather", arguments={"city": "Paris"}, raw_arguments='{"city":"Paris"}'
    )
    return [
        UserMessage(content="Weather in Paris?"),
        AssistantMessage(content="Checking.", calls=[call]),
        ToolResultMessage(call_id="c1", name="get_weather", content="18 C"),
    ]


def test_history_system_and_generation_config() -> None:
    body = _build(_history(), temperature=0.5, max_tokens=99, seed=3)
    assert body["system_instruction"] == "be brief"
    assert body["generation_config"] == {
        "max_output_tokens": 99,
        "temperature": 0.5,
        "seed": 3,
        "tool_choice": "auto",
    }
    assert body["input"] == [
        {"type": "user_input", "content": [{"type": "text", "text": "Weather in Paris?"}]},
        {"type": "model_output", "content": [{"type": "text", "text": "Checking."}]},
        {"type": "function_call", "id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}},
        {
            "type": "function_result",
            "call_id": "c1",
            "name": "get_weather",
            "result": "18 C",
            "is_error": False,
        },
    ]
    assert "store" not in body and "previous_interaction_id" not in body


def test_stateful_request_sends_only_the_new_items() -> None:
    body = _build(_history(), previous_response_id="v1_prev")
    assert body["previous_interaction_id"] == "v1_prev" and body["store"] is True
    assert body["input"] == [
        {
            "type": "function_result",
            "call_id": "c1",
            "name": "get_weather",
            "result": "18 C",
            "is_error": False,
        }
    ]
    follow_up = _build(
        [*_history(), AssistantMessage(content="18 C."), UserMessage(content="And Rome?")],
        previous_response_id="v1_2",
    )
    assert follow_up["input"] == [{"type": "user_input", "content": [{"type": "text", "text": "And Rome?"}]}]


CALL_BODY: dict[str, Any] = {
    "id": "v1_abc",
    "status": "requires_action",
    "steps": [
        {"type": "user_input", "content": [{"type": "text", "text": "Weather?"}]},
        {"type": "thought", "signature": "c2ln"},
        {"type": "function_call", "id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}},
    ],
    "usage": {
        "total_input_tokens": 10,
        "total_output_tokens": 4,
        "total_thought_tokens": 2,
        "total_tokens": 16,
    },
}


def test_response_parsing_and_byte_for_byte_replay() -> None:
    Interaction.model_validate(CALL_BODY)
    turn = ADAPTER.parse_response(CALL_BODY, ["get_weather"])
    call = turn.outcome.model_dump()["calls"][0]
    assert (call["id"], call["name"], call["arguments"], call["parse_error"]) == (
        "c1", "get_weather", {"city": "Paris"}, None
    )  # fmt: skip
    assert turn.anomalies == [] and turn.response_id == "v1_abc" and turn.finish_reason == "requires_action"
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (10, 6)
    assert turn.assistant is not None
    history: list[Message] = [UserMessage(content="Weather?"), turn.assistant]
    assert _build(history)["input"][1:] == CALL_BODY["steps"][1:]  # signature included


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"status": "completed"}, "finish_reason_mismatch"),
        ({"steps": [{"type": "function_call", "name": "get_weather", "arguments": {}}]}, "missing_call_id"),
        (
            {"steps": [{"type": "function_call", "id": "c", "name": "other", "arguments": {}}]},
            "tool_not_offered",
        ),
        (
            {"steps": [{"type": "function_call", "id": "c", "name": "get_weather", "arguments": "{}"}]},
            "arguments_type_mismatch",
        ),
        (
            {"steps": [{"type": "model_output", "content": [{"type": "text", "text": "hi"}]}]},
            "finish_reason_mismatch",
        ),
    ],
)
def test_anomalies(change: dict[str, Any], code: str) -> None:
    turn = ADAPTER.parse_response({**CALL_BODY, **change}, ["get_weather"])
    assert code in [a.code for a in turn.anomalies]


def test_refusal_and_errors() -> None:
    refusal = {
        "id": "v1",
        "status": "completed",
        "steps": [
            {
                "type": "model_output",
                "error": {"code": 3, "message": "blocked", "details": [{"reason": "SAFETY"}]},
            }
        ],
    }
    assert ADAPTER.parse_response(refusal).outcome.kind == "refusal"
    limited = ADAPTER.parse_error(
        429,
        {
            "error": {
                "code": "resource_exhausted",
                "message": "slow down",
                "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}],
            }
        },
        {},
    )
    assert limited.code == "rate_limited"
    bad_key = {"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}
    assert ADAPTER.parse_error(400, bad_key, {}).code == "auth"
    assert ADAPTER.retry_after_seconds(429, {"error": {"details": [{"retryDelay": "7s"}]}}, {}) == 7.0
    failed = ADAPTER.parse_response(
        {"id": "v1", "status": "failed", "errors": [{"code": "unavailable", "message": "x"}]}
    )
    assert failed.outcome.model_dump()["code"] == "overloaded"


def _events(events: list[dict[str, Any]]) -> list[tuple[str | None, str]]:
    for event in events:
        InteractionSSEStreamEvent.model_validate({"data": event})
    return [(event["event_type"], json.dumps(event)) for event in events]


def test_stream_with_arguments_split_over_deltas() -> None:
    events = _events(
        [
            {"event_type": "interaction.created", "interaction": {"id": "v1_s", "status": "in_progress"}},
            {"event_type": "step.start", "index": 0, "step": {"type": "thought"}},
            {
                "event_type": "step.delta",
                "index": 0,
                "delta": {"type": "thought_signature", "signature": "c2ln"},
            },
            {"event_type": "step.stop", "index": 0},
            {
                "event_type": "step.start",
                "index": 1,
                "step": {"type": "function_call", "id": "c1", "name": "get_weather", "arguments": {}},
            },
            {
                "event_type": "step.delta",
                "index": 1,
                "delta": {"type": "arguments_delta", "arguments": '{"ci'},
            },
            {
                "event_type": "step.delta",
                "index": 1,
                "delta": {"type": "arguments_delta", "arguments": 'ty": "Paris"}'},
            },
            {"event_type": "step.stop", "index": 1},
            {
                "event_type": "interaction.completed",
                "interaction": {
                    "id": "v1_s",
                    "status": "requires_action",
                    "usage": {"total_input_tokens": 3},
                },
            },
        ]
    )
    turn = ADAPTER.parse_stream(events, ["get_weather"])
    call = turn.outcome.model_dump()["calls"][0]
    assert (call["arguments"], call["raw_arguments"]) == ({"city": "Paris"}, '{"city": "Paris"}')
    assert turn.anomalies == [] and turn.response_id == "v1_s" and turn.usage.input_tokens == 3
    assert turn.assistant is not None
    assert turn.assistant.provider_state == {"gemini-interactions": {"steps": [
        {"type": "thought", "signature": "c2ln"},
        {"type": "function_call", "id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}},
    ], "interaction_id": "v1_s"}}  # fmt: skip
    cut = ADAPTER.parse_stream(events[:-1], ["get_weather"])
    assert "stream_incomplete" in [a.code for a in cut.anomalies]
    error = [
        ("error", json.dumps({"event_type": "error", "error": {"code": "unavailable", "message": "busy"}}))
    ]
    assert ADAPTER.parse_stream(error).outcome.model_dump()["code"] == "overloaded"


def _send(root: str, messages: list[Message], **options: Any) -> tuple[dict[str, Any], ParsedTurn]:
    endpoint = Endpoint(
        name="interactions-test",
        dialect="gemini-interactions",
        base_url=base_urls(root)["gemini-interactions"],
        key_required=False,
        local=True,
    )
    built = ADAPTER.build_request(
        None, messages, [TOOL], ToolChoice(), RequestOptions(model="sim-careful", **options)
    )

    async def go() -> ParsedTurn:
        transport = Transport(timeout_s=20, retry=RetryPolicy(max_retries=0))
        try:
            exchange = await transport.exchange(
                endpoint, ADAPTER, built, api_key="k", offered_tools=[TOOL.name]
            )
        finally:
            await transport.aclose()
        return exchange.turn

    return built.body, asyncio.run(go())


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_stateful_and_stateless_conversations_end_alike(mock_server: str, stream: bool) -> None:
    question: list[Message] = [UserMessage(content="What is the weather in Paris right now?")]
    _, first = _send(mock_server, question, stream=stream)
    assert first.assistant is not None and first.outcome.kind == "tool_calls", first.outcome
    results = [
        ToolResultMessage(call_id=c.id, name=c.name, content={"city": "Paris", "temp_c": 18})
        for c in first.assistant.calls
    ]
    history: list[Message] = [*question, first.assistant, *results]
    _, stateless = _send(mock_server, history, stream=stream)
    body, stateful = _send(mock_server, history, stream=stream, previous_response_id=first.response_id)
    assert body["previous_interaction_id"] == first.response_id
    assert [step["type"] for step in body["input"]] == ["function_result"] * len(results)
    assert stateful.outcome.kind == "text" and stateful.outcome == stateless.outcome
