"""The ``openai-responses`` adapter against recorded real traffic and hand-made edge cases."""

from __future__ import annotations

import json
from typing import Any

import openai_samples as samples
import pytest
import wire_fixtures as wire
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.adapters import get
from fcbench.adapters.base import Adapter, ParsedTurn, RequestOptions, ToolChoice
from fcbench.contract import AssistantMessage, ToolCallsOutcome, UserMessage, make_call

ADAPTER = get("openai-responses")

PASSWORD_CALLS = [
    ("secret_retrieval_tool", {"password": "mellon"}),
    ("secret_retrieval_tool", {"password": "radiance"}),
]
SECRETS = ["Welcome to Moria!", "Life before Death"]

# What each recorded Responses API response must read as (see test_openai_chat.py for the keys).
EXPECTED: dict[str, dict[str, Any]] = {
    **{
        f"mirascope/test_call_with_tools__openai_gpt_4o_responses__{mode}.yaml#{i}": {
            "kind": "tool_calls",
            "calls": PASSWORD_CALLS,
        }
        for mode in ("sync", "stream")
        for i in (0, 2, 4)
    },
    **{
        f"mirascope/test_call_with_tools__openai_gpt_4o_responses__{mode}.yaml#{i}": {
            "kind": "text",
            "words": ["mellon", "radiance", *SECRETS],
        }
        for mode in ("sync", "stream")
        for i in (1, 3, 5)
    },
    **{
        f"mirascope/test_model_not_found__openai_gpt_4o_responses.yaml#{i}": {
            "kind": "provider_error",
            "code": "not_found",
            "words": ["this-model-does-not-exist-12345", "model_not_found"],
        }
        for i in (0, 1)
    },
    "mirascope/test_refusal__openai_gpt_4o_responses__sync.yaml#0": {
        "kind": "refusal",
        "words": ["I'm very sorry, but I can't assist with that."],
        "anomalies": ["refusal_field"],
    },
    "mirascope/test_refusal__openai_gpt_4o_responses__stream.yaml#0": {
        "kind": "refusal",
        "words": ["I'm sorry, I can't assist with that."],
        "anomalies": ["refusal_field"],
    },
    "pydantic-ai/test_openai_responses_stream.yaml#0": {
        "kind": "tool_calls",
        "calls": [("get_capital", {"country": "France"})],
    },
    "pydantic-ai/test_openai_responses_stream.yaml#1": {
        "kind": "text",
        "words": ["The capital of France is Paris."],
    },
    "pydantic-ai/test_tool_choice_matrix[none-openai_responses].yaml#0": {
        "kind": "text",
        "words": ["Paris", "live weather"],
    },
    "pydantic-ai/test_tool_choice_matrix[required-openai_responses].yaml#0": {
        "kind": "tool_calls",
        "calls": [("get_weather", {"city": "Paris"})],
    },
}

RECORDED = {it.key: it for it in wire.interactions(api="openai_responses")}
OK_JSON = [it for it in RECORDED.values() if not it.stream and it.status == 200]


def _offered(item: wire.Interaction) -> list[str]:
    return [t["name"] for t in (item.request_json or {}).get("tools", [])]


def _read(item: wire.Interaction) -> ParsedTurn:
    if item.status >= 400:
        return ParsedTurn(outcome=ADAPTER.parse_error(item.status, item.response_body, {}))
    if item.stream:
        return ADAPTER.parse_stream(item.events(), _offered(item))
    return ADAPTER.parse_response(item.response_json, _offered(item))


def test_every_recorded_responses_response_has_an_expectation() -> None:
    assert sorted(RECORDED) == sorted(EXPECTED)


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_recorded_responses(key: str) -> None:
    expected = EXPECTED[key]
    item = RECORDED[key]
    turn = _read(item)
    outcome = turn.outcome
    assert outcome.kind == expected["kind"]
    assert sorted(a.code for a in turn.anomalies) == sorted(expected.get("anomalies", []))
    manifest = wire.manifest_entry(item.file, item.i)
    if isinstance(outcome, ToolCallsOutcome):
        assert [(c.name, c.arguments) for c in outcome.calls] == expected["calls"]
        assert sorted(c.id or "" for c in outcome.calls) == sorted(manifest["tool_call_ids"])
        assert all(c.id and c.id.startswith("call_") for c in outcome.calls)
    else:
        assert manifest["tool_call_ids"] == []
    text = outcome.message if outcome.kind == "provider_error" else getattr(outcome, "text", None)
    for word in expected.get("words", []):
        assert word in (text or "")
    if outcome.kind == "provider_error":
        assert outcome.code == expected["code"] and outcome.status == manifest["status"]
        return
    assert turn.finish_reason == "completed"
    assert ("refusal" in manifest["features"]) == (outcome.kind == "refusal")
    assert turn.response_id is not None and turn.response_id.startswith("resp_")
    assert turn.usage.input_tokens and turn.usage.output_tokens
    assert turn.assistant is not None and turn.assistant.provider_state is not None


