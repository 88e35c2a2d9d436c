"""Bedrock Converse JSON responses: calls, text, refusals, cuts and stop-reason mismatches.

Payloads follow the ``ConverseResponse`` shape of AWS's API reference (``output.message.content``
blocks, ``stopReason``, ``usage``, ``metrics``).
"""

from __future__ import annotations

from typing import Any

import pytest

from fcbench.adapters.bedrock_converse import BedrockConverse
from fcbench.contract import ProviderErrorOutcome

ADAPTER = BedrockConverse()
OFFERED = ["get_weather", "get_time"]


def body(content: list[dict[str, Any]], stop: str = "end_turn") -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": {"inputTokens": 30, "outputTokens": 12, "totalTokens": 42},
        "metrics": {"latencyMs": 512},
    }


def use(use_id: str, name: str, value: Any) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": use_id, "name": name, "input": value}}


def codes(turn: Any) -> list[str]:
    return [a.code for a in turn.anomalies]


def test_calls_with_text_keep_ids_arguments_usage_and_state() -> None:
    content = [
        {"text": "Checking both."},
        use("tooluse_1", "get_weather", {"city": "Paris"}),
        use("tooluse_2", "get_time", {}),
    ]
    turn = ADAPTER.parse_response(body(content, "tool_use"), OFFERED)
    outcome = turn.outcome.model_dump()
    assert outcome["kind"] == "tool_calls" and outcome["text"] == "Checking both."
    assert [(c["id"], c["name"], c["arguments"]) for c in outcome["calls"]] == [
        ("tooluse_1", "get_weather", {"city": "Paris"}),
        ("tooluse_2", "get_time", {}),
    ]
    assert turn.anomalies == [] and turn.finish_reason == "tool_use"
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (30, 12)
    assert turn.assistant is not None
    assert turn.assistant.provider_state == {"bedrock-converse": {"content": content}}
    assert turn.response_id is None


def test_text_answer() -> None:
    turn = ADAPTER.parse_response(body([{"text": "Paris is sunny."}]), OFFERED)
    assert turn.outcome.model_dump() == {"kind": "text", "text": "Paris is sunny."}
    assert turn.anomalies == []


@pytest.mark.parametrize(
    ("content", "stop", "expected"),
    [
        ([use("t", "get_time", {})], "end_turn", ["finish_reason_mismatch"]),
        ([use("t", "get_time", {})], "stop_sequence", ["finish_reason_mismatch"]),
        ([{"text": "done"}], "tool_use", ["finish_reason_mismatch"]),
        ([use("t", "get_time", {})], "max_tokens", []),
        ([use("t", "get_time", {})], "malformed_tool_use", ["malformed_call"]),
        ([use("t", "launch", {})], "tool_use", ["tool_not_offered"]),
        ([use("t", "get_time", '{"tz": "UTC"}')], "tool_use", ["arguments_type_mismatch"]),
        ([{"text": "x"}, {"image": {"format": "png"}}], "end_turn", ["unknown_content"]),
        ([], "end_turn", ["empty_response"]),
    ],
)
def test_stop_reason_and_content_anomalies(content: list[Any], stop: str, expected: list[str]) -> None:
    assert codes(ADAPTER.parse_response(body(content, stop), OFFERED)) == expected


def test_a_string_input_is_parsed() -> None:
    turn = ADAPTER.parse_response(body([use("t", "get_time", '{"tz": "UTC"}')], "tool_use"), OFFERED)
    assert turn.outcome.model_dump()["calls"][0]["arguments"] == {"tz": "UTC"}


@pytest.mark.parametrize("stop", ["guardrail_intervened", "content_filtered"])
def test_guardrails_are_refusals(stop: str) -> None:
    turn = ADAPTER.parse_response(body([{"text": "Sorry, the model cannot answer this question."}], stop))
    assert turn.outcome.kind == "refusal"
    flagged = ADAPTER.parse_response(body([use("t", "get_time", {})], stop), OFFERED)
    assert flagged.outcome.kind == "refusal" and codes(flagged) == ["finish_reason_mismatch"]


def test_reasoning_blocks_are_not_text_but_are_kept() -> None:
    content = [{"reasoningContent": {"reasoningText": {"text": "think", "signature": "s"}}}, {"text": "Hi"}]
    turn = ADAPTER.parse_response(body(content), OFFERED)
    assert turn.outcome.model_dump() == {"kind": "text", "text": "Hi"} and turn.anomalies == []


def test_json_calls_in_text_are_flagged() -> None:
    text = '{"name": "get_weather", "arguments": {"city": "Rome"}}'
    assert codes(ADAPTER.parse_response(body([{"text": text}]), OFFERED)) == ["json_call_in_text"]


@pytest.mark.parametrize(
    "bad",
    [
        [1, 2],
        {"output": {}},
        {"output": {"message": {"role": "assistant"}}},
        {"output": {"message": {"content": "text"}}},
        {"output": {"message": {"content": [{"text": 5}]}}},
        {"output": {"message": {"content": [{"toolUse": {"input": {}}}]}}},
        {"output": {"message": {"content": []}}, "stopReason": 7},
        "not json",
    ],
)
def test_malformed_bodies_are_bad_responses(bad: Any) -> None:
    outcome = ADAPTER.parse_response(bad, OFFERED).outcome
    assert isinstance(outcome, ProviderErrorOutcome) and outcome.code == "bad_response"


def test_an_error_body_in_a_2xx_is_a_provider_error() -> None:
    outcome = ADAPTER.parse_response({"message": "Too many tokens", "__type": "ThrottlingException"}).outcome
    assert isinstance(outcome, ProviderErrorOutcome) and outcome.code == "rate_limited"
