"""The gemini adapter against recorded real traffic and hand-written edge cases."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wire_fixtures import Interaction, interactions, manifest_entry

from fcbench.adapters import get
from fcbench.adapters.base import RequestOptions, ToolChoice
from fcbench.contract import (
    AssistantMessage,
    ProviderErrorOutcome,
    RefusalOutcome,
    TextOutcome,
    Tool,
    ToolCall,
    ToolCallsOutcome,
    ToolResultMessage,
    UserMessage,
)

ADAPTER = get("gemini")
RECORDED = interactions("gemini_generateContent")
WEATHER = Tool(
    name="get_weather",
    description="Weather for a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
SECRET_CALLS = [
    ("secret_retrieval_tool", {"password": "mellon"}),
    ("secret_retrieval_tool", {"password": "radiance"}),
]

# What each recorded response says, read by eye from tests/fixtures/wire/interactions.jsonl.
# usage = (promptTokenCount, candidatesTokenCount + thoughtsTokenCount).
EXPECTED: dict[str, dict[str, Any]] = {
    "mirascope/test_call_with_tools__google_gemini_2_5_flash__stream.yaml#0": {
        "calls": SECRET_CALLS,
        "usage": (70, 101),
    },
    "mirascope/test_call_with_tools__google_gemini_2_5_flash__stream.yaml#1": {
        "text": 'The secrets associated with the passwords "mellon" and "radiance" are '
        '"Welcome to Moria!" and "Life before Death" respectively.',
        "usage": (211, 30),
    },
    "mirascope/test_call_with_tools__google_gemini_2_5_flash__sync.yaml#0": {
        "calls": SECRET_CALLS,
        "usage": (70, 116),
    },
    "mirascope/test_call_with_tools__google_gemini_2_5_flash__sync.yaml#1": {
        "text_contains": ["Welcome to Moria!", "Life before Death"],
        "usage": (152, 37),
    },
    "mirascope/test_model_not_found__google_gemini_2_5_flash.yaml#0": {"error": "not_found"},
    "mirascope/test_model_not_found__google_gemini_2_5_flash.yaml#1": {"error": "not_found"},
    "mirascope/test_refusal__google_gemini_2_5_flash__sync.yaml#0": {
        # JSON-mode answer that declines in words: text on the wire, not a refusal signal.
        "text_contains": ['{"instructions": "I cannot provide'],
        "usage": (8, 168),
    },
    "pydantic-ai/test_google_streaming_tool_call_thought_signature.yaml#0": {
        "calls": [("get_country", {})],
        "usage": (29, 212),
    },
    "pydantic-ai/test_google_streaming_tool_call_thought_signature.yaml#1": {
        "text": "The capital of Mexico is Mexico City.",
        "usage": (257, 8),
    },
    "pydantic-ai/test_tool_choice_matrix[none-google].yaml#0": {
        "text_contains": ["14°C"],
        "usage": (49, 1124),
    },
    "pydantic-ai/test_tool_choice_matrix[required-google].yaml#0": {
        "calls": [("get_weather", {"city": "Paris"})],
        "usage": (46, 63),
    },
}


def _parse(item: Interaction, offered: list[str] | None = None) -> Any:
    if item.status != 200:
        return ADAPTER.parse_error(item.status, item.response_body, {})
    if item.stream:
        return ADAPTER.parse_stream(item.events(), offered)
    return ADAPTER.parse_response(item.response_body, offered)


def _offered(item: Interaction) -> list[str]:
    tools = (item.request_json or {}).get("tools", [])
    return [d["name"] for t in tools for d in t.get("functionDeclarations", [])]


def _codes(turn: Any) -> list[str]:
    return [a.code for a in turn.anomalies]


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
    manifest = manifest_entry(item.file, item.i)
    assert turn.finish_reason == "STOP"
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == expected["usage"]
    assert turn.response_id
    if "calls" in expected:
        assert isinstance(turn.outcome, ToolCallsOutcome)
        assert [(c.name, c.arguments) for c in turn.outcome.calls] == expected["calls"]
        assert manifest["tool_call_ids"] == [f"{len(expected['calls'])} functionCall parts"]
        # Gemini sent no ids: the outcome says so and invents none.
        assert [c.id for c in turn.outcome.calls] == [None] * len(expected["calls"])
        assert _codes(turn) == ["missing_call_id"] * len(expected["calls"])
    else:
        assert isinstance(turn.outcome, TextOutcome) and turn.anomalies == []
        assert turn.outcome.text == expected.get("text", turn.outcome.text)
        assert all(fragment in turn.outcome.text for fragment in expected.get("text_contains", []))
    state = turn.assistant.provider_state["gemini"]
    signatures = [p["thoughtSignature"] for p in state["parts"] if "thoughtSignature" in p]
    assert len(signatures) == (1 if "thought_signature" in manifest["features"] else 0)
    if signatures:
        assert signatures[0] in item.response_body
    assert len(state["call_keys"]) == len(turn.assistant.calls)


def _unsign(node: Any) -> Any:
    """Signatures as bytes: the recording client re-encoded them as URL-safe base64."""
    if isinstance(node, dict):
        return {
            k: (
                base64.urlsafe_b64decode(v.replace("+", "-").replace("/", "_"))
                if k == "thoughtSignature"
                else _unsign(v)
            )
            for k, v in node.items()
            if k != "id"
        }
    return [_unsign(v) for v in node] if isinstance(node, list) else node


@pytest.mark.parametrize(
    ("first", "results"),
    [
        (
            "mirascope/test_call_with_tools__google_gemini_2_5_flash__sync.yaml",
            ["Welcome to Moria!", "Life before Death"],
        ),
        (
            "mirascope/test_call_with_tools__google_gemini_2_5_flash__stream.yaml",
            ["Welcome to Moria!", "Life before Death"],
        ),
        ("pydantic-ai/test_google_streaming_tool_call_thought_signature.yaml", ["Mexico"]),
    ],
)
def test_replaying_a_recorded_turn_rebuilds_the_recorded_follow_up_contents(
    first: str, results: list[str]
) -> None:
    by_key = {item.key: item for item in RECORDED}
    turn = _parse(by_key[f"{first}#0"])
    follow_up = by_key[f"{first}#1"].request_json
    keys = turn.assistant.provider_state["gemini"]["call_keys"]
    answers = [
        ToolResultMessage(call_id=key, name=call.name, content=value)
        for key, call, value in reversed(list(zip(keys, turn.assistant.calls, results, strict=True)))
    ]
    prompt = follow_up["contents"][0]["parts"][0]["text"]
    built = ADAPTER.build_request(
        None,
        [UserMessage(content=prompt), turn.assistant, *answers],
        [],
        ToolChoice(),
        RequestOptions(model="m"),
    )
    recorded = follow_up["contents"]
    for part in recorded[2]["parts"]:  # pydantic-ai names its result key differently; the value is the same
        response = part["functionResponse"]["response"]
        part["functionResponse"]["response"] = {
            "output": response.get("output", response.get("return_value"))
        }
    assert _unsign(built.body["contents"]) == _unsign(recorded)


@pytest.mark.parametrize(
    ("key", "choice"),
    [
        ("pydantic-ai/test_tool_choice_matrix[none-google].yaml#0", "none"),
        ("pydantic-ai/test_tool_choice_matrix[required-google].yaml#0", "required"),
    ],
)
def test_tool_config_and_declarations_match_recorded_requests(key: str, choice: str) -> None:
    recorded = next(item for item in RECORDED if item.key == key).request_json
    declared = recorded["tools"][0]["functionDeclarations"]
    tools = [
        Tool(name=d["name"], description=d["description"], parameters=d["parameters_json_schema"])
        for d in declared
    ]
    built = ADAPTER.build_request(
        None, [UserMessage(content="x")], tools, ToolChoice.parse(choice), RequestOptions(model="m")
    )
    assert built.body["toolConfig"] == recorded["toolConfig"]
    assert [
        (d["name"], d["description"], d["parametersJsonSchema"])
        for d in built.body["tools"][0]["functionDeclarations"]
    ] == [(d["name"], d["description"], d["parameters_json_schema"]) for d in declared]
    assert [s.action for s in built.schema_changes] == ["moved"]


def test_build_request_body_shape_and_paths() -> None:
    calls = [
        ToolCall(id="fc_1", name="get_weather", arguments={"city": "Paris"}),
        ToolCall(name="get_weather", arguments={"city": "Oslo"}),
    ]
    history = [
        UserMessage(content="Weather?"),
        AssistantMessage(content="Checking.", calls=calls),
        ToolResultMessage(call_id=None, name="get_weather", content={"error": "tz"}, is_error=True),
        ToolResultMessage(call_id="fc_1", name="get_weather", content="18C"),
        UserMessage(content="Summarise."),
    ]
    options = RequestOptions(
        model="models/gemini-x", max_tokens=50, temperature=0.2, seed=3, parallel_tool_calls=False
    )
    built = ADAPTER.build_request(
        "be brief", history, [WEATHER], ToolChoice.parse("tool:get_weather"), options
    )
    body = built.body
    assert (built.path, built.query, built.stream) == ("/models/gemini-x:generateContent", {}, False)
    assert body["systemInstruction"] == {"parts": [{"text": "be brief"}]}
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user", "user"]
    assert body["contents"][1]["parts"] == [
        {"text": "Checking."},
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}, "id": "fc_1"}},
        {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
    ]
    assert body["contents"][2]["parts"] == [
        {"functionResponse": {"name": "get_weather", "id": "fc_1", "response": {"output": "18C"}}},
        {"functionResponse": {"name": "get_weather", "response": {"error": {"error": "tz"}}}},
    ]
    assert body["toolConfig"] == {
        "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}
    }
    assert body["generationConfig"] == {"maxOutputTokens": 50, "temperature": 0.2, "seed": 3}
    assert body["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"] == WEATHER.parameters
    assert any("parallel" in note for note in built.notes)
    streamed = ADAPTER.build_request(None, history, [], ToolChoice(), RequestOptions(model="g", stream=True))
    assert (streamed.path, streamed.query, streamed.stream) == (
        "/models/g:streamGenerateContent",
        {"alt": "sse"},
        True,
    )
    assert (
        "tools" not in streamed.body
        and "toolConfig" not in streamed.body
        and "systemInstruction" not in streamed.body
    )


@pytest.mark.parametrize(
    ("choice", "strict", "config"),
    [
        ("auto", False, {"mode": "AUTO"}),
        ("auto", True, {"mode": "VALIDATED"}),
        ("required", False, {"mode": "ANY"}),
        ("none", False, {"mode": "NONE"}),
        ("tool:get_weather", False, {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}),
    ],
)
def test_tool_choice_mapping(choice: str, strict: bool, config: dict[str, Any]) -> None:
    options = RequestOptions(model="m", strict=strict)
    built = ADAPTER.build_request(
        None, [UserMessage(content="x")], [WEATHER], ToolChoice.parse(choice), options
    )
    assert built.body["toolConfig"] == {"functionCallingConfig": config}
    assert built.notes == []


def test_tool_result_messages_match_by_id_key_then_name() -> None:
    calls = [ToolCall(id="fc_9", name="f"), ToolCall(name="g"), ToolCall(name="g")]
    results = [
        ToolResultMessage(call_id=None, name="g", content="first g"),
        ToolResultMessage(call_id="stray", name="h", content="?"),
        ToolResultMessage(call_id="gemini-call-2", name="g", content="second g"),
        ToolResultMessage(call_id="fc_9", name="f", content="F"),
    ]
    [turn] = ADAPTER.tool_result_messages(calls, results)
    assert turn["role"] == "user"
    replies = [p["functionResponse"] for p in turn["parts"]]
    assert [(r["name"], r.get("id"), r["response"]["output"]) for r in replies] == [
        ("f", "fc_9", "F"),
        ("g", None, "first g"),
        ("g", None, "second g"),
        ("h", "stray", "?"),
    ]


def _response(parts: list[Any] | None, finish: Any = "STOP", **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"index": 0, "finishReason": finish}
    if parts is not None:
        candidate["content"] = {"role": "model", "parts": parts}
    return {
        "candidates": [candidate],
        "usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 2},
        **extra,
    }


def _call(name: str = "get_weather", args: Any = None, **extra: Any) -> dict[str, Any]:
    return {"functionCall": {"name": name, **({"args": args} if args is not None else {}), **extra}}


@pytest.mark.parametrize(
    ("parts", "finish", "kind", "codes"),
    [
        ([_call(args='{"city": "Paris"}', id="a")], "STOP", "tool_calls", ["arguments_type_mismatch"]),
        ([_call(id="a")], "STOP", "tool_calls", ["arguments_not_object"]),
        (
            [_call(args={"city": "Oslo"}, id="a"), _call(args={}, id="a")],
            "STOP",
            "tool_calls",
            ["duplicate_call_id"],
        ),
        ([_call("launch", {}, id="a")], "STOP", "tool_calls", ["tool_not_offered"]),
        ([{"executableCode": {"code": "1"}}, {"text": "x"}], "STOP", "text", ["unknown_content"]),
        ([{"text": "thinking", "thought": True}], "STOP", "text", ["empty_response"]),
        ([], "MAX_TOKENS", "text", ["empty_response"]),
        (None, "SAFETY", "refusal", []),
        ([_call(args={}, id="a")], "SAFETY", "refusal", ["finish_reason_mismatch"]),
        (None, "MALFORMED_FUNCTION_CALL", "text", ["malformed_call"]),
        ([{"text": "ok"}], "UNEXPECTED_TOOL_CALL", "text", ["tool_choice_ignored"]),
        (None, "MISSING_THOUGHT_SIGNATURE", "provider_error", []),
        (
            [{"text": '```json\n{"name": "get_weather", "args": {}}\n```'}],
            "STOP",
            "text",
            ["json_call_in_text"],
        ),
        ([{"text": "a", "thought": True}, {"text": "b"}, {"thoughtSignature": "c2ln"}], "STOP", "text", []),
    ],
)
def test_anomalies_and_finish_reasons(
    parts: list[Any] | None, finish: str, kind: str, codes: list[str]
) -> None:
    turn = ADAPTER.parse_response(_response(parts, finish), ["get_weather"])
    assert turn.outcome.kind == kind
    assert _codes(turn) == codes
    if kind != "provider_error":
        assert turn.finish_reason == finish


def test_thought_text_is_not_output_and_signatures_are_kept() -> None:
    parts = [{"text": "plan", "thought": True}, {"text": "Answer", "thoughtSignature": "c2ln"}]
    turn = ADAPTER.parse_response(_response(parts))
    assert turn.outcome == TextOutcome(text="Answer")
    assert turn.assistant.provider_state["gemini"]["parts"] == parts


def test_blocked_prompt_is_a_refusal_and_no_candidates_otherwise_is_bad() -> None:
    turn = ADAPTER.parse_response({"promptFeedback": {"blockReason": "SAFETY"}})
    assert turn.outcome == RefusalOutcome(text=None) and turn.finish_reason == "blockReason:SAFETY"
    assert ADAPTER.parse_response({"usageMetadata": {}}).outcome.code == "bad_response"


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        [],
        [1],
        {"candidates": "many"},
        {"candidates": [{"index": 1}]},
        {"candidates": [{"content": "text"}]},
        {"candidates": [{"content": {"parts": ["p"]}}]},
        _response([{"functionCall": {"args": {}}}]),
        _response([{"functionCall": {"name": "f", "id": 3}}]),
    ],
)
def test_bad_bodies_are_bad_response(body: Any) -> None:
    outcome = ADAPTER.parse_response(body).outcome
    assert isinstance(outcome, ProviderErrorOutcome) and outcome.code == "bad_response"


def test_a_json_array_of_chunks_reads_like_a_stream() -> None:
    chunks = [_response([{"text": "Hel"}], None), _response([{"text": "lo"}, _call(args={"city": "Rome"})])]
    turn = ADAPTER.parse_response(json.dumps(chunks))
    assert turn.outcome.text == "Hello" and turn.outcome.calls[0].arguments == {"city": "Rome"}


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "candidates",
                    "content",
                    "parts",
                    "text",
                    "functionCall",
                    "name",
                    "args",
                    "id",
                    "finishReason",
                    "index",
                    "error",
                    "promptFeedback",
                    "usageMetadata",
                    "thought",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=14,
)


@settings(max_examples=150, deadline=None)
@given(_JSON)
def test_never_raises_on_any_json(body: Any) -> None:
    ADAPTER.parse_response(body)
    ADAPTER.parse_stream([(None, json.dumps(body))])
    ADAPTER.parse_response({"candidates": [{"content": {"parts": [body]}, "finishReason": body}]})


def _events(*chunks: Any) -> list[tuple[str | None, str]]:
    return [(None, json.dumps(chunk)) for chunk in chunks]


def test_stream_merges_fragments_keeps_last_usage_and_signature_on_an_empty_part() -> None:
    first = _response([{"text": "Par"}], None, responseId="r1")
    second = _response([{"text": "is"}, _call(args={"city": "Paris"}, id="fc_1")], None)
    last = _response([{"text": "", "thoughtSignature": "c2ln"}, {"text": ""}], "STOP")
    last["usageMetadata"] = {"promptTokenCount": 4, "candidatesTokenCount": 9, "thoughtsTokenCount": 1}
    turn = ADAPTER.parse_stream(_events(first, second, last), ["get_weather"])
    assert turn.anomalies == []
    assert turn.outcome == ToolCallsOutcome(
        calls=[
            ToolCall(
                id="fc_1", name="get_weather", arguments={"city": "Paris"}, raw_arguments='{"city":"Paris"}'
            )
        ],
        text="Paris",
    )
    assert (turn.usage.input_tokens, turn.usage.output_tokens, turn.response_id) == (4, 10, "r1")
    assert turn.assistant.provider_state["gemini"] == {
        "parts": [
            {"text": "Paris"},
            _call(args={"city": "Paris"}, id="fc_1"),
            {"text": "", "thoughtSignature": "c2ln"},
        ],
        "call_keys": ["fc_1"],
    }


@pytest.mark.parametrize(
    ("events", "kind", "codes"),
    [
        (_events(_response([{"text": "cut"}], None)), "text", ["stream_incomplete"]),
        ([("message", json.dumps(_response([{"text": "x"}])))], "text", []),
        ([("odd", json.dumps(_response([{"text": "x"}])))], "text", ["unknown_event"]),
        ([(None, "{oops")], "provider_error", []),
        ([(None, "")], "provider_error", ["stream_incomplete"]),
        (_events({"candidates": 7}), "provider_error", []),
        (_events({"promptFeedback": {"blockReason": "OTHER"}}), "refusal", []),
    ],
)
def test_stream_oddities(events: list[tuple[str | None, str]], kind: str, codes: list[str]) -> None:
    turn = ADAPTER.parse_stream(events)
    assert turn.outcome.kind == kind
    assert _codes(turn) == codes


def test_stream_error_chunk_is_a_provider_error() -> None:
    error = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    turn = ADAPTER.parse_stream(_events(_response([{"text": "a"}], None), error))
    assert isinstance(turn.outcome, ProviderErrorOutcome)
    assert turn.outcome.code == "overloaded" and "overloaded" in turn.outcome.message


def _error(code: int, status: str, message: str, *details: dict[str, Any]) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": status, "details": list(details)}}


KEY_INFO = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}
RETRY_INFO = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (
            400,
            _error(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", KEY_INFO),
            "auth",
        ),
        (
            400,
            _error(
                400,
                "INVALID_ARGUMENT",
                'Invalid JSON payload received. Unknown name "const" at '
                "'tools[0].function_declarations[5].parameters.properties[8].value': Cannot find field.",
            ),
            "schema_rejected",
        ),
        (
            400,
            _error(
                400,
                "INVALID_ARGUMENT",
                "Please ensure that the number of function response parts is equal "
                "to the number of function call parts of the function call turn.",
            ),
            "bad_request",
        ),
        (400, [_error(400, "FAILED_PRECONDITION", "User location is not supported")], "bad_request"),
        (403, _error(403, "PERMISSION_DENIED", "denied"), "auth"),
        (404, _error(404, "NOT_FOUND", "models/x is not found"), "not_found"),
        (429, _error(429, "RESOURCE_EXHAUSTED", "quota", RETRY_INFO), "rate_limited"),
        (500, _error(500, "INTERNAL", "oops"), "server"),
        (503, _error(503, "UNAVAILABLE", "The model is overloaded."), "overloaded"),
        (504, _error(504, "DEADLINE_EXCEEDED", "late"), "timeout"),
        (502, "<html>Bad Gateway</html>", "server"),
        (503, "", "overloaded"),
    ],
)
def test_parse_error(status: int, body: Any, code: str) -> None:
    raw = body if isinstance(body, str) else json.dumps(body)
    outcome = ADAPTER.parse_error(status, raw, {})
    assert (outcome.code, outcome.status) == (code, status)
    if not isinstance(body, str):
        inner = body[0] if isinstance(body, list) else body
        assert inner["error"]["message"] in outcome.message


def test_retry_after_and_auth_headers() -> None:
    quota = json.dumps(_error(429, "RESOURCE_EXHAUSTED", "quota", RETRY_INFO))
    assert ADAPTER.retry_after_seconds(429, quota, {"retry-after": "3"}) == 37.0
    half = json.dumps(_error(429, "RESOURCE_EXHAUSTED", "q", {**RETRY_INFO, "retryDelay": "1.5s"}))
    assert ADAPTER.retry_after_seconds(429, half, {}) == 1.5
    assert ADAPTER.retry_after_seconds(429, "{}", {"Retry-After": "3"}) == 3.0
    assert ADAPTER.retry_after_seconds(503, "not json", {}) is None
    assert ADAPTER.auth_headers("k") == {"x-goog-api-key": "k"}


def test_capabilities() -> None:
    assert ADAPTER.dialect == "gemini"
    assert set(ADAPTER.capabilities.tool_choice) == {"auto", "required", "named", "none"}
    assert not ADAPTER.capabilities.parallel_control


# --- Vertex AI streamed function-call arguments (streamFunctionCallArguments) ---------------


def _sdk_checked(chunk: dict[str, Any]) -> tuple[None, str]:
    """One SSE event of ``chunk``, after the official SDK's types accepted its shape."""
    from google.genai import types

    types.GenerateContentResponse.model_validate(chunk)  # camelCase aliases, as on the wire
    return None, json.dumps(chunk)