@pytest.mark.parametrize("item", OK_JSON, ids=lambda it: it.key)
def test_recorded_usage_maps_input_and_output_tokens(item: wire.Interaction) -> None:
    usage = item.response_json["usage"]
    turn = ADAPTER.parse_response(item.response_json)
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (
        usage["input_tokens"],
        usage["output_tokens"],
    )


@pytest.mark.parametrize("item", OK_JSON, ids=lambda it: it.key)
def test_a_stream_reads_like_its_json_body(item: wire.Interaction) -> None:
    whole = ADAPTER.parse_response(item.response_json, _offered(item))
    for size in (1, 5, 80):
        streamed = ADAPTER.parse_stream(samples.responses_stream(item.response_json, size), _offered(item))
        assert streamed.outcome == whole.outcome
        assert streamed.anomalies == whole.anomalies
        assert (streamed.usage, streamed.finish_reason, streamed.response_id) == (
            whole.usage,
            whole.finish_reason,
            whole.response_id,
        )


def test_recorded_stream_matches_its_completed_event() -> None:
    """The assembled items agree with the full response the stream ends with."""
    for item in RECORDED.values():
        if not item.stream:
            continue
        final = json.loads(item.events()[-1][1])["response"]
        assert ADAPTER.parse_stream(item.events()).outcome == ADAPTER.parse_response(final).outcome


def test_follow_up_request_replays_the_recorded_items() -> None:
    """Reading turn 0 and answering its calls rebuilds the input items the SDK sent for turn 1."""
    file = "mirascope/test_call_with_tools__openai_gpt_4o_responses__sync.yaml"
    first, second = RECORDED[f"{file}#0"], RECORDED[f"{file}#1"]
    turn = ADAPTER.parse_response(first.response_json)
    assert isinstance(turn.outcome, ToolCallsOutcome) and turn.assistant is not None
    developer, user = first.request_json["input"]
    history = [UserMessage(content=user["content"]), turn.assistant]
    history += samples.results_for(turn.outcome.calls, SECRETS)
    built = ADAPTER.build_request(developer["content"], history, [], ToolChoice(), samples.OPTIONS)
    assert built.body["instructions"] == developer["content"]
    assert built.body["input"] == second.request_json["input"][1:]


def test_required_choice_replay_keeps_reasoning_items() -> None:
    item = RECORDED["pydantic-ai/test_tool_choice_matrix[required-openai_responses].yaml#0"]
    turn = ADAPTER.parse_response(item.response_json)
    assert turn.assistant is not None
    built = ADAPTER.build_request(
        None, [UserMessage(content="hi"), turn.assistant], [], ToolChoice(), samples.OPTIONS
    )
    assert [i["type"] for i in built.body["input"][1:]] == ["reasoning", "function_call"]
    assert built.body["input"][1]["encrypted_content"] == item.response_json["output"][0]["encrypted_content"]


# --- building requests ------------------------------------------------------------------------


def test_build_maps_history_tools_and_options() -> None:
    options = RequestOptions(
        model="gpt-test", temperature=0.3, max_tokens=200, seed=3, parallel_tool_calls=True
    )
    built = ADAPTER.build_request("Be terse.", samples.history(), samples.TOOLS, ToolChoice(), options)
    body = built.body
    assert built.path == "/responses" and built.stream is False and "stream" not in body
    assert (body["model"], body["instructions"], body["temperature"], body["max_output_tokens"]) == (
        "gpt-test",
        "Be terse.",
        0.3,
        200,
    )
    assert body["parallel_tool_calls"] is True and body["tool_choice"] == "auto" and "seed" not in body
    assert any("seed" in note for note in built.notes) and any("is_error" in note for note in built.notes)
    kinds = [(i.get("type"), i.get("role")) for i in body["input"]]
    assert kinds == [
        (None, "system"),
        (None, "user"),
        ("function_call", None),
        ("function_call", None),
        ("function_call_output", None),
        ("function_call_output", None),
        ("message", "assistant"),
        (None, "user"),
    ]
    assert body["input"][2] == {
        "type": "function_call",
        "call_id": "call_a1",
        "name": "get_weather",
        "arguments": '{"city": "Paris"}',
    }
    assert body["input"][4] == {
        "type": "function_call_output",
        "call_id": "call_b2",
        "output": '{"status":"shipped"}',
    }
    weather = body["tools"][0]
    assert weather == {
        "type": "function",
        "name": "get_weather",
        "description": samples.WEATHER.description,
        "parameters": samples.WEATHER.parameters,
        "strict": False,
    }


