"""The official ``anthropic`` SDK against the mock, unchanged."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest

from fcbench.mock.server import MockServer


def _client(server: MockServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        base_url=server.base_urls()["anthropic-messages"], api_key="sk-ant-test", max_retries=0, timeout=20
    )


def _tools(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": "get_weather", "description": "Current weather", "input_schema": schema}]


def test_tool_use_and_result_round_trip(inspector: MockServer, weather_schema: dict[str, Any]) -> None:
    client = _client(inspector)
    messages: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]
    first = client.messages.create(
        model="sim-inspector", max_tokens=200, messages=messages, tools=_tools(weather_schema)
    )
    assert first.id.startswith("msg_") and first.stop_reason == "tool_use"
    block = first.content[0]
    assert block.type == "tool_use" and block.id.startswith("toolu_")
    assert block.input == {"city": "Paris"}
    assert first.usage.input_tokens > 0 and first.usage.output_tokens > 0

    messages.append(
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]}
    )
    messages.append(
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": block.id, "content": "no data", "is_error": True}
            ],
        }
    )
    second = client.messages.create(
        model="sim-inspector", max_tokens=200, messages=messages, tools=_tools(weather_schema)
    )
    assert second.stop_reason == "end_turn"
    seen = json.loads(second.content[0].text)["tool_turns"]
    assert seen == [{"call_id": block.id, "tool_name": "get_weather", "result": "no data", "is_error": True}]


def test_stream_helper_assembles_parallel_calls(
    inspector: MockServer, scripted: Any, weather_schema: dict
) -> None:
    header = scripted(
        "calls",
        text="Checking both.",
        calls=[("get_weather", '{"city":"Paris"}'), ("get_weather", '{"city":"Oslo"}')],
    )
    with _client(inspector).messages.stream(
        model="sim-scripted",
        max_tokens=200,
        messages=[{"role": "user", "content": "Paris and Oslo"}],
        tools=_tools(weather_schema),
        extra_headers=header,
    ) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_message()
    assert kinds[0] == "message_start" and "message_stop" in kinds
    assert [b.type for b in final.content] == ["text", "tool_use", "tool_use"]
    assert final.content[0].text == "Checking both."
    assert [b.input["city"] for b in final.content[1:]] == ["Paris", "Oslo"]
    assert final.stop_reason == "tool_use" and final.usage.output_tokens > 1


def test_raw_stream_events(inspector: MockServer, weather_schema: dict[str, Any]) -> None:
    events = list(
        _client(inspector).messages.create(
            model="sim-inspector",
            max_tokens=200,
            messages=[{"role": "user", "content": "Weather?"}],
            tools=_tools(weather_schema),
            stream=True,
        )
    )
    partial = "".join(
        e.delta.partial_json
        for e in events
        if e.type == "content_block_delta" and e.delta.type == "input_json_delta"
    )
    assert json.loads(partial) == {"city": "Paris"}
    assert events[-1].type == "message_stop"


def test_rate_limit_raises_rate_limit_error(inspector: MockServer) -> None:
    with pytest.raises(anthropic.RateLimitError) as info:
        _client(inspector).messages.create(
            model="sim-scripted",
            max_tokens=10,
            messages=[{"role": "user", "content": "x"}],
            extra_headers={"X-Fcbench-Fault": "rate_limit"},
        )
    assert info.value.status_code == 429
    assert info.value.response.headers["retry-after"] == "1"
    assert info.value.body["error"]["type"] == "rate_limit_error"
    assert info.value.request_id and info.value.request_id.startswith("req_")


@pytest.mark.parametrize(
    ("fault", "status", "error_class"),
    [("server_error", 500, anthropic.InternalServerError), ("overload", 529, anthropic.OverloadedError)],
)
def test_server_errors(inspector: MockServer, fault: str, status: int, error_class: type[Exception]) -> None:
    with pytest.raises(error_class) as info:
        _client(inspector).messages.create(
            model="sim-scripted",
            max_tokens=10,
            messages=[{"role": "user", "content": "x"}],
            extra_headers={"X-Fcbench-Fault": fault},
        )
    assert isinstance(info.value, anthropic.InternalServerError)
    assert info.value.status_code == status


def test_stream_error_event(inspector: MockServer, scripted: Any) -> None:
    stream = _client(inspector).messages.create(
        model="sim-scripted",
        max_tokens=10,
        messages=[{"role": "user", "content": "x"}],
        stream=True,
        extra_headers={**scripted("text", text="one two three four five"), "X-Fcbench-Fault": "stream_error"},
    )
    with pytest.raises(anthropic.APIStatusError) as info:
        list(stream)
    assert info.value.body["error"]["type"] == "overloaded_error"


def test_unknown_model_is_not_found(inspector: MockServer) -> None:
    with pytest.raises(anthropic.NotFoundError) as info:
        _client(inspector).messages.create(
            model="nope", max_tokens=10, messages=[{"role": "user", "content": "x"}]
        )
    assert info.value.body == {
        "type": "error",
        "error": {"type": "not_found_error", "message": "model: nope"},
        "request_id": info.value.body["request_id"],
    }
