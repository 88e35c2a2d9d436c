"""The mock's Bedrock Converse dialect over HTTP: auth, error shape, strict fields, routes, streams."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from fcbench.adapters.eventstream import decode_all, frame_event
from fcbench.mock.server import MockServer

BEARER = {"authorization": "Bearer br-test"}
NAMESPACE = ":http://internal.amazon.com/coral/com.amazon.bedrock/"


def minimal(**extra: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": [{"text": "hi"}]}], **extra}


def post(
    server: MockServer, body: Any, *, model: str = "sim-echo", stream: bool = False, headers: Any = None
) -> httpx.Response:
    path = f"/model/{model}/{'converse-stream' if stream else 'converse'}"
    return httpx.post(
        server.url + path,
        json=body,
        headers=BEARER if headers is None else headers,
        timeout=20,
        trust_env=False,
    )


def assert_error(response: httpx.Response, status: int, kind: str) -> str:
    assert response.status_code == status, response.text
    assert response.headers["x-amzn-errortype"] == kind + NAMESPACE
    assert response.headers["x-amzn-requestid"]
    body = response.json()
    assert set(body) == {"message"}
    message: str = body["message"]
    return message


def test_a_minimal_request_and_model_ids_with_colons_and_slashes(inspector: MockServer) -> None:
    answer = post(inspector, minimal())
    assert answer.status_code == 200 and answer.json()["stopReason"] == "end_turn"
    assert set(answer.json()) == {"output", "stopReason", "usage", "metrics"}
    unknown = post(inspector, minimal(), model="anthropic.claude-3-haiku-20240307-v1%3A0")
    assert assert_error(unknown, 400, "ValidationException") == "The provided model identifier is invalid."
    arn = post(inspector, minimal(), model="arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fx")
    assert_error(arn, 400, "ValidationException")


def test_keys_bearer_or_sigv4_and_a_missing_key(inspector: MockServer) -> None:
    sigv4 = {"authorization": "AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/bedrock/aws4_request, X=y"}
    assert post(inspector, minimal(), headers=sigv4).status_code == 200
    missing = post(inspector, minimal(), headers={})
    assert assert_error(missing, 403, "MissingAuthenticationTokenException") == "Missing Authentication Token"
    fault = post(inspector, minimal(), headers={**BEARER, "x-fcbench-fault": "auth_error"})
    assert_error(fault, 403, "AccessDeniedException")


@pytest.mark.parametrize(
    ("body", "where"),
    [
        (minimal(modelId="sim-echo"), "modelId"),
        (minimal(inferenceConfig={"maxTokens": 5, "topK": 3}), "inferenceConfig.topK"),
        (minimal(toolConfig={"tools": [], "mode": "x"}), "toolConfig.mode"),
        (
            minimal(toolConfig={"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {}}, "x": 1}}]}),
            "toolConfig.tools.0.toolSpec.x",
        ),
        (minimal(toolConfig={"tools": [{"function": {}}]}), "toolConfig.tools.0.function"),
    ],
)
def test_unknown_fields_are_validation_exceptions(
    inspector: MockServer, body: dict[str, Any], where: str
) -> None:
    message = assert_error(post(inspector, body), 400, "ValidationException")
    assert f"extraneous key [{where}] is not permitted" in message


def test_known_optional_fields_pass(inspector: MockServer) -> None:
    body = minimal(
        system=[{"text": "Be brief."}],
        inferenceConfig={"maxTokens": 20, "temperature": 0.1, "topP": 0.9, "stopSequences": ["###"]},
        additionalModelRequestFields={"top_k": 5, "anything": {"nested": True}},
        requestMetadata={"team": "qa"},
    )
    answer = post(inspector, body)
    assert answer.status_code == 200, answer.text
    assert json.loads(answer.json()["output"]["message"]["content"][0]["text"])["system"] == "Be brief."


TOOLS = {"tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": {"type": "object"}}}}]}


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"messages": []}, "must start with a user message"),
        ({"messages": [{"role": "assistant", "content": [{"text": "x"}]}]}, "must start with a user message"),
        (
            {
                "messages": [
                    {"role": "user", "content": [{"text": "a"}]},
                    {"role": "user", "content": [{"text": "b"}]},
                ]
            },
            "must alternate between user and assistant roles",
        ),
        ({"messages": [{"role": "system", "content": [{"text": "x"}]}]}, "enum value set: [user, assistant]"),
        (minimal(inferenceConfig={"maxTokens": 0}), "greater than or equal to 1"),
        (
            minimal(toolConfig={"tools": [{"toolSpec": {"name": "bad name", "inputSchema": {"json": {}}}}]}),
            "pattern",
        ),
        (
            minimal(
                toolConfig={
                    "tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "array"}}}}]
                }
            ),
            "inputSchema.json.type must be one of the following: object",
        ),
        (
            minimal(toolConfig={**TOOLS, "toolChoice": {"tool": {"name": "nope"}}}),
            "not defined in toolConfig.tools",
        ),
        (minimal(toolConfig={**TOOLS, "toolChoice": {"none": {}}}), "union with one of: auto, any, tool"),
    ],
)
def test_requests_the_api_rejects(inspector: MockServer, body: dict[str, Any], fragment: str) -> None:
    assert fragment in assert_error(post(inspector, body), 400, "ValidationException")


def conversation(result_id: str, tool_config: bool = True) -> dict[str, Any]:
    use = {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather", "input": {"city": "Paris"}}}
    result = {"toolResult": {"toolUseId": result_id, "content": [{"text": "18 C"}], "status": "error"}}
    body: dict[str, Any] = {
        "messages": [
            {"role": "user", "content": [{"text": "Weather?"}]},
            {"role": "assistant", "content": [use]},
            {"role": "user", "content": [result]},
        ]
    }
    if tool_config:
        body["toolConfig"] = TOOLS
    return body


def test_tool_results_reach_the_model_and_are_checked(inspector: MockServer) -> None:
    answer = post(inspector, conversation("tooluse_1"), model="sim-inspector")
    seen = json.loads(answer.json()["output"]["message"]["content"][0]["text"])["tool_turns"]
    assert seen == [{"call_id": "tooluse_1", "tool_name": "get_weather", "result": "18 C", "is_error": True}]
    stray = post(inspector, conversation("tooluse_other"), model="sim-inspector")
    assert "exceeds the number of toolUse blocks" in assert_error(stray, 400, "ValidationException")
    bare = post(inspector, conversation("tooluse_1", tool_config=False), model="sim-inspector")
    assert "toolConfig field must be defined" in assert_error(bare, 400, "ValidationException")
    unanswered = conversation("tooluse_1")
    unanswered["messages"][2] = {"role": "user", "content": [{"text": "skip it"}]}
    missing = post(inspector, unanswered, model="sim-inspector")
    assert "Expected toolResult blocks at messages.2.content" in assert_error(
        missing, 400, "ValidationException"
    )


def test_a_stream_is_event_stream_frames(inspector: MockServer) -> None:
    answer = post(inspector, minimal(toolConfig=TOOLS), model="sim-inspector", stream=True)
    assert answer.headers["content-type"].startswith("application/vnd.amazon.eventstream")
    events = [frame_event(frame) for frame in decode_all(answer.content)]
    names = [name for name, _ in events]
    assert names == [
        "messageStart",
        "contentBlockStart",
        *["contentBlockDelta"] * (len(names) - 5),
        "contentBlockStop",
        "messageStop",
        "metadata",
    ]
    fragments = [
        json.loads(data)["delta"]["toolUse"]["input"] for name, data in events if name == "contentBlockDelta"
    ]
    assert json.loads("".join(fragments)) == {"city": "Paris"}


def test_an_error_inside_a_stream_is_an_exception_frame(inspector: MockServer) -> None:
    headers = {**BEARER, "x-fcbench-fault": "stream_error"}
    answer = post(inspector, minimal(toolConfig=TOOLS), model="sim-inspector", stream=True, headers=headers)
    name, data = frame_event(decode_all(answer.content)[-1])
    assert name == "exception:serviceUnavailableException" and json.loads(data) == {"message": "Overloaded"}