@pytest.mark.parametrize(
    ("choice", "wire_value"),
    [
        (ToolChoice(mode="auto"), "auto"),
        (ToolChoice(mode="required"), "required"),
        (ToolChoice(mode="none"), "none"),
        (ToolChoice.parse("tool:lookup_order"), {"type": "function", "name": "lookup_order"}),
    ],
)
def test_tool_choice_modes(choice: ToolChoice, wire_value: Any) -> None:
    built = ADAPTER.build_request(None, [UserMessage(content="hi")], samples.TOOLS, choice, samples.OPTIONS)
    assert built.body["tool_choice"] == wire_value and built.notes == []
    assert "parallel_tool_calls" not in built.body


def test_no_tools_leaves_tool_fields_out_with_notes() -> None:
    options = RequestOptions(model="m", parallel_tool_calls=False)
    built = ADAPTER.build_request(None, [UserMessage(content="hi")], [], ToolChoice.parse("tool:x"), options)
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(built.body)
    assert len(built.notes) == 2


def test_strict_mode_sets_the_flag_and_records_changes() -> None:
    built = ADAPTER.build_request(
        None, [UserMessage(content="hi")], samples.TOOLS, ToolChoice(), RequestOptions(model="m", strict=True)
    )
    weather = built.body["tools"][0]
    assert weather["strict"] is True and weather["parameters"]["additionalProperties"] is False
    assert sorted(weather["parameters"]["required"]) == ["city", "units"]
    assert {("get_weather", "required"), ("get_weather", "minLength")} <= {
        (c.tool, c.keyword) for c in built.schema_changes
    }


def test_stream_flag() -> None:
    built = ADAPTER.build_request(
        None, [UserMessage(content="hi")], [], ToolChoice(), RequestOptions(model="m", stream=True)
    )
    assert built.stream is True and built.body["stream"] is True


def test_history_without_provider_state_and_odd_calls() -> None:
    broken = make_call("call_x", "get_weather", '{"city": "Par')
    anonymous = make_call(None, "lookup_order", "{}")
    history = [
        UserMessage(content="hi"),
        AssistantMessage(content="Let me check.", calls=[broken, anonymous]),
    ]
    built = ADAPTER.build_request(None, history, samples.TOOLS, ToolChoice(), samples.OPTIONS)
    items = built.body["input"]
    assert items[1] == {"type": "message", "role": "assistant", "content": "Let me check."}
    assert items[2]["arguments"] == '{"city": "Par' and "call_id" not in items[3]
    assert any("no id" in note for note in built.notes)


def test_tool_result_items_follow_call_ids_not_positions() -> None:
    calls = [samples.CALL_A, samples.CALL_B]
    results = list(reversed(samples.results_for(calls, ["sunny", "shipped"])))
    assert ADAPTER.tool_result_messages(calls, results) == [
        {"type": "function_call_output", "call_id": "call_a1", "output": "sunny"},
        {"type": "function_call_output", "call_id": "call_b2", "output": "shipped"},
    ]


def test_adapter_satisfies_the_protocol() -> None:
    assert isinstance(ADAPTER, Adapter) and ADAPTER.dialect == "openai-responses"
    assert ADAPTER.auth_headers("k") == {"Authorization": "Bearer k"}
    assert ADAPTER.retry_after_seconds(429, None, {"retry-after-ms": "1500"}) == 1.5
    error = ADAPTER.parse_error(
        400, {"error": {"message": "No tool output found for function call call_a1."}}, {}
    )
    assert error.code == "bad_request"


# --- anomalies and malformed bodies -----------------------------------------------------------


