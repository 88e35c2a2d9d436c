"""Bedrock Converse requests: path, tool choice table, history, system, inferenceConfig, params.

Every built body is checked against botocore's service model of ``bedrock-runtime`` (the shapes
boto3 itself validates ``converse`` arguments with), so field names and nesting come from AWS's
own description of the API, not from this adapter.
"""

from __future__ import annotations

from typing import Any

import botocore.session
import pytest
from botocore.validate import ParamValidator

from fcbench.adapters.base import RequestOptions, ToolChoice
from fcbench.adapters.bedrock_converse import BedrockConverse
from fcbench.adapters.bedrock_converse.request import NONE_WITH_HISTORY, NONE_WITHOUT_TOOLS
from fcbench.contract import AssistantMessage, SystemMessage, Tool, ToolCall, ToolResultMessage, UserMessage
from fcbench.run.observe import merged_params

ADAPTER = BedrockConverse()
MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"
WEATHER = Tool(
    name="get_weather",
    description="Weather for a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
TIME = Tool(name="get_time", description="Local time", parameters={"type": "object", "properties": {}})
SERVICE = botocore.session.get_session().get_service_model("bedrock-runtime")


def assert_valid(body: dict[str, Any], operation: str = "Converse") -> None:
    """The body (plus the path's modelId) is a valid ``operation`` input per botocore's model."""
    shape = SERVICE.operation_model(operation).input_shape
    report = ParamValidator().validate({"modelId": MODEL, **body}, shape)
    assert not report.has_errors(), report.generate_report()


def build(
    messages: list[Any] | None = None,
    tools: list[Tool] | None = None,
    choice: str = "auto",
    system: str | None = None,
    **options: Any,
) -> Any:
    return ADAPTER.build_request(
        system,
        messages if messages is not None else [UserMessage(content="Weather in Paris?")],
        [WEATHER, TIME] if tools is None else tools,
        ToolChoice.parse(choice),
        RequestOptions(model=MODEL, **options),
    )


def test_paths_encode_the_model_id_as_one_segment() -> None:
    assert build().path == "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse"
    streamed = build(stream=True)
    assert streamed.path.endswith("%3A0/converse-stream") and streamed.stream
    assert "stream" not in streamed.body and "modelId" not in streamed.body
    arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-lite-v1:0"
    built = ADAPTER.build_request(
        None, [UserMessage(content="x")], [], ToolChoice(), RequestOptions(model=arn)
    )
    assert built.path.count("/") == 3 and "%2F" in built.path


@pytest.mark.parametrize(
    ("choice", "wire"),
    [("auto", {"auto": {}}), ("required", {"any": {}}), ("tool:get_time", {"tool": {"name": "get_time"}})],
)
def test_tool_choice_table(choice: str, wire: dict[str, Any]) -> None:
    built = build(choice=choice)
    assert built.body["toolConfig"]["toolChoice"] == wire
    assert [t["toolSpec"]["name"] for t in built.body["toolConfig"]["tools"]] == ["get_weather", "get_time"]
    assert built.body["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"] == {"json": WEATHER.parameters}
    assert built.notes == []
    assert_valid(built.body)


def test_none_drops_the_tools_with_a_note() -> None:
    built = build(choice="none")
    assert "toolConfig" not in built.body
    assert built.notes == [NONE_WITHOUT_TOOLS]
    assert_valid(built.body)


def test_a_named_tool_not_offered_is_noted() -> None:
    assert any("not among the offered tools" in note for note in build(choice="tool:nope").notes)


def history() -> list[Any]:
    calls = [
        ToolCall(id="tooluse_a", name="get_weather", arguments={"city": "Paris"}),
        ToolCall(id="tooluse_b", name="get_time", arguments={}),
    ]
    return [
        UserMessage(content="Weather and time in Paris?"),
        AssistantMessage(content="Let me check.", calls=calls),
        ToolResultMessage(call_id="tooluse_b", name="get_time", content="14:05"),
        ToolResultMessage(call_id="tooluse_a", name="get_weather", content={"temp_c": 18}, is_error=False),
        UserMessage(content="And tomorrow?"),
    ]


def test_history_with_tool_use_and_results_in_one_user_message() -> None:
    built = build(history())
    messages = built.body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"] == [
        {"text": "Let me check."},
        {"toolUse": {"toolUseId": "tooluse_a", "name": "get_weather", "input": {"city": "Paris"}}},
        {"toolUse": {"toolUseId": "tooluse_b", "name": "get_time", "input": {}}},
    ]
    assert messages[2]["content"] == [
        {
            "toolResult": {
                "toolUseId": "tooluse_a",
                "content": [{"json": {"temp_c": 18}}],
                "status": "success",
            }
        },
        {"toolResult": {"toolUseId": "tooluse_b", "content": [{"text": "14:05"}], "status": "success"}},
        {"text": "And tomorrow?"},
    ]
    assert_valid(built.body)


