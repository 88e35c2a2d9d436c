"""The ``openai-chat`` adapter against recorded real traffic and hand-made edge cases."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from typing import Any

import openai_samples as samples
import pytest
import wire_fixtures as wire
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.adapters import get
from fcbench.adapters.base import Adapter, ParsedTurn, RequestOptions, ToolChoice
from fcbench.adapters.openai_chat.errors import retry_after_seconds
from fcbench.contract import AssistantMessage, ToolCallsOutcome, UserMessage, make_call

ADAPTER = get("openai-chat")

PASSWORD_CALLS = [
    ("secret_retrieval_tool", {"password": "mellon"}),
    ("secret_retrieval_tool", {"password": "radiance"}),
]
SECRETS = ["Welcome to Moria!", "Life before Death"]

# What each recorded Chat Completions response must read as. Keys: fixture key; values:
# kind, calls [(name, arguments)], words the text must contain, anomaly codes, finish reason, error code.
EXPECTED: dict[str, dict[str, Any]] = {
    **{
        f"mirascope/test_call_with_tools__openai_gpt_4o_completions__{mode}.yaml#{i}": {
            "kind": "tool_calls",
            "calls": PASSWORD_CALLS,
            "finish": "tool_calls",
        }
        for mode in ("sync", "stream")
        for i in (0, 2, 4)
    },
    **{
        f"mirascope/test_call_with_tools__openai_gpt_4o_completions__{mode}.yaml#{i}": {
            "kind": "text",
            "words": ["mellon", "radiance", *SECRETS],
            "finish": "stop",
        }
        for mode in ("sync", "stream")
        for i in (1, 3, 5)
    },
    **{
        f"mirascope/test_model_not_found__openai_gpt_4o_completions.yaml#{i}": {
            "kind": "provider_error",
            "code": "not_found",
            "words": ["this-model-does-not-exist-12345", "model_not_found"],
        }
        for i in (0, 1)
    },
    **{
        f"mirascope/test_refusal__openai_gpt_4o_completions__{mode}.yaml#0": {
            "kind": "refusal",
            "words": ["I'm very sorry, but I can't assist with that request."],
            "anomalies": ["refusal_field"],
            "finish": "stop",
        }
        for mode in ("sync", "stream")
    },
    "pydantic-ai/test_tool_choice_matrix[none-openai].yaml#0": {
        "kind": "text",
        "words": ["Paris", "live weather"],
        "finish": "stop",
    },
    "pydantic-ai/test_tool_choice_matrix[required-openai].yaml#0": {
        "kind": "tool_calls",
        "calls": [("get_weather", {"city": "Paris"})],
        "finish": "tool_calls",
    },
    "openai-python/chat_stream__test_parse_max_tokens_reached.sse#0": {
        "kind": "text",
        "words": ['{"'],
        "finish": "length",
    },
    "openai-python/chat_stream__test_parse_multiple_pydantic_tools.sse#0": {
        "kind": "tool_calls",
        "calls": [
            ("GetWeatherArgs", {"city": "Edinburgh", "country": "GB", "units": "c"}),
            ("get_stock_price", {"ticker": "AAPL", "exchange": "NASDAQ"}),
        ],
        "finish": "tool_calls",
    },
    "openai-python/chat_stream__test_parse_pydantic_model_refusal.sse#0": {
        "kind": "refusal",
        "words": ["I'm sorry, I can't assist with that request."],
        "anomalies": ["refusal_field"],
        "finish": "stop",
    },
    "openai-python/chat_stream__test_parse_pydantic_tool.sse#0": {
        "kind": "tool_calls",
        "calls": [("GetWeatherArgs", {"city": "Edinburgh", "country": "UK", "units": "c"})],
        "finish": "tool_calls",
    },
    "openai-python/chat_stream__test_parse_strict_tools.sse#0": {
        "kind": "tool_calls",
        "calls": [("get_weather", {"city": "San Francisco", "state": "CA"})],
        "finish": "tool_calls",
    },
}


def _fixture_keys() -> list[str]:
    keys = [it.key for it in wire.interactions(api="openai_chat")]
    return keys + [f"openai-python/{p.name}#0" for p in wire.sse_files()]


def _read(key: str) -> tuple[ParsedTurn, list[str] | None, str | None]:
    """Parse one fixture with the adapter: (turn, offered tool names, response id prefix)."""
    file, _, index = key.rpartition("#")
    if file.endswith(".sse"):
        return ADAPTER.parse_stream(wire.sse_file_events(wire.WIRE / file)), None, "chatcmpl-"
    item = next(it for it in wire.interactions(api="openai_chat") if it.key == key)
    offered = [t["function"]["name"] for t in (item.request_json or {}).get("tools", [])]
    if item.status >= 400:
        return ParsedTurn(outcome=ADAPTER.parse_error(item.status, item.response_body, {})), offered, None
    if item.stream:
        return ADAPTER.parse_stream(item.events(), offered), offered, "chatcmpl-"
    return ADAPTER.parse_response(item.response_json, offered), offered, "chatcmpl-"


def test_every_recorded_chat_response_has_an_expectation() -> None:
    assert sorted(_fixture_keys()) == sorted(EXPECTED)


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_recorded_chat_responses(key: str) -> None:
    expected = EXPECTED[key]
    turn, _, id_prefix = _read(key)
    outcome = turn.outcome
    assert outcome.kind == expected["kind"]
    assert sorted(a.code for a in turn.anomalies) == sorted(expected.get("anomalies", []))
    file, _, index = key.rpartition("#")
    manifest = wire.manifest_entry(file, int(index))
    if isinstance(outcome, ToolCallsOutcome):
        assert [(c.name, c.arguments) for c in outcome.calls] == expected["calls"]
        assert sorted(c.id or "" for c in outcome.calls) == sorted(manifest["tool_call_ids"])
        assert all(
            c.parse_error is None and json.loads(c.raw_arguments or "") == c.arguments for c in outcome.calls
        )
        assert turn.assistant is not None and turn.assistant.calls == outcome.calls
    else:
        assert manifest["tool_call_ids"] == []
    text = outcome.message if outcome.kind == "provider_error" else getattr(outcome, "text", None)
    for word in expected.get("words", []):
        assert word in (text or "")
    if outcome.kind == "provider_error":
        assert outcome.code == expected["code"] and outcome.status == manifest["status"]
        return
    assert turn.finish_reason == expected["finish"]
    assert ("refusal" in manifest["features"]) == (outcome.kind == "refusal")
    assert ("finish_length" in manifest["features"]) == (turn.finish_reason == "length")
    assert turn.response_id is not None and id_prefix is not None and turn.response_id.startswith(id_prefix)
    assert turn.usage.input_tokens and turn.usage.output_tokens


OK_JSON = [it for it in wire.interactions(api="openai_chat", stream=False) if it.status == 200]


@pytest.mark.parametrize("item", OK_JSON, ids=lambda it: it.key)
def test_recorded_usage_maps_prompt_and_completion_tokens(item: wire.Interaction) -> None:
    usage = item.response_json["usage"]
    turn = ADAPTER.parse_response(item.response_json)
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (
        usage["prompt_tokens"],
        usage["completion_tokens"],
    )


@pytest.mark.parametrize(
    "item",
    [it for it in wire.interactions(api="openai_chat", stream=False) if it.status == 200],
    ids=lambda it: it.key,
)
def test_a_stream_reads_like_its_json_body(item: wire.Interaction) -> None:
    offered = [t["function"]["name"] for t in item.request_json.get("tools", [])]
    whole = ADAPTER.parse_response(item.response_json, offered)
    for size in (1, 4, 50):
        streamed = ADAPTER.parse_stream(samples.chat_stream(item.response_json, size), offered)
        assert streamed.outcome == whole.outcome
        assert streamed.anomalies == whole.anomalies
        assert (streamed.usage, streamed.finish_reason, streamed.response_id) == (
            whole.usage,
            whole.finish_reason,
            whole.response_id,
        )


def test_follow_up_request_matches_the_recorded_one() -> None:
    """Reading turn 0 and answering its calls rebuilds the recorded request of turn 1."""
    file = "mirascope/test_call_with_tools__openai_gpt_4o_completions__sync.yaml"
    first, second = (it for it in wire.interactions(api="openai_chat") if it.file == file and it.i in (0, 1))
    turn = ADAPTER.parse_response(first.response_json)
    assert isinstance(turn.outcome, ToolCallsOutcome) and turn.assistant is not None
    system, user = first.request_json["messages"]
    history = [UserMessage(content=user["content"]), turn.assistant]
    history += samples.results_for(turn.outcome.calls, SECRETS)
    built = ADAPTER.build_request(system["content"], history, [], ToolChoice(), samples.OPTIONS)

    def normal(message: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in message.items() if v is not None and k != "annotations"}

    assert [normal(m) for m in built.body["messages"]] == [normal(m) for m in second.request_json["messages"]]


# --- building requests ------------------------------------------------------------------------


def test_build_maps_history_tools_and_options() -> None:
    options = RequestOptions(
        model="gpt-test", temperature=0.2, max_tokens=300, seed=7, parallel_tool_calls=False
    )
    built = ADAPTER.build_request("Be terse.", samples.history(), samples.TOOLS, ToolChoice(), options)
    body = built.body
    assert built.path == "/chat/completions" and built.stream is False
    assert (body["model"], body["temperature"], body["max_completion_tokens"], body["seed"]) == (
        "gpt-test",
        0.2,
        300,
        7,
    )
    assert body["parallel_tool_calls"] is False and body["tool_choice"] == "auto"
    assert "stream" not in body and "max_tokens" not in body
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "system", "user", "assistant", "tool", "tool", "assistant", "user"]
    assert body["messages"][0]["content"] == "Be terse."
    calls = body["messages"][3]["tool_calls"]
    assert calls == [
        {
            "id": "call_a1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
        },
        {
            "id": "call_b2",
            "type": "function",
            "function": {"name": "lookup_order", "arguments": '{"order_id":"ORD-104821"}'},
        },
    ]
    assert body["messages"][4] == {
        "role": "tool",
        "tool_call_id": "call_b2",
        "content": '{"status":"shipped"}',
    }
    assert body["messages"][5] == {"role": "tool", "tool_call_id": "call_a1", "content": "upstream timeout"}
    assert any("is_error" in note for note in built.notes)
    weather = body["tools"][0]
    assert weather["type"] == "function" and set(weather["function"]) == {"name", "description", "parameters"}
    assert weather["function"]["parameters"] == samples.WEATHER.parameters
    assert "$schema" not in body["tools"][1]["function"]["parameters"]
    assert [c.keyword for c in built.schema_changes] == ["$schema"]


@pytest.mark.parametrize(
    ("choice", "wire_value"),
    [
        (ToolChoice(mode="auto"), "auto"),
        (ToolChoice(mode="required"), "required"),
        (ToolChoice(mode="none"), "none"),
        (ToolChoice.parse("tool:get_weather"), {"type": "function", "function": {"name": "get_weather"}}),
    ],
)
def test_tool_choice_modes(choice: ToolChoice, wire_value: Any) -> None:
    built = ADAPTER.build_request(None, [UserMessage(content="hi")], samples.TOOLS, choice, samples.OPTIONS)
    assert built.body["tool_choice"] == wire_value
    assert "parallel_tool_calls" not in built.body
    assert built.notes == []


def test_named_choice_outside_the_tools_is_sent_and_noted() -> None:
    built = ADAPTER.build_request(
        None, [UserMessage(content="hi")], samples.TOOLS, ToolChoice.parse("tool:nope"), samples.OPTIONS
    )
    assert built.body["tool_choice"]["function"]["name"] == "nope"
    assert any("nope" in note for note in built.notes)


def test_no_tools_leaves_tool_fields_out_with_notes() -> None:
    options = RequestOptions(model="m", parallel_tool_calls=True, strict=True)
    built = ADAPTER.build_request(None, [UserMessage(content="hi")], [], ToolChoice(mode="required"), options)
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(built.body)
    assert len(built.notes) == 3


def test_strict_mode_marks_functions_and_records_schema_changes() -> None:
    options = RequestOptions(model="m", strict=True)
    built = ADAPTER.build_request(None, [UserMessage(content="hi")], samples.TOOLS, ToolChoice(), options)
    weather = built.body["tools"][0]["function"]
    assert weather["strict"] is True
    params = weather["parameters"]
    assert params["additionalProperties"] is False and sorted(params["required"]) == ["city", "units"]
    assert "default" not in params["properties"]["units"] and "null" in params["properties"]["units"]["type"]
    changed = {(c.tool, c.keyword) for c in built.schema_changes}
    assert {
        ("get_weather", "additionalProperties"),
        ("get_weather", "required"),
        ("get_weather", "default"),
    } <= changed
    assert ("lookup_order", "$schema") in changed
    assert samples.WEATHER.parameters["required"] == ["city"]  # canonical schema untouched


def test_stream_option_asks_for_usage() -> None:
    options = RequestOptions(model="m", stream=True)
    built = ADAPTER.build_request(None, [UserMessage(content="hi")], [], ToolChoice(), options)
    assert built.stream is True
    assert built.body["stream"] is True and built.body["stream_options"] == {"include_usage": True}


def test_history_replays_raw_arguments_even_when_unparseable() -> None:
    broken = make_call("call_x", "get_weather", '{"city": "Par')
    history = [UserMessage(content="hi"), AssistantMessage(calls=[broken])]
    built = ADAPTER.build_request(None, history, samples.TOOLS, ToolChoice(), samples.OPTIONS)
    assert built.body["messages"][1]["tool_calls"][0]["function"]["arguments"] == '{"city": "Par'


def test_history_call_without_id_is_noted() -> None:
    call = make_call(None, "get_weather", "{}")
    history = [UserMessage(content="hi"), AssistantMessage(calls=[call])]
    built = ADAPTER.build_request(None, history, samples.TOOLS, ToolChoice(), samples.OPTIONS)
    assert "id" not in built.body["messages"][1]["tool_calls"][0]
    assert any("no id" in note for note in built.notes)


def test_tool_result_messages_follow_call_ids_not_positions() -> None:
    calls = [samples.CALL_A, samples.CALL_B]
    results = list(reversed(samples.results_for(calls, ["sunny", "shipped"])))
    wire_messages = ADAPTER.tool_result_messages(calls, results)
    assert wire_messages == [
        {"role": "tool", "tool_call_id": "call_a1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_b2", "content": "shipped"},
    ]


def test_adapter_satisfies_the_protocol() -> None:
    assert isinstance(ADAPTER, Adapter)
    assert ADAPTER.dialect == "openai-chat"
    assert set(ADAPTER.capabilities.tool_choice) == {"auto", "required", "none", "named"}
    assert ADAPTER.capabilities.parallel_control and ADAPTER.capabilities.strict_mode
    assert ADAPTER.auth_headers("sk-x") == {"Authorization": "Bearer sk-x"}
    assert ADAPTER.auth_headers(None) == {}


# --- errors and retry hints -------------------------------------------------------------------


def _error(
    message: str, kind: str = "invalid_request_error", code: str | None = None, param: str | None = None
) -> dict:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (
            400,
            _error(
                "Invalid schema for function 'f': 'additionalProperties' is required",
                code="invalid_function_parameters",
                param="tools[0].function.parameters",
            ),
            "schema_rejected",
        ),
        (
            400,
            _error("'uniqueItems' is not permitted.", param="tools[1].function.parameters"),
            "schema_rejected",
        ),
        (
            400,
            _error("An assistant message with 'tool_calls' must be followed by tool messages"),
            "bad_request",
        ),
        (
            400,
            _error("The requested model 'x' does not exist.", code="model_not_found", param="model"),
            "not_found",
        ),
        (422, _error("Unprocessable"), "bad_request"),
        (401, _error("Incorrect API key provided", code="invalid_api_key"), "auth"),
        (403, _error("Forbidden", kind="permission_error"), "auth"),
        (404, _error("The model `m` does not exist", code="model_not_found"), "not_found"),
        (408, "request timeout", "timeout"),
        (429, _error("Rate limit reached", code="rate_limit_exceeded"), "rate_limited"),
        (500, _error("The server had an error", kind="server_error"), "server"),
        (502, "<html>bad gateway</html>", "server"),
        (503, _error("The engine is currently overloaded"), "overloaded"),
        (504, "", "timeout"),
        (418, {"message": "I'm a teapot", "type": "BadRequestError", "code": 418}, "bad_request"),
    ],
)
def test_parse_error_maps_status_and_body(status: int, body: Any, code: str) -> None:
    error = ADAPTER.parse_error(status, body, {})
    assert (error.code, error.status) == (code, status)
    assert error.message


def test_parse_error_keeps_unparseable_text_and_reads_bytes() -> None:
    assert "upstream exploded" in ADAPTER.parse_error(500, b"upstream exploded", {}).message
    wrapped = json.dumps(_error("Rate limit reached for gpt", code="rate_limit_exceeded")).encode()
    error = ADAPTER.parse_error(429, wrapped, {})
    assert error.code == "rate_limited" and "Rate limit reached for gpt" in error.message
    assert "code=rate_limit_exceeded" in error.message


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"Retry-After": "1.5"}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "Wed, 21 Oct 2026 07:28:30 GMT"}, 30.0),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "-4"}, 0.0),
        ({}, None),
    ],
)
def test_retry_after(headers: dict[str, str], seconds: float | None) -> None:
    now = datetime(2026, 10, 21, 7, 28, 0, tzinfo=UTC)
    assert retry_after_seconds(429, None, headers, now=now) == seconds
    if "Wed" not in str(headers):
        assert ADAPTER.retry_after_seconds(429, None, headers) == seconds


# --- anomalies and malformed bodies -----------------------------------------------------------


def completion(message: dict[str, Any], finish: Any = "tool_calls", **extra: Any) -> dict[str, Any]:
    """A minimal ``chat.completion`` body around ``message``."""
    return {
        "id": "chatcmpl-t",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2},
        **extra,
    }


def call(call_id: Any, name: str, arguments: Any) -> dict[str, Any]:
    """One wire tool call."""
    item: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if call_id is not None:
        item["id"] = call_id
    return item


def codes(turn: ParsedTurn) -> list[str]:
    """The anomaly codes of a turn, in order."""
    return [a.code for a in turn.anomalies]


@pytest.mark.parametrize(
    ("calls", "finish", "expected"),
    [
        ([call(None, "get_weather", '{"city":"Oslo"}')], "tool_calls", ["missing_call_id"]),
        (
            [call("c1", "get_weather", "{}"), call("c1", "get_weather", "{}")],
            "tool_calls",
            ["duplicate_call_id"],
        ),
        ([call("c1", "delete_everything", "{}")], "tool_calls", ["tool_not_offered"]),
        ([call("c1", "get_weather", '{"city": "Os')], "tool_calls", ["unparseable_arguments"]),
        ([call("c1", "get_weather", "")], "tool_calls", ["empty_arguments"]),
        ([call("c1", "get_weather", "[1, 2]")], "tool_calls", ["arguments_not_object"]),
        ([call("c1", "get_weather", {"city": "Oslo"})], "tool_calls", ["arguments_type_mismatch"]),
        (
            [call("c1", "get_weather", '{"city": "Os')],
            "length",
            ["unparseable_arguments", "finish_reason_mismatch"],
        ),
        ([call("c1", "get_weather", '{"city":"Oslo"}')], "stop", []),
        ([call("c1", "get_weather", '{"city":"Oslo"}')], "content_filter", ["finish_reason_mismatch"]),
    ],
)
def test_call_anomalies(calls: list[dict[str, Any]], finish: str, expected: list[str]) -> None:
    turn = ADAPTER.parse_response(completion({"content": None, "tool_calls": calls}, finish), samples.NAMES)
    assert isinstance(turn.outcome, ToolCallsOutcome)
    assert sorted(codes(turn)) == sorted(expected)
    assert len(turn.outcome.calls) == len(calls)


def test_object_arguments_are_kept_as_produced() -> None:
    body = completion({"tool_calls": [call("c1", "get_weather", {"city": "Oslo", "units": 3})]})
    produced = ADAPTER.parse_response(body, samples.NAMES).outcome
    assert isinstance(produced, ToolCallsOutcome)
    assert produced.calls[0].arguments == {"city": "Oslo", "units": 3}
    assert produced.calls[0].raw_arguments == '{"city":"Oslo","units":3}'


def test_unparseable_arguments_are_never_repaired() -> None:
    body = completion({"tool_calls": [call("c1", "get_weather", "{'city': 'Oslo'}")]})
    produced = ADAPTER.parse_response(body, samples.NAMES).outcome
    assert isinstance(produced, ToolCallsOutcome)
    only = produced.calls[0]
    assert only.arguments is None and only.raw_arguments == "{'city': 'Oslo'}" and only.parse_error


def test_missing_arguments_are_null_with_a_parse_error() -> None:
    body = completion({"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather"}}]})
    turn = ADAPTER.parse_response(body, samples.NAMES)
    assert isinstance(turn.outcome, ToolCallsOutcome)
    assert turn.outcome.calls[0].parse_error == "arguments missing" and codes(turn) == [
        "unparseable_arguments"
    ]


def test_finish_reason_tool_calls_without_calls() -> None:
    turn = ADAPTER.parse_response(completion({"content": "Sure."}, "tool_calls"), samples.NAMES)
    assert turn.outcome.kind == "text" and codes(turn) == ["finish_reason_mismatch"]


def test_json_call_in_text() -> None:
    text = '```json\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n```'
    turn = ADAPTER.parse_response(completion({"content": text}, "stop"), samples.NAMES)
    assert turn.outcome.kind == "text" and codes(turn) == ["json_call_in_text"]
    assert (
        codes(ADAPTER.parse_response(completion({"content": '{"name": "other"}'}, "stop"), samples.NAMES))
        == []
    )


def test_empty_message_and_content_filter() -> None:
    turn = ADAPTER.parse_response(completion({"content": None}, "stop"))
    assert turn.outcome.kind == "text" and codes(turn) == ["empty_response"]
    filtered = ADAPTER.parse_response(completion({"content": None}, "content_filter"))
    assert filtered.outcome.kind == "refusal" and codes(filtered) == []


def test_text_beside_calls_and_content_parts() -> None:
    body = completion(
        {
            "content": [{"type": "text", "text": "Checking"}, {"type": "image_url"}],
            "tool_calls": [call("c1", "get_weather", "{}")],
        }
    )
    turn = ADAPTER.parse_response(body, samples.NAMES)
    assert isinstance(turn.outcome, ToolCallsOutcome) and turn.outcome.text == "Checking"
    assert codes(turn) == ["unknown_content"]


def test_non_function_tool_calls_are_flagged_not_read() -> None:
    body = completion(
        {"tool_calls": [{"id": "c1", "type": "custom", "custom": {"name": "x", "input": "y"}}]}, "tool_calls"
    )
    turn = ADAPTER.parse_response(body, samples.NAMES)
    assert turn.outcome.kind == "text"
    assert sorted(codes(turn)) == ["empty_response", "finish_reason_mismatch", "unknown_content"]


def test_error_inside_a_200_body_is_a_provider_error() -> None:
    turn = ADAPTER.parse_response(_error("Rate limit", code="rate_limit_exceeded"))
    assert turn.outcome.kind == "provider_error" and turn.outcome.code == "rate_limited"
    plain = ADAPTER.parse_response({"error": "backend unavailable"})
    assert plain.outcome.kind == "provider_error" and plain.outcome.message == "backend unavailable"
    assert "backend unavailable" in ADAPTER.parse_error(500, {"error": "backend unavailable"}, {}).message


KEYS = [
    *("choices", "message", "tool_calls", "function", "arguments", "name", "id", "delta"),
    *("content", "refusal", "finish_reason", "index", "usage", "error", "type"),
]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(body=JSON_VALUES)
def test_arbitrary_bodies_never_raise(body: Any) -> None:
    turn = ADAPTER.parse_response(body, samples.NAMES)
    assert turn.outcome.kind in {"tool_calls", "text", "refusal", "provider_error"}
    events = [(None, json.dumps(body)), (None, json.dumps({"choices": [{"delta": body}]})), (None, "[DONE]")]
    assert ADAPTER.parse_stream(events, samples.NAMES).outcome.kind


@pytest.mark.parametrize(
    "body",
    [
        "not json at all",
        b"\x00\x01",
        ["a", "list"],
        42,
        None,
        {"id": "x"},
        {"choices": []},
        {"choices": "nope"},
        {"choices": [5]},
        {"choices": [{"message": "hello"}]},
        completion({"tool_calls": {"id": "c1"}}),
        completion({"tool_calls": ["c1"]}),
        completion({"tool_calls": [{"id": "c1", "type": "function"}]}),
        completion({"tool_calls": [{"id": "c1", "type": "function", "function": {"arguments": "{}"}}]}),
        completion(
            {"tool_calls": [{"id": 7, "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
        ),
        completion({"content": 12}),
        completion({"content": "x", "refusal": ["no"]}),
        completion({"content": "x"}, finish=3),
    ],
)
def test_malformed_bodies_are_bad_response(body: Any) -> None:
    turn = ADAPTER.parse_response(body, samples.NAMES)
    assert turn.outcome.kind == "provider_error" and turn.outcome.code == "bad_response"
    assert turn.outcome.message and turn.assistant is None


def test_refusal_field_wins_over_empty_content() -> None:
    turn = ADAPTER.parse_response(completion({"content": None, "refusal": "No."}, "stop"))
    assert turn.outcome.kind == "refusal" and turn.outcome.text == "No." and codes(turn) == ["refusal_field"]
    assert turn.assistant is not None and turn.assistant.content == "No."


# --- streams ----------------------------------------------------------------------------------


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> tuple[None, str]:
    """One unnamed ``chat.completion.chunk`` record."""
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return None, json.dumps({"id": "chatcmpl-s", "choices": choices, **extra})


DONE = (None, "[DONE]")


def test_stream_assembles_parallel_calls_by_index() -> None:
    events = [
        chunk({"role": "assistant", "content": None}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "c0",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": ""},
                    }
                ]
            }
        ),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "lookup_order", "arguments": '{"order'},
                    }
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":'}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": '_id":"ORD-1"}'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Oslo"}'}}]}),
        chunk({}, "tool_calls"),
        chunk(None, usage={"prompt_tokens": 9, "completion_tokens": 4}),
        DONE,
    ]
    turn = ADAPTER.parse_stream(events, samples.NAMES)
    assert isinstance(turn.outcome, ToolCallsOutcome)
    assert [(c.id, c.name, c.arguments) for c in turn.outcome.calls] == [
        ("c0", "get_weather", {"city": "Oslo"}),
        ("c1", "lookup_order", {"order_id": "ORD-1"}),
    ]
    assert codes(turn) == [] and (turn.usage.input_tokens, turn.usage.output_tokens) == (9, 4)


def test_stream_whole_calls_without_index() -> None:
    """Ollama-style: each call arrives whole in one fragment with no index."""
    events = [
        chunk(
            {
                "tool_calls": [
                    {"id": "call_1", "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'}}
                ]
            }
        ),
        chunk(
            {
                "tool_calls": [
                    {"id": "call_2", "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'}}
                ]
            }
        ),
        chunk({}, "tool_calls"),
        DONE,
    ]
    turn = ADAPTER.parse_stream(events, samples.NAMES)
    assert isinstance(turn.outcome, ToolCallsOutcome)
    assert [c.arguments["city"] for c in turn.outcome.calls] == ["Rome", "Oslo"] and codes(turn) == []


def test_stream_object_arguments_are_flagged() -> None:
    events = [
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "c",
                        "function": {"name": "get_weather", "arguments": {"city": "Oslo"}},
                    }
                ]
            },
            "tool_calls",
        ),
        DONE,
    ]
    turn = ADAPTER.parse_stream(events, samples.NAMES)
    assert codes(turn) == ["arguments_type_mismatch"]


def test_stream_without_done_is_incomplete_but_read() -> None:
    events = [chunk({"content": "Hel"}), chunk({"content": "lo"}, "stop")]
    turn = ADAPTER.parse_stream(events)
    assert turn.outcome.kind == "text" and turn.outcome.text == "Hello"
    assert codes(turn) == ["stream_incomplete"]


def test_stream_cut_inside_arguments() -> None:
    events = [
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "c", "function": {"name": "get_weather", "arguments": '{"ci'}}
                ]
            }
        )
    ]
    turn = ADAPTER.parse_stream(events, samples.NAMES)
    assert isinstance(turn.outcome, ToolCallsOutcome) and turn.outcome.calls[0].raw_arguments == '{"ci'
    assert sorted(codes(turn)) == ["stream_incomplete", "unparseable_arguments"]


def test_stream_done_without_finish_reason_is_incomplete() -> None:
    turn = ADAPTER.parse_stream([chunk({"content": "Hi"}), DONE])
    assert codes(turn) == ["stream_incomplete"]


def test_stream_junk_records_are_anomalies_not_exceptions() -> None:
    events = [
        chunk({"content": "Hi"}, "stop"),
        (None, ""),
        DONE,
        (None, '{"late": 1}'),
        (None, "not json"),
    ]
    turn = ADAPTER.parse_stream(events)
    assert turn.outcome.kind == "text" and turn.outcome.text == "Hi"
    assert codes(turn) == ["unknown_event", "unknown_event"]
    # a record before [DONE] that is not a JSON object is a corrupted wire (bad_response):
    # tests/adapters/test_fault_taxonomy.py


def test_stream_with_nothing_is_bad_response() -> None:
    assert ADAPTER.parse_stream([]).outcome.kind == "provider_error"
    turn = ADAPTER.parse_stream([DONE, (None, "junk")])
    assert turn.outcome.kind == "provider_error" and turn.outcome.code == "bad_response"


def test_stream_error_record_is_a_provider_error() -> None:
    events = [
        chunk({"content": "Hi"}),
        (None, json.dumps(_error("The server had an error", kind="server_error"))),
    ]
    turn = ADAPTER.parse_stream(events)
    assert turn.outcome.kind == "provider_error" and turn.outcome.code == "server"


def test_stream_malformed_call_is_bad_response() -> None:
    events = [
        chunk({"tool_calls": [{"index": 0, "id": "c", "function": {"arguments": "{}"}}]}, "tool_calls"),
        DONE,
    ]
    assert ADAPTER.parse_stream(events).outcome.kind == "provider_error"


def test_parsing_keeps_no_state_between_streams() -> None:
    """The same recorded stream, read twice (once from a one-shot iterator), reads the same."""
    path = wire.sse_files("chat_stream__test_parse_multiple_pydantic_tools")[0]
    events = wire.sse_file_events(path)
    assert ADAPTER.parse_stream(copy.deepcopy(events)) == ADAPTER.parse_stream(iter(events))