def response(output: list[Any], status: Any = "completed", **extra: Any) -> dict[str, Any]:
    """A minimal ``response`` object."""
    return {
        "id": "resp_t",
        "object": "response",
        "status": status,
        "error": None,
        "incomplete_details": None,
        "output": output,
        "usage": {"input_tokens": 4, "output_tokens": 2},
        **extra,
    }


def fc(call_id: Any, name: str, arguments: Any) -> dict[str, Any]:
    """One ``function_call`` output item."""
    item = {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "name": name,
        "arguments": arguments,
        "status": "completed",
    }
    if call_id is not None:
        item["call_id"] = call_id
    return item


def message(*parts: dict[str, Any]) -> dict[str, Any]:
    """One assistant ``message`` output item."""
    return {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": list(parts),
    }


def text(value: str) -> dict[str, Any]:
    """An ``output_text`` part."""
    return {"type": "output_text", "text": value, "annotations": []}


def codes(turn: ParsedTurn) -> list[str]:
    """The anomaly codes of a turn, in order."""
    return [a.code for a in turn.anomalies]


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ([fc(None, "get_weather", '{"city":"Oslo"}')], ["missing_call_id"]),
        ([fc("c1", "get_weather", "{}"), fc("c1", "get_weather", "{}")], ["duplicate_call_id"]),
        ([fc("c1", "wipe_disk", "{}")], ["tool_not_offered"]),
        ([fc("c1", "get_weather", '{"city": ')], ["unparseable_arguments"]),
        ([fc("c1", "get_weather", {"city": "Oslo"})], ["arguments_type_mismatch"]),
        ([fc("c1", "get_weather", '"Oslo"')], ["arguments_not_object"]),
        ([{"type": "web_search_call", "id": "ws_1"}, fc("c1", "get_weather", "{}")], ["unknown_content"]),
    ],
)
def test_call_anomalies(output: list[Any], expected: list[str]) -> None:
    turn = ADAPTER.parse_response(response(output), samples.NAMES)
    assert isinstance(turn.outcome, ToolCallsOutcome) and sorted(codes(turn)) == sorted(expected)


def test_incomplete_at_the_limit_with_cut_arguments() -> None:
    body = response(
        [fc("c1", "get_weather", '{"ci')], "incomplete", incomplete_details={"reason": "max_output_tokens"}
    )
    turn = ADAPTER.parse_response(body, samples.NAMES)
    assert turn.finish_reason == "max_output_tokens"
    assert sorted(codes(turn)) == ["finish_reason_mismatch", "unparseable_arguments"]


def test_content_filter_without_calls_is_a_refusal() -> None:
    body = response([], "incomplete", incomplete_details={"reason": "content_filter"})
    turn = ADAPTER.parse_response(body)
    assert turn.outcome.kind == "refusal" and turn.finish_reason == "content_filter" and codes(turn) == []


def test_unfinished_status_is_flagged() -> None:
    turn = ADAPTER.parse_response(response([message(text("partial"))], "in_progress"))
    assert turn.outcome.kind == "text" and codes(turn) == ["finish_reason_mismatch"]


def test_text_refusal_and_unknown_parts() -> None:
    body = response([message(text("Hello "), {"type": "audio"}, text("there"))])
    turn = ADAPTER.parse_response(body)
    assert (
        turn.outcome.kind == "text"
        and turn.outcome.text == "Hello there"
        and codes(turn) == ["unknown_content"]
    )
    refusal = ADAPTER.parse_response(response([message({"type": "refusal", "refusal": "No."})]))
    assert (
        refusal.outcome.kind == "refusal"
        and refusal.outcome.text == "No."
        and codes(refusal) == ["refusal_field"]
    )


def test_json_call_in_text_and_empty_response() -> None:
    turn = ADAPTER.parse_response(
        response([message(text('{"name": "get_weather", "arguments": {}}'))]), samples.NAMES
    )
    assert codes(turn) == ["json_call_in_text"]
    empty = ADAPTER.parse_response(response([{"type": "reasoning", "id": "rs_1", "summary": []}]))
    assert empty.outcome.kind == "text" and codes(empty) == ["empty_response"]


def test_failed_response_is_a_provider_error() -> None:
    body = response([], "failed", error={"code": "rate_limit_exceeded", "message": "Slow down"})
    turn = ADAPTER.parse_response(body)
    assert turn.outcome.kind == "provider_error" and turn.outcome.code == "rate_limited"
    assert "Slow down" in turn.outcome.message
    bare = ADAPTER.parse_response(response([], "failed"))
    assert bare.outcome.kind == "provider_error" and bare.outcome.code == "server"


