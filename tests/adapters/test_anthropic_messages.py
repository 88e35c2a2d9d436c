"""The anthropic-messages adapter against recorded real traffic and hand-written edge cases."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wire_fixtures import Interaction, interactions, manifest_entry, sse_events

from fcbench.adapters import get
from fcbench.adapters.base import RequestOptions, ToolChoice
from fcbench.contract import (
    AssistantMessage,
    ProviderErrorOutcome,
    RefusalOutcome,
    SystemMessage,
    TextOutcome,
    Tool,
    ToolCall,
    ToolCallsOutcome,
    ToolResultMessage,
    UserMessage,
)

ADAPTER = get("anthropic-messages")
RECORDED = interactions("anthropic_messages")
WEATHER = Tool(
    name="get_weather",
    description="Weather for a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)

# What each recorded response says, read by eye from tests/fixtures/wire/interactions.jsonl.
SECRETS_TEXT = "I'll retrieve the secrets for both passwords you provided."
EXPECTED: dict[str, dict[str, Any]] = {
    "mirascope/test_call_with_tools__anthropic_claude_sonnet_4_0__stream.yaml#0": {
        "calls": [
            ("secret_retrieval_tool", {"password": "mellon"}),
            ("secret_retrieval_tool", {"password": "radiance"}),
        ],
        "text": SECRETS_TEXT,
        "finish": "tool_use",
        "usage": (416, 109),
    },
    "mirascope/test_call_with_tools__anthropic_claude_sonnet_4_0__stream.yaml#1": {
        "text_contains": ['"mellon"', "Welcome to Moria!", "Life before Death"],
        "finish": "end_turn",
        "usage": (602, 52),
    },
    "mirascope/test_call_with_tools__anthropic_claude_sonnet_4_0__sync.yaml#0": {
        "calls": [
            ("secret_retrieval_tool", {"password": "mellon"}),
            ("secret_retrieval_tool", {"password": "radiance"}),
        ],
        "text": SECRETS_TEXT,
        "finish": "tool_use",
        "usage": (416, 109),
    },
    "mirascope/test_call_with_tools__anthropic_claude_sonnet_4_0__sync.yaml#1": {
        "text_contains": ["Welcome to Moria!", "Life before Death"],
        "finish": "end_turn",
        "usage": (602, 39),
    },
    "mirascope/test_model_not_found__anthropic_claude_sonnet_4_0.yaml#0": {"error": "not_found"},
    "mirascope/test_model_not_found__anthropic_claude_sonnet_4_0.yaml#1": {"error": "not_found"},
    "mirascope/test_refusal__anthropic_claude_sonnet_4_0__sync.yaml#0": {
        # Forced tool: the model "refuses" inside the tool's argument; on the wire that is a call.
        "calls": [("__mirascope_formatted_output_tool__", None)],
        "finish": "tool_use",
        "usage": (416, 141),
    },
    "pydantic-ai/test_tool_choice_matrix[none-anthropic].yaml#0": {
        "text_contains": ["Hello!"],
        "finish": "end_turn",
        "usage": (567, 16),
    },
    "pydantic-ai/test_tool_choice_matrix[required-anthropic].yaml#0": {
        "calls": [("get_weather", {"city": "Paris"})],
        "finish": "tool_use",
        "usage": (655, 38),
    },
}


def _parse(item: Interaction, offered: list[str] | None = None) -> Any:
    if item.status != 200:
        return ADAPTER.parse_error(item.status, item.response_body, {})
    if item.stream:
        return ADAPTER.parse_stream(item.events(), offered)
    return ADAPTER.parse_response(item.response_body, offered)


def _offered(item: Interaction) -> list[str]:
    return [t["name"] for t in (item.request_json or {}).get("tools", [])]


def test_every_recorded_interaction_has_an_expectation() -> None:
    assert RECORDED and {item.key for item in RECORDED} == set(EXPECTED)


@pytest.mark.parametrize("item", RECORDED, ids=lambda item: item.key)
def test_recorded_response_reads_as_recorded(item: Interaction) -> None:
    expected = EXPECTED[item.key]
    if "error" in expected:
        outcome = _parse(item)
        assert isinstance(outcome, ProviderErrorOutcome)
        assert (outcome.code, outcome.status) == (expected["error"], item.status)
        assert json.loads(item.response_body)["error"]["message"] in outcome.message
        return
    turn = _parse(item, _offered(item))
    assert turn.anomalies == []
    assert turn.finish_reason == expected["finish"]
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == expected["usage"]
    assert turn.response_id and turn.response_id.startswith("msg_")
    if "calls" in expected:
        assert isinstance(turn.outcome, ToolCallsOutcome)
        names = [
            (c.name, c.arguments if expected["calls"][0][1] is not None else None) for c in turn.outcome.calls
        ]
        assert names == expected["calls"]
        assert [c.id for c in turn.outcome.calls] == manifest_entry(item.file, item.i)["tool_call_ids"]
        assert all(json.loads(c.raw_arguments or "") == c.arguments for c in turn.outcome.calls)
        assert turn.outcome.text == expected.get("text")
        assert turn.assistant is not None and turn.assistant.calls == turn.outcome.calls
    else:
        assert isinstance(turn.outcome, TextOutcome)
        assert all(fragment in turn.outcome.text for fragment in expected["text_contains"])


def test_recorded_stream_and_json_of_one_scenario_read_the_same() -> None:
    by_key = {item.key: item for item in RECORDED}
    base = "mirascope/test_call_with_tools__anthropic_claude_sonnet_4_0__{}.yaml#0"
    streamed, plain = _parse(by_key[base.format("stream")]), _parse(by_key[base.format("sync")])
    assert isinstance(streamed.outcome, ToolCallsOutcome) and isinstance(plain.outcome, ToolCallsOutcome)
    assert [(c.name, c.arguments) for c in streamed.outcome.calls] == [
        (c.name, c.arguments) for c in plain.outcome.calls
    ]
    assert streamed.outcome.text == plain.outcome.text


def test_replaying_a_recorded_turn_rebuilds_the_recorded_follow_up_request() -> None:
    by_key = {item.key: item for item in RECORDED}
    first = by_key["mirascope/test_call_with_tools__anthropic_claude_sonnet_4_0__sync.yaml#0"]
    follow_up = by_key[
        "mirascope/test_call_with_tools__anthropic_claude_sonnet_4_0__sync.yaml#1"
    ].request_json
    turn = _parse(first)
    secrets = {"mellon": "Welcome to Moria!", "radiance": "Life before Death"}
    results = [
        ToolResultMessage(call_id=c.id, name=c.name, content=secrets[c.arguments["password"]])
        for c in reversed(turn.assistant.calls)  # answered out of order: matching is by id
    ]
    prompt = follow_up["messages"][0]["content"]
    built = ADAPTER.build_request(
        None,
        [UserMessage(content=prompt), turn.assistant, *results],
        [],
        ToolChoice(),
        RequestOptions(model="m"),
    )

    def strip(node: Any) -> Any:  # fields the recording client added for its own purposes
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in ("cache_control", "citations")}
        return [strip(v) for v in node] if isinstance(node, list) else node

    assert strip(built.body["messages"]) == strip(follow_up["messages"])


@pytest.mark.parametrize(
    ("key", "choice", "parallel"),
    [
        ("pydantic-ai/test_tool_choice_matrix[none-anthropic].yaml#0", "none", None),
        ("pydantic-ai/test_tool_choice_matrix[required-anthropic].yaml#0", "required", None),
        (
            "mirascope/test_refusal__anthropic_claude_sonnet_4_0__sync.yaml#0",
            "tool:__mirascope_formatted_output_tool__",
            False,
        ),
    ],
)
def test_tool_choice_and_tools_match_recorded_requests(key: str, choice: str, parallel: bool | None) -> None:
    recorded = next(item for item in RECORDED if item.key == key).request_json
    tools = [
        Tool(name=t["name"], description=t["description"], parameters=t["input_schema"])
        for t in recorded["tools"]
    ]
    built = ADAPTER.build_request(
        None,
        [UserMessage(content="x")],
        tools,
        ToolChoice.parse(choice),
        RequestOptions(model="m", parallel_tool_calls=parallel),
    )
    assert built.body["tool_choice"] == recorded["tool_choice"]
    keep = ("name", "description", "input_schema")
    assert built.body["tools"] == [{k: t[k] for k in keep} for t in recorded["tools"]]
    assert built.path == "/v1/messages" and built.query == {}


def _history() -> list[Any]:
    calls = [
        ToolCall(id="toolu_a", name="get_weather", arguments={"city": "Paris"}),
        ToolCall(id="toolu_b", name="get_weather", arguments={"city": "Oslo"}),
    ]
    return [
        SystemMessage(content="second system"),
        UserMessage(content="Weather in Paris and Oslo?"),
        AssistantMessage(content="Checking.", calls=calls),
        ToolResultMessage(
            call_id="toolu_b", name="get_weather", content={"error": "unknown city"}, is_error=True
        ),
        ToolResultMessage(call_id="toolu_a", name="get_weather", content="18C"),
        UserMessage(content="Summarise."),
    ]


def test_build_request_body_shape() -> None:
    built = ADAPTER.build_request(
        "be brief",
        _history(),
        [WEATHER],
        ToolChoice.parse("auto"),
        RequestOptions(model="claude-x", max_tokens=300, temperature=0.5, stream=True, seed=7),
    )
    body = built.body
    assert (body["model"], body["max_tokens"], body["temperature"], body["stream"]) == (
        "claude-x",
        300,
        0.5,
        True,
    )
    assert body["system"] == "be brief\n\nsecond system"
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assistant = body["messages"][1]["content"]
    assert assistant[0] == {"type": "text", "text": "Checking."}
    assert [(b["type"], b["id"], b["input"]) for b in assistant[1:]] == [
        ("tool_use", "toolu_a", {"city": "Paris"}),
        ("tool_use", "toolu_b", {"city": "Oslo"}),
    ]
    results = body["messages"][2]["content"]
    assert results == [
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "18C"},
        {
            "type": "tool_result",
            "tool_use_id": "toolu_b",
            "content": '{"error":"unknown city"}',
            "is_error": True,
        },
        {"type": "text", "text": "Summarise."},
    ]
    assert body["tools"] == [
        {"name": "get_weather", "description": WEATHER.description, "input_schema": WEATHER.parameters}
    ]
    assert body["tool_choice"] == {"type": "auto"}
    assert built.stream and any("seed" in note for note in built.notes)


@pytest.mark.parametrize(
    ("choice", "parallel", "wire"),
    [
        ("auto", None, {"type": "auto"}),
        ("auto", False, {"type": "auto", "disable_parallel_tool_use": True}),
        ("required", False, {"type": "any", "disable_parallel_tool_use": True}),
        ("tool:get_weather", True, {"type": "tool", "name": "get_weather"}),
        ("none", False, {"type": "none"}),
    ],
)
def test_tool_choice_mapping(choice: str, parallel: bool | None, wire: dict[str, Any]) -> None:
    options = RequestOptions(model="m", parallel_tool_calls=parallel)
    built = ADAPTER.build_request(
        None, [UserMessage(content="x")], [WEATHER], ToolChoice.parse(choice), options
    )
    assert built.body["tool_choice"] == wire
    assert built.notes == []


def test_no_tools_sends_neither_tools_nor_choice_and_says_so() -> None:
    options = RequestOptions(model="m", temperature=None)
    built = ADAPTER.build_request(None, [UserMessage(content="x")], [], ToolChoice.parse("required"), options)
    assert "tools" not in built.body and "tool_choice" not in built.body and "temperature" not in built.body
    assert "system" not in built.body
    assert any("required" in note for note in built.notes)


def test_strict_marks_tools_and_records_schema_changes() -> None:
    options = RequestOptions(model="m", strict=True)
    built = ADAPTER.build_request(None, [UserMessage(content="x")], [WEATHER], ToolChoice(), options)
    tool = built.body["tools"][0]
    assert tool["strict"] is True and tool["input_schema"]["additionalProperties"] is False
    assert [(c.tool, c.keyword) for c in built.schema_changes] == [("get_weather", "additionalProperties")]
    assert "additionalProperties" not in WEATHER.parameters


def test_replay_uses_provider_state_verbatim() -> None:
    blocks = [{"type": "thinking", "thinking": "hmm", "signature": "sig"}, {"type": "text", "text": "Hi"}]
    message = AssistantMessage(content="Hi", provider_state={"anthropic-messages": {"content": blocks}})
    built = ADAPTER.build_request(
        None, [UserMessage(content="x"), message], [], ToolChoice(), RequestOptions(model="m")
    )
    assert built.body["messages"][1] == {"role": "assistant", "content": blocks}


def test_history_without_ids_gets_stand_in_ids_and_notes() -> None:
    history = [
        UserMessage(content="x"),
        AssistantMessage(calls=[ToolCall(name="get_weather", arguments="not an object")]),
        ToolResultMessage(call_id=None, name="get_weather", content="18C"),
    ]
    built = ADAPTER.build_request(None, history, [WEATHER], ToolChoice(), RequestOptions(model="m"))
    use = built.body["messages"][1]["content"][0]
    assert use["input"] == {} and use["id"]
    assert built.body["messages"][2]["content"][0]["tool_use_id"] == use["id"]
    assert len(built.notes) == 2


def test_tool_result_messages_orders_by_call_id_and_keeps_strays_last() -> None:
    calls = [ToolCall(id="a", name="f"), ToolCall(id="b", name="g")]
    results = [
        ToolResultMessage(call_id="zzz", name="h", content="stray"),
        ToolResultMessage(call_id="b", name="g", content="B"),
        ToolResultMessage(call_id="a", name="f", content="A"),
    ]
    [message] = ADAPTER.tool_result_messages(calls, results)
    assert message["role"] == "user"
    assert [(b["tool_use_id"], b["content"]) for b in message["content"]] == [
        ("a", "A"),
        ("b", "B"),
        ("zzz", "stray"),
    ]


def _message(content: Any, stop_reason: Any = "end_turn", **extra: Any) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": content,
        "stop_reason": stop_reason,
        "usage": {"input_tokens": 5, "output_tokens": 3},
        **extra,
    }


def _use(call_id: str = "toolu_1", name: str = "get_weather", value: Any = None) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": call_id,
        "name": name,
        "input": {"city": "Paris"} if value is None else value,
    }


def _codes(turn: Any) -> list[str]:
    return [a.code for a in turn.anomalies]


def test_string_input_is_kept_parsed_and_flagged() -> None:
    turn = ADAPTER.parse_response(_message([_use(value='{"city": "Paris"}')], "tool_use"), ["get_weather"])
    assert isinstance(turn.outcome, ToolCallsOutcome)
    call = turn.outcome.calls[0]
    assert (call.arguments, call.raw_arguments) == ({"city": "Paris"}, '{"city": "Paris"}')
    assert _codes(turn) == ["arguments_type_mismatch"]


def test_arguments_are_never_repaired() -> None:
    turn = ADAPTER.parse_response(_message([_use(value={"city": 7, "extra": [1]})], "tool_use"))
    assert turn.outcome.calls[0].arguments == {"city": 7, "extra": [1]}
    turn = ADAPTER.parse_response(_message([_use(value=[1, 2])], "tool_use"))
    assert _codes(turn) == ["arguments_not_object"]


@pytest.mark.parametrize(
    ("content", "stop_reason", "codes"),
    [
        ([_use()], "end_turn", ["finish_reason_mismatch"]),
        ([{"type": "text", "text": "done"}], "tool_use", ["finish_reason_mismatch"]),
        ([_use(name="launch")], "tool_use", ["tool_not_offered"]),
        ([_use(), _use()], "tool_use", ["duplicate_call_id"]),
        ([_use(call_id=None)], "tool_use", ["missing_call_id"]),
        (
            [{"type": "server_tool_use", "id": "s"}, {"type": "text", "text": "x"}],
            "end_turn",
            ["unknown_content"],
        ),
        ([], "end_turn", ["empty_response"]),
        (
            [{"type": "text", "text": '{"name": "get_weather", "arguments": {}}'}],
            "end_turn",
            ["json_call_in_text"],
        ),
        (
            [{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "text", "text": "ok"}],
            "end_turn",
            [],
        ),
    ],
)
def test_anomalies(content: list[Any], stop_reason: str, codes: list[str]) -> None:
    turn = ADAPTER.parse_response(_message(content, stop_reason), ["get_weather"])
    assert _codes(turn) == codes
    assert turn.finish_reason == stop_reason


def test_refusal_stop_reason_is_a_refusal() -> None:
    turn = ADAPTER.parse_response(_message([{"type": "text", "text": "I can't help."}], "refusal"))
    assert turn.outcome == RefusalOutcome(text="I can't help.")
    assert ADAPTER.parse_response(_message([], "refusal")).outcome == RefusalOutcome(text=None)


def test_error_body_in_a_2xx_is_a_provider_error() -> None:
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    assert ADAPTER.parse_response(body).outcome.code == "overloaded"


@pytest.mark.parametrize(
    "body",
    [
        "<html>bad gateway</html>",
        b"\xff\xfe",
        [1, 2],
        {"id": "msg", "type": "message"},
        _message("text, not blocks"),
        _message(["not a block"]),
        _message([{"type": "tool_use", "id": "x", "input": {}}]),
        _message([{"type": "text", "text": 3}]),
        _message([], 42),
        _message([_use(call_id=5)]),  # type: ignore[arg-type]
    ],
)
def test_bad_bodies_are_bad_response(body: Any) -> None:
    outcome = ADAPTER.parse_response(body).outcome
    assert isinstance(outcome, ProviderErrorOutcome) and outcome.code == "bad_response"


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "content",
                    "text",
                    "id",
                    "name",
                    "input",
                    "stop_reason",
                    "usage",
                    "error",
                    "index",
                    "delta",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(_JSON)
def test_never_raises_on_any_json(body: Any) -> None:
    ADAPTER.parse_response(body)
    ADAPTER.parse_stream([(None, json.dumps(body))])
    if isinstance(body, dict):
        ADAPTER.parse_response({**body, "content": [body]})


def _sse(*events: tuple[str, dict[str, Any]]) -> str:
    return "".join(f"event: {name}\ndata: {json.dumps(data)}   \n\n" for name, data in events)


START = ("message_start", {"type": "message_start", "message": {"id": "msg_s", "usage": {"input_tokens": 9}}})
TOOL_START = (
    "content_block_start",
    {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_s", "name": "get_weather", "input": {}},
    },
)
STOP = ("message_stop", {"type": "message_stop"})


def _json_delta(text: str, index: int = 0) -> tuple[str, dict[str, Any]]:
    delta = {"type": "input_json_delta", "partial_json": text}
    return ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})


def _message_delta(stop_reason: str, output_tokens: int) -> tuple[str, dict[str, Any]]:
    data = {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason},
        "usage": {"output_tokens": output_tokens},
    }
    return ("message_delta", data)


def test_stream_assembles_split_arguments_once_complete() -> None:
    events = sse_events(
        _sse(
            START,
            TOOL_START,
            ("ping", {"type": "ping"}),
            _json_delta(""),
            _json_delta('{"ci'),
            _json_delta('ty": "Par'),
            _json_delta('is"}'),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            _message_delta("tool_use", 4),
            _message_delta("tool_use", 12),
            STOP,
        )
    )
    turn = ADAPTER.parse_stream(events, ["get_weather"])
    assert turn.anomalies == []
    assert turn.outcome == ToolCallsOutcome(
        calls=[
            ToolCall(
                id="toolu_s",
                name="get_weather",
                arguments={"city": "Paris"},
                raw_arguments='{"city": "Paris"}',
            )
        ]
    )
    assert (turn.usage.input_tokens, turn.usage.output_tokens, turn.response_id) == (9, 12, "msg_s")
    replay = turn.assistant.provider_state["anthropic-messages"]["content"]
    assert replay == [
        {"type": "tool_use", "id": "toolu_s", "name": "get_weather", "input": {"city": "Paris"}}
    ]


def test_stream_with_no_argument_deltas_keeps_the_start_input() -> None:
    events = [(n, json.dumps(d)) for n, d in (START, TOOL_START, _message_delta("tool_use", 1), STOP)]
    turn = ADAPTER.parse_stream(events)
    assert turn.outcome.calls[0].arguments == {} and turn.anomalies == []


def test_stream_event_names_may_be_missing_the_data_type_decides() -> None:
    events = [(None, json.dumps(d)) for _, d in (START, TOOL_START, _json_delta('{"city":"Oslo"}'), STOP)]
    turn = ADAPTER.parse_stream(events)
    assert turn.outcome.calls[0].arguments == {"city": "Oslo"}


def test_stream_cut_short_is_incomplete_and_the_cut_arguments_do_not_parse() -> None:
    events = [(n, json.dumps(d)) for n, d in (START, TOOL_START, _json_delta('{"city": "Pa'))]
    turn = ADAPTER.parse_stream(events, ["get_weather"])
    assert _codes(turn) == ["stream_incomplete", "unparseable_arguments"]
    call = turn.outcome.calls[0]
    assert (call.arguments, call.raw_arguments) == (None, '{"city": "Pa')


def test_stream_max_tokens_inside_arguments_is_flagged() -> None:
    events = [
        (n, json.dumps(d))
        for n, d in (START, TOOL_START, _json_delta('{"ci'), _message_delta("max_tokens", 5), STOP)
    ]
    assert _codes(ADAPTER.parse_stream(events)) == ["unparseable_arguments", "finish_reason_mismatch"]


def test_stream_error_event_is_a_provider_error() -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    turn = ADAPTER.parse_stream([(n, json.dumps(d)) for n, d in (START, ("error", error))])
    assert isinstance(turn.outcome, ProviderErrorOutcome) and turn.outcome.code == "overloaded"


@pytest.mark.parametrize(
    ("events", "codes", "kind"),
    [
        ([("message_start", "{not json")], [], "provider_error"),
        ([("message_start", "[1]")], [], "provider_error"),
        ([], ["stream_incomplete"], "provider_error"),
        (
            [(n, json.dumps(d)) for n, d in (START, ("mystery", {"type": "mystery"}), STOP)],
            ["unknown_event", "empty_response"],
            "text",
        ),
        (
            [(n, json.dumps(d)) for n, d in (START, _json_delta("{}", index=3), STOP)],
            ["unknown_event", "empty_response"],
            "text",
        ),
        (
            [
                (n, json.dumps(d))
                for n, d in (
                    START,
                    TOOL_START,
                    (
                        "content_block_delta",
                        {"type": "content_block_delta", "index": 0, "delta": {"type": "odd_delta"}},
                    ),
                    STOP,
                )
            ],
            ["unknown_event"],
            "tool_calls",
        ),
    ],
)
def test_stream_oddities(events: list[tuple[str, str]], codes: list[str], kind: str) -> None:
    turn = ADAPTER.parse_stream(events)
    assert turn.outcome.kind == kind
    assert _codes(turn) == codes


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (
            400,
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "tools.3.custom.input_schema: JSON schema is invalid.",
                },
            },
            "schema_rejected",
        ),
        (
            400,
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "messages.1: `tool_use` ids were found without `tool_result` blocks",
                },
            },
            "bad_request",
        ),
        (
            401,
            {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}},
            "auth",
        ),
        (403, {"type": "error", "error": {"type": "permission_error", "message": "no"}}, "auth"),
        (404, {"type": "error", "error": {"type": "not_found_error", "message": "model: x"}}, "not_found"),
        (
            429,
            {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
            "rate_limited",
        ),
        (500, {"type": "error", "error": {"type": "api_error", "message": "oops"}}, "server"),
        (504, {"type": "error", "error": {"type": "timeout_error", "message": "late"}}, "timeout"),
        (
            529,
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            "overloaded",
        ),
        (529, "", "overloaded"),
        (502, "<html>Bad Gateway</html>", "server"),
        (418, b"teapot", "bad_request"),
    ],
)
def test_parse_error(status: int, body: Any, code: str) -> None:
    raw = json.dumps(body) if isinstance(body, dict) else body
    outcome = ADAPTER.parse_error(status, raw, {})
    assert (outcome.code, outcome.status) == (code, status)
    if isinstance(body, dict):
        assert body["error"]["message"] in outcome.message


def test_retry_after_and_auth_headers() -> None:
    assert ADAPTER.retry_after_seconds(429, "{}", {"Retry-After": "7"}) == 7.0
    assert ADAPTER.retry_after_seconds(429, "{}", {"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert ADAPTER.retry_after_seconds(429, "{}", {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert ADAPTER.retry_after_seconds(429, "{}", {"retry-after": "soon"}) is None
    assert ADAPTER.retry_after_seconds(429, "{}", {}) is None
    assert ADAPTER.auth_headers("sk-ant") == {"x-api-key": "sk-ant", "anthropic-version": "2023-06-01"}


def test_capabilities() -> None:
    assert ADAPTER.dialect == "anthropic-messages"
    assert set(ADAPTER.capabilities.tool_choice) == {"auto", "required", "named", "none"}
    assert ADAPTER.capabilities.parallel_control and ADAPTER.capabilities.strict_mode