def _call_chunk(*calls: dict[str, Any], finish: str | None = None) -> tuple[None, str]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"functionCall": c} for c in calls]}}
    if finish:
        candidate["finishReason"] = finish
    chunk: dict[str, Any] = {"candidates": [candidate]}
    if finish:
        chunk["usageMetadata"] = {"promptTokenCount": 40, "candidatesTokenCount": 12}
    return _sdk_checked(chunk)


def test_streamed_function_call_arguments_are_assembled_across_parts_and_chunks() -> None:
    """Two calls whose arguments arrive in pieces: a string split over chunks, a number, an array
    item and a nested field, each by its JSON Path, finished by parts without ``willContinue``."""
    adapter = get("gemini")
    events = [
        _call_chunk(
            {
                "id": "fc-1",
                "name": "get_weather",
                "partialArgs": [{"jsonPath": "$.location", "stringValue": "Bos", "willContinue": True}],
                "willContinue": True,
            }
        ),
        _call_chunk(
            {"partialArgs": [{"jsonPath": "$.location", "stringValue": "ton, MA"}], "willContinue": True}
        ),
        _call_chunk(
            {
                "partialArgs": [
                    {"jsonPath": "$.days", "numberValue": 3},
                    {"jsonPath": "$.units[0]", "stringValue": "celsius"},
                    {"jsonPath": "$.options.hourly", "boolValue": False},
                    {"jsonPath": "$['note']", "nullValue": "NULL_VALUE"},
                ]
            }
        ),
        _call_chunk(
            {
                "id": "fc-2",
                "name": "get_time",
                "partialArgs": [{"jsonPath": "$.tz", "stringValue": "America/New_York"}],
                "willContinue": True,
            },
            {"willContinue": False},
            finish="STOP",
        ),
    ]
    turn = adapter.parse_stream(events, ["get_weather", "get_time"])
    assert isinstance(turn.outcome, ToolCallsOutcome), turn.outcome
    assert [(c.name, c.arguments) for c in turn.outcome.calls] == [
        (
            "get_weather",
            {
                "location": "Boston, MA",
                "days": 3,
                "units": ["celsius"],
                "options": {"hourly": False},
                "note": None,
            },
        ),
        ("get_time", {"tz": "America/New_York"}),
    ]
    assert [c.id for c in turn.outcome.calls] == ["fc-1", "fc-2"]
    assert _codes(turn) == []
    assert turn.usage.input_tokens == 40