@pytest.mark.parametrize(
    "body",
    [
        "<html>oops</html>",
        [response([])],
        {"id": "resp_1", "status": "completed"},
        {**response([]), "output": "not a list"},
        response([7]),
        response([fc("c1", None, "{}")]),  # type: ignore[arg-type]
        response([fc(5, "get_weather", "{}")]),
        response([message()] + [{"type": "message", "content": {"text": "x"}}]),
    ],
)
def test_malformed_bodies_are_bad_response(body: Any) -> None:
    turn = ADAPTER.parse_response(body, samples.NAMES)
    assert turn.outcome.kind == "provider_error" and turn.outcome.code == "bad_response"


KEYS = [
    *("output", "type", "content", "text", "refusal", "call_id", "name", "arguments", "status"),
    *("error", "item", "item_id", "output_index", "delta", "response", "usage"),
]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
    max_leaves=12,
)
KINDS = st.sampled_from(
    [
        *(None, "error", "response.completed", "response.output_item.added", "response.content_part.added"),
        *("response.function_call_arguments.delta", "response.output_text.delta"),
    ]
)


@settings(max_examples=150, deadline=None)
@given(body=JSON_VALUES, stream=st.lists(st.tuples(KINDS, JSON_VALUES), max_size=5))
def test_arbitrary_bodies_and_events_never_raise(body: Any, stream: list[tuple[str | None, Any]]) -> None:
    assert ADAPTER.parse_response(body, samples.NAMES).outcome.kind
    events = [
        (kind, json.dumps({"type": kind, **value} if isinstance(value, dict) else value))
        for kind, value in stream
    ]
    assert ADAPTER.parse_stream(events, samples.NAMES).outcome.kind


# --- streams ----------------------------------------------------------------------------------


def event(kind: str, **fields: Any) -> tuple[str, str]:
    """One named Responses stream event."""
    return kind, json.dumps({"type": kind, **fields})


def call_events(index: int, call_id: str, name: str, fragments: list[str]) -> list[tuple[str, str]]:
    """Added + argument deltas for one function call (no ``.done`` events)."""
    item = {"type": "function_call", "id": f"fc_{index}", "call_id": call_id, "name": name, "arguments": ""}
    return [event("response.output_item.added", output_index=index, item=item)] + [
        event("response.function_call_arguments.delta", item_id=f"fc_{index}", output_index=index, delta=f)
        for f in fragments
    ]


COMPLETED = event("response.completed", response=response([]))


def test_stream_interleaved_calls_assemble_by_item_id() -> None:
    first = call_events(0, "call_0", "get_weather", ['{"city"', ':"Oslo"}'])
    second = call_events(1, "call_1", "lookup_order", ['{"order_id":', '"ORD-9"}'])
    events = [first[0], second[0], first[1], second[1], second[2], first[2], COMPLETED]
    turn = ADAPTER.parse_stream(events, samples.NAMES)
    assert isinstance(turn.outcome, ToolCallsOutcome) and codes(turn) == []
    assert [(c.id, c.arguments) for c in turn.outcome.calls] == [
        ("call_0", {"city": "Oslo"}),
        ("call_1", {"order_id": "ORD-9"}),
    ]
    assert turn.usage.input_tokens == 4 and turn.finish_reason == "completed"


def test_stream_done_events_are_authoritative() -> None:
    events = call_events(0, "call_0", "get_weather", ['{"city":"Os'])
    events.append(
        event(
            "response.function_call_arguments.done",
            item_id="fc_0",
            output_index=0,
            arguments='{"city":"Oslo"}',
        )
    )
    events.append(COMPLETED)
    turn = ADAPTER.parse_stream(events, samples.NAMES)
    assert isinstance(turn.outcome, ToolCallsOutcome) and turn.outcome.calls[0].arguments == {"city": "Oslo"}


def test_stream_without_terminal_event_is_incomplete() -> None:
    events = call_events(0, "call_0", "get_weather", ['{"city":"Oslo"}'])
    turn = ADAPTER.parse_stream(events, samples.NAMES)
    assert isinstance(turn.outcome, ToolCallsOutcome) and codes(turn) == ["stream_incomplete"]
    assert turn.finish_reason is None