def test_a_history_with_tool_blocks_keeps_tool_config_even_for_none() -> None:
    built = build(history(), choice="none")
    assert "toolChoice" not in built.body["toolConfig"] and built.body["toolConfig"]["tools"]
    assert built.notes == [NONE_WITH_HISTORY]
    assert_valid(built.body)


def test_error_results_and_id_less_calls() -> None:
    calls = [ToolCall(id=None, name="get_weather", arguments={"city": "Oslo"})]
    messages = [
        UserMessage(content="Oslo?"),
        AssistantMessage(calls=calls),
        ToolResultMessage(call_id=None, name="get_weather", content="no such city", is_error=True),
    ]
    built = build(messages)
    use = built.body["messages"][1]["content"][0]["toolUse"]
    result = built.body["messages"][2]["content"][0]["toolResult"]
    assert use["toolUseId"] == result["toolUseId"] == "tooluse_fcbench_1_0"
    assert result["status"] == "error" and result["content"] == [{"text": "no such city"}]
    assert any("had no id" in note for note in built.notes)
    assert_valid(built.body)


def test_replayed_turns_are_sent_byte_for_byte() -> None:
    content = [
        {"reasoningContent": {"reasoningText": {"text": "hmm", "signature": "sig"}}},
        {"toolUse": {"toolUseId": "tooluse_z", "name": "get_time", "input": {}}},
    ]
    turn = AssistantMessage(
        calls=[ToolCall(id="tooluse_z", name="get_time", arguments={})],
        provider_state={"bedrock-converse": {"content": content}},
    )
    messages = [
        UserMessage(content="time?"),
        turn,
        ToolResultMessage(call_id="tooluse_z", name="get_time", content="9:00"),
    ]
    assert build(messages).body["messages"][1]["content"] is content


def test_system_and_inference_config() -> None:
    messages = [SystemMessage(content="Be brief."), UserMessage(content="Hi")]
    built = build(messages, system="You are a helper.", temperature=0.3, max_tokens=77)
    assert built.body["system"] == [{"text": "You are a helper.\n\nBe brief."}]
    assert built.body["inferenceConfig"] == {"maxTokens": 77, "temperature": 0.3}
    assert_valid(built.body)
    assert "temperature" not in build(temperature=None).body["inferenceConfig"]
    assert "system" not in build().body


def test_options_without_a_wire_switch_are_noted() -> None:
    notes = build(strict=True, parallel_tool_calls=False, seed=3, previous_response_id="r1").notes
    assert any(n.startswith("strict not sent") for n in notes)
    assert any(n.startswith("parallel_tool_calls=False not sent") for n in notes)
    assert any(n.startswith("seed not sent") for n in notes)
    assert any(n.startswith("previous_response_id not sent") for n in notes)
    assert ADAPTER.capabilities.strict_mode is False and ADAPTER.capabilities.parallel_control is False


def test_target_params_merge_into_the_body() -> None:
    params = {
        "inferenceConfig": {"topP": 0.9, "stopSequences": ["###"]},
        "additionalModelRequestFields": {"top_k": 50},
    }
    body = merged_params(build(temperature=0.0).body, params)
    assert body["inferenceConfig"] == {
        "maxTokens": 1024,
        "temperature": 0.0,
        "topP": 0.9,
        "stopSequences": ["###"],
    }
    assert body["additionalModelRequestFields"] == {"top_k": 50}
    assert_valid(body, "ConverseStream")


def test_tool_result_messages_match_calls_by_id() -> None:
    calls = [
        ToolCall(id="a", name="get_weather", arguments={}),
        ToolCall(id="b", name="get_time", arguments={}),
    ]
    results = [
        ToolResultMessage(call_id="b", name="get_time", content="x"),
        ToolResultMessage(call_id="a", name="get_weather", content=[1, 2]),
    ]
    (message,) = ADAPTER.tool_result_messages(calls, results)
    assert [b["toolResult"]["toolUseId"] for b in message["content"]] == ["a", "b"]
    assert message["content"][0]["toolResult"]["content"] == [{"text": "[1,2]"}]