def test_a_streamed_call_still_continuing_at_the_end_is_stream_incomplete() -> None:
    adapter = get("gemini")
    events = [
        _call_chunk(
            {
                "name": "get_weather",
                "partialArgs": [{"jsonPath": "$.location", "stringValue": "Par"}],
                "willContinue": True,
            },
            finish="STOP",
        )
    ]
    turn = adapter.parse_stream(events, ["get_weather"])
    assert isinstance(turn.outcome, ToolCallsOutcome)
    assert turn.outcome.calls[0].arguments == {"location": "Par"}
    assert "stream_incomplete" in _codes(turn)


@pytest.mark.parametrize(
    ("pieces", "why"),
    [
        ([{"jsonPath": "location", "stringValue": "x"}], "JSON Path"),
        ([{"jsonPath": "$.a", "stringValue": "x", "numberValue": 1}], "several values"),
        ([{"jsonPath": "$.a", "stringValue": "x"}, {"jsonPath": "$.a[0]", "numberValue": 1}], "does not fit"),
    ],
)
def test_unreadable_streamed_arguments_are_a_bad_response(pieces: list[dict[str, Any]], why: str) -> None:
    event = (
        None,
        json.dumps(
            {
                "candidates": [
                    {
                        "content": {"parts": [{"functionCall": {"name": "f", "partialArgs": pieces}}]},
                        "finishReason": "STOP",
                    }
                ]
            }
        ),
    )
    turn = get("gemini").parse_stream([event], ["f"])
    assert turn.outcome.kind == "provider_error" and turn.outcome.code == "bad_response"
    assert why in turn.outcome.message