def test_stream_cut_inside_arguments() -> None:
    turn = ADAPTER.parse_stream(call_events(0, "call_0", "get_weather", ['{"ci']), samples.NAMES)
    assert sorted(codes(turn)) == ["stream_incomplete", "unparseable_arguments"]


def test_stream_text_deltas_without_part_events() -> None:
    item = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
    events = [
        event("response.output_item.added", output_index=0, item=item),
        event("response.output_text.delta", item_id="msg_1", output_index=0, content_index=0, delta="Hel"),
        event("response.output_text.delta", item_id="msg_1", output_index=0, content_index=0, delta="lo"),
        COMPLETED,
    ]
    turn = ADAPTER.parse_stream(events)
    assert turn.outcome.kind == "text" and turn.outcome.text == "Hello" and codes(turn) == []


def test_stream_junk_and_unknown_events_are_anomalies() -> None:
    # data that is not a JSON object is a corrupted wire (bad_response), not an anomaly:
    # tests/adapters/test_fault_taxonomy.py
    events = [
        (None, json.dumps({"sequence_number": 0})),
        ("response.mystery", json.dumps({"sequence_number": 1})),
        event("response.function_call_arguments.delta", item_id="fc_9", delta="{}"),
        *call_events(0, "call_0", "get_weather", ["{}"]),
        event("response.reasoning_summary_text.delta", delta="hmm"),
        (None, ""),
        COMPLETED,
    ]
    turn = ADAPTER.parse_stream(events, samples.NAMES)
    assert isinstance(turn.outcome, ToolCallsOutcome)
    assert codes(turn) == ["unknown_event"] * 3


def test_stream_error_event_and_failed_terminal() -> None:
    error = event("error", code="server_error", message="The server had an error", param=None)
    turn = ADAPTER.parse_stream([*call_events(0, "c", "get_weather", ["{"]), error])
    assert turn.outcome.kind == "provider_error" and turn.outcome.code == "server"
    failed = event(
        "response.failed",
        response=response([], "failed", error={"code": "rate_limit_exceeded", "message": "x"}),
    )
    assert ADAPTER.parse_stream([failed]).outcome.kind == "provider_error"


@pytest.mark.parametrize(
    ("code", "message", "expected"),
    [
        ("insufficient_quota", "You exceeded your current quota, please check your plan.", "rate_limited"),
        ("rate_limit_exceeded", "Rate limit reached for requests per minute.", "rate_limited"),
        ("server_error", "The server had an error while processing your request.", "server"),
    ],
)
def test_stream_error_event_reads_flat_and_nested_fields_alike(
    code: str, message: str, expected: str
) -> None:
    """The ``error`` event of a Responses stream may carry its fields flat (the API reference's
    ResponseErrorEvent) or nested under ``error`` (as the plain-HTTP error body does): both are read,
    and the stream error gets the same code as the same error over plain HTTP."""
    flat = event("error", code=code, message=message, param=None, sequence_number=3)
    nested = event(
        "error", error={"type": code, "code": code, "message": message, "param": None}, sequence_number=3
    )
    over_http = ADAPTER.parse_error(
        429 if expected == "rate_limited" else 500, {"error": {"code": code, "message": message}}, {}
    )
    for form in (flat, nested):
        outcome = ADAPTER.parse_stream([form]).outcome
        assert outcome.kind == "provider_error"
        assert outcome.code == expected == over_http.code
        assert message in outcome.message


def test_stream_with_nothing_is_bad_response() -> None:
    for events in ([], [(None, "junk"), ("x", "")]):
        turn = ADAPTER.parse_stream(events)
        assert turn.outcome.kind == "provider_error" and turn.outcome.code == "bad_response"


def test_stream_events_named_only_by_the_event_line() -> None:
    """Data without ``type`` falls back to the SSE event name."""
    item = {"type": "function_call", "id": "fc_0", "call_id": "c", "name": "get_weather", "arguments": ""}
    events = [
        ("response.output_item.added", json.dumps({"output_index": 0, "item": item})),
        (
            "response.function_call_arguments.delta",
            json.dumps({"item_id": "fc_0", "delta": '{"city":"Oslo"}'}),
        ),
        ("response.completed", json.dumps({"response": response([])})),
    ]
    turn = ADAPTER.parse_stream(events, samples.NAMES)
    assert isinstance(turn.outcome, ToolCallsOutcome) and turn.outcome.calls[0].arguments == {"city": "Oslo"}
