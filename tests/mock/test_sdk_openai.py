"""The official ``openai`` SDK (Chat Completions and Responses) against the mock, unchanged."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from fcbench.mock.server import MockServer


def _client(server: MockServer) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=server.base_urls()["openai-chat"], api_key="sk-test", max_retries=0, timeout=20
    )


def _chat_tools(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": "get_weather", "parameters": schema, "strict": True}}]


def _resp_tools(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "function", "name": "get_weather", "parameters": schema, "strict": True}]


def test_chat_tool_call_and_result_round_trip(inspector: MockServer, weather_schema: dict[str, Any]) -> None:
    client = _client(inspector)
    messages: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]
    first = client.chat.completions.create(
        model="sim-inspector", messages=messages, tools=_chat_tools(weather_schema)
    )
    assert first.id.startswith("chatcmpl-")
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    call = choice.message.tool_calls[0]
    assert call.id.startswith("call_") and len(call.id) == len("call_") + 24
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    assert first.usage.prompt_tokens > 0 and first.usage.total_tokens == first.usage.prompt_tokens + 7

    messages.append(choice.message.model_dump(exclude_none=True))
    messages.append({"role": "tool", "tool_call_id": call.id, "content": '{"temp_c": 18}'})
    second = client.chat.completions.create(
        model="sim-inspector", messages=messages, tools=_chat_tools(weather_schema)
    )
    assert second.choices[0].finish_reason == "stop"
    seen = json.loads(second.choices[0].message.content)["tool_turns"]
    assert seen == [
        {"call_id": call.id, "tool_name": "get_weather", "result": {"temp_c": 18}, "is_error": False}
    ]


def test_chat_named_choice_finishes_with_stop(inspector: MockServer, weather_schema: dict[str, Any]) -> None:
    result = _client(inspector).chat.completions.create(
        model="sim-inspector",
        messages=[{"role": "user", "content": "Weather?"}],
        tools=_chat_tools(weather_schema),
        tool_choice={"type": "function", "function": {"name": "get_weather"}},
    )
    assert result.choices[0].message.tool_calls and result.choices[0].finish_reason == "stop"


def test_chat_stream_parallel_calls_with_helper(
    inspector: MockServer, scripted: Any, weather_schema: dict
) -> None:
    header = scripted(
        "calls", calls=[("get_weather", '{"city":"Paris"}'), ("get_weather", '{"city":"Oslo"}')]
    )
    with _client(inspector).chat.completions.stream(
        model="sim-scripted",
        messages=[{"role": "user", "content": "Paris and Oslo"}],
        tools=_chat_tools(weather_schema),
        stream_options={"include_usage": True},
        extra_headers=header,
    ) as stream:
        final = stream.get_final_completion()
    calls = final.choices[0].message.tool_calls
    assert [json.loads(c.function.arguments)["city"] for c in calls] == ["Paris", "Oslo"]
    assert len({c.id for c in calls}) == 2
    assert final.choices[0].finish_reason == "tool_calls"
    assert final.usage is not None and final.usage.completion_tokens > 0


def test_chat_stream_raw_chunks_assemble(inspector: MockServer, weather_schema: dict[str, Any]) -> None:
    chunks = list(
        _client(inspector).chat.completions.create(
            model="sim-inspector",
            messages=[{"role": "user", "content": "Weather?"}],
            tools=_chat_tools(weather_schema),
            stream=True,
        )
    )
    arguments = "".join(
        tc.function.arguments or "" for ch in chunks for tc in (ch.choices[0].delta.tool_calls or [])
    )
    assert json.loads(arguments) == {"city": "Paris"}
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    assert all(ch.object == "chat.completion.chunk" for ch in chunks)


def test_responses_tool_call_and_result_round_trip(
    inspector: MockServer, weather_schema: dict[str, Any]
) -> None:
    client = _client(inspector)
    tools = _resp_tools(weather_schema)
    first = client.responses.create(model="sim-inspector", input="Weather in Paris?", tools=tools)
    assert first.id.startswith("resp_") and first.status == "completed"
    call = first.output[0]
    assert call.type == "function_call" and call.id.startswith("fc_") and call.call_id.startswith("call_")
    assert json.loads(call.arguments) == {"city": "Paris"}

    history: list[Any] = [
        {"role": "user", "content": "Weather in Paris?"},
        call.model_dump(exclude_none=True),
    ]
    history.append({"type": "function_call_output", "call_id": call.call_id, "output": "18 C"})
    second = client.responses.create(model="sim-inspector", input=history, tools=tools)
    seen = json.loads(second.output_text)["tool_turns"]
    assert seen == [
        {"call_id": call.call_id, "tool_name": "get_weather", "result": "18 C", "is_error": False}
    ]


def test_responses_previous_response_id(inspector: MockServer, weather_schema: dict[str, Any]) -> None:
    client = _client(inspector)
    tools = _resp_tools(weather_schema)
    first = client.responses.create(model="sim-inspector", input="Weather?", tools=tools)
    call_id = first.output[0].call_id
    second = client.responses.create(
        model="sim-inspector",
        previous_response_id=first.id,
        input=[{"type": "function_call_output", "call_id": call_id, "output": "sunny"}],
        tools=tools,
    )
    assert json.loads(second.output_text)["tool_turns"][0]["call_id"] == call_id
    with pytest.raises(openai.BadRequestError) as info:
        client.responses.create(model="sim-inspector", previous_response_id=first.id, input="hi", tools=tools)
    assert info.value.body["message"] == f"No tool output found for function call {call_id}."


def test_responses_stream_helper(inspector: MockServer, weather_schema: dict[str, Any]) -> None:
    with _client(inspector).responses.stream(
        model="sim-inspector", input="Weather?", tools=_resp_tools(weather_schema)
    ) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_response()
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert "response.function_call_arguments.delta" in kinds
    assert json.loads(final.output[0].arguments) == {"city": "Paris"}
    assert final.usage is not None and final.usage.output_tokens > 0


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_rate_limit_raises_rate_limit_error(inspector: MockServer, api: str) -> None:
    client = _client(inspector)
    headers = {"X-Fcbench-Fault": "rate_limit=3"}
    with pytest.raises(openai.RateLimitError) as info:
        if api == "chat":
            client.chat.completions.create(
                model="sim-scripted", messages=[{"role": "user", "content": "x"}], extra_headers=headers
            )
        else:
            client.responses.create(model="sim-scripted", input="x", extra_headers=headers)
    assert info.value.status_code == 429
    assert info.value.response.headers["retry-after"] == "3"
    assert info.value.code == "rate_limit_exceeded"
    assert info.value.request_id and info.value.request_id.startswith("req_")


@pytest.mark.parametrize(("fault", "status"), [("server_error", 500), ("overload", 503)])
@pytest.mark.parametrize("api", ["chat", "responses"])
def test_server_errors_raise_internal_server_error(
    inspector: MockServer, api: str, fault: str, status: int
) -> None:
    client = _client(inspector)
    headers = {"X-Fcbench-Fault": fault}
    with pytest.raises(openai.InternalServerError) as info:
        if api == "chat":
            client.chat.completions.create(
                model="sim-scripted", messages=[{"role": "user", "content": "x"}], extra_headers=headers
            )
        else:
            client.responses.create(model="sim-scripted", input="x", extra_headers=headers)
    assert info.value.status_code == status
    assert info.value.type == "server_error"


def test_stream_error_event_raises_api_error(inspector: MockServer, scripted: Any) -> None:
    stream = _client(inspector).chat.completions.create(
        model="sim-scripted",
        messages=[{"role": "user", "content": "x"}],
        stream=True,
        extra_headers={
            **scripted("text", text="one two three four five six"),
            "X-Fcbench-Fault": "stream_error",
        },
    )
    with pytest.raises(openai.APIError) as info:
        list(stream)
    assert not isinstance(info.value, openai.APIStatusError)


def test_unknown_model(inspector: MockServer) -> None:
    client = _client(inspector)
    with pytest.raises(openai.NotFoundError) as info:
        client.chat.completions.create(model="no-such-model", messages=[{"role": "user", "content": "x"}])
    assert info.value.code == "model_not_found"
    with pytest.raises(openai.BadRequestError) as info2:
        client.responses.create(model="no-such-model", input="x")
    assert info2.value.code == "model_not_found" and info2.value.param == "model"
