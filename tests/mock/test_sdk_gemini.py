"""The official ``google-genai`` SDK against the mock, unchanged (retries off)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google import genai
from google.genai import errors, types

from fcbench.mock.server import MockServer


def _client(server: MockServer, headers: dict[str, str] | None = None) -> genai.Client:
    options = types.HttpOptions(
        base_url=server.url,
        api_version="v1beta",
        timeout=20_000,
        headers=headers or {},
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    return genai.Client(api_key="test-key", http_options=options)


def _config(schema: dict[str, Any]) -> types.GenerateContentConfig:
    declaration = types.FunctionDeclaration(
        name="get_weather", description="Weather", parameters_json_schema=schema
    )
    return types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[declaration])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )


def test_function_call_and_response_round_trip(inspector: MockServer, weather_schema: dict[str, Any]) -> None:
    client = _client(inspector)
    config = _config(weather_schema)
    question = types.Content(role="user", parts=[types.Part(text="Weather in Paris?")])
    first = client.models.generate_content(model="sim-inspector", contents=[question], config=config)
    assert first.candidates[0].finish_reason == types.FinishReason.STOP
    call = first.function_calls[0]
    assert call.name == "get_weather" and call.args == {"city": "Paris"}
    assert first.candidates[0].content.parts[0].thought_signature
    assert first.usage_metadata.prompt_token_count > 0

    answer = types.Content(
        role="user",
        parts=[types.Part.from_function_response(name="get_weather", response={"output": "18 C"})],
    )
    second = client.models.generate_content(
        model="sim-inspector", contents=[question, first.candidates[0].content, answer], config=config
    )
    seen = json.loads(second.text)["tool_turns"]
    assert seen == [{"call_id": call.id, "tool_name": "get_weather", "result": "18 C", "is_error": False}]


def test_typed_parameters_are_accepted(inspector: MockServer) -> None:
    declaration = types.FunctionDeclaration(
        name="get_weather",
        parameters=types.Schema(
            type=types.Type.OBJECT,
            properties={"city": types.Schema(type=types.Type.STRING, nullable=True)},
            required=["city"],
        ),
    )
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[declaration])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    client = _client(inspector)
    result = client.models.generate_content(model="sim-inspector", contents="Weather?", config=config)
    assert result.function_calls[0].args == {"city": "Paris"}


def test_stream_carries_whole_calls(
    inspector: MockServer, scripted: Any, weather_schema: dict[str, Any]
) -> None:
    header = scripted(
        "calls", text="Looking.", calls=[("get_weather", '{"city":"Paris"}'), ("get_weather", "{}")]
    )
    client = _client(inspector, header)
    chunks = list(
        client.models.generate_content_stream(
            model="sim-scripted", contents="Paris?", config=_config(weather_schema)
        )
    )
    calls = [call for chunk in chunks for call in (chunk.function_calls or [])]
    assert [call.args for call in calls] == [{"city": "Paris"}, {}]
    text = "".join(part.text or "" for chunk in chunks for part in chunk.candidates[0].content.parts)
    assert text == "Looking."
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP


def test_rate_limit_is_client_error_with_retry_info(inspector: MockServer) -> None:
    client = _client(inspector, {"X-Fcbench-Fault": "rate_limit=37"})
    with pytest.raises(errors.ClientError) as info:
        client.models.generate_content(model="sim-scripted", contents="x")
    assert info.value.code == 429 and info.value.status == "RESOURCE_EXHAUSTED"
    details = info.value.details["error"]["details"]
    assert {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"} in details


@pytest.mark.parametrize(
    ("fault", "code", "status"), [("server_error", 500, "INTERNAL"), ("overload", 503, "UNAVAILABLE")]
)
def test_server_errors_are_server_error(inspector: MockServer, fault: str, code: int, status: str) -> None:
    client = _client(inspector, {"X-Fcbench-Fault": fault})
    with pytest.raises(errors.ServerError) as info:
        client.models.generate_content(model="sim-scripted", contents="x")
    assert info.value.code == code and info.value.status == status


def test_stream_error_chunk_raises(inspector: MockServer, scripted: Any) -> None:
    headers = {**scripted("text", text="one two three four five six"), "X-Fcbench-Fault": "stream_error"}
    client = _client(inspector, headers)
    with pytest.raises(errors.ServerError) as info:
        list(client.models.generate_content_stream(model="sim-scripted", contents="x"))
    assert info.value.code == 503


def test_unknown_model(inspector: MockServer) -> None:
    client = _client(inspector)
    with pytest.raises(errors.ClientError) as info:
        client.models.generate_content(model="no-such-model", contents="x")
    assert info.value.code == 404 and info.value.status == "NOT_FOUND"
    assert "models/no-such-model is not found" in info.value.message
