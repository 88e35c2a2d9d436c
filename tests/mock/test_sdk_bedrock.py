"""boto3's ``bedrock-runtime`` client against the mock, unchanged (retries off).

Auth: the installed botocore reads a Bedrock API key from ``AWS_BEARER_TOKEN_BEDROCK`` but sends
it only to HTTPS endpoints (``Bearer authorization requires an HTTPS endpoint``), and the mock
serves plain HTTP on 127.0.0.1. So the client signs with dummy SigV4 credentials, which the mock
accepts too (it reads the access key id from the ``Credential=`` part and checks no signature);
the bearer path is covered by fcbench's own adapter in the conformance tests.

The stream tests go through botocore's own event-stream parser, so they also check the mock's
frame encoding (prelude, headers, both checksums) against AWS's client.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.client import BaseClient
from botocore.config import Config
from botocore.exceptions import ClientError

from fcbench.mock.server import MockServer


@pytest.fixture
def client_for(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``client_for(server, validate=True)``: a bedrock-runtime client that reads no AWS configuration."""
    for name in ("AWS_BEARER_TOKEN_BEDROCK", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")

    def make(server: MockServer, validate: bool = True) -> BaseClient:
        config = Config(retries={"max_attempts": 1, "mode": "standard"}, parameter_validation=validate)
        return boto3.client(
            "bedrock-runtime",
            region_name="us-east-1",
            endpoint_url=server.url,
            aws_access_key_id="AKIDFCBENCHTEST",
            aws_secret_access_key="not-a-secret",
            config=config,
        )

    yield make


def tool_config(schema: dict[str, Any]) -> dict[str, Any]:
    spec = {"name": "get_weather", "description": "Weather for a city", "inputSchema": {"json": schema}}
    return {"tools": [{"toolSpec": spec}]}


QUESTION = {"role": "user", "content": [{"text": "Weather in Paris?"}]}


def result_message(use_id: str) -> dict[str, Any]:
    result = {"toolUseId": use_id, "content": [{"json": {"temp_c": 18}}], "status": "success"}
    return {"role": "user", "content": [{"toolResult": result}]}


def test_converse_tool_loop(inspector: MockServer, client_for: Any, weather_schema: dict[str, Any]) -> None:
    client = client_for(inspector)
    tools = tool_config(weather_schema)
    first = client.converse(modelId="sim-inspector", messages=[QUESTION], toolConfig=tools)
    assert first["stopReason"] == "tool_use"
    (block,) = first["output"]["message"]["content"]
    use = block["toolUse"]
    assert use["name"] == "get_weather" and use["input"] == {"city": "Paris"}
    assert use["toolUseId"].startswith("tooluse_")
    assert first["usage"]["inputTokens"] > 0 and first["metrics"]["latencyMs"] >= 0

    history = [QUESTION, first["output"]["message"], result_message(use["toolUseId"])]
    second = client.converse(modelId="sim-inspector", messages=history, toolConfig=tools)
    assert second["stopReason"] == "end_turn"
    seen = json.loads(second["output"]["message"]["content"][0]["text"])["tool_turns"]
    assert seen == [
        {"call_id": use["toolUseId"], "tool_name": "get_weather", "result": {"temp_c": 18}, "is_error": False}
    ]


def assemble(events: Any) -> tuple[dict[str, Any], str]:
    """A ConverseStream's events as the assistant message they spell, and the stop reason."""
    blocks: dict[int, dict[str, Any]] = {}
    stop = ""
    for event in events:
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            blocks[start["contentBlockIndex"]] = {"toolUse": {**start["start"]["toolUse"], "input": ""}}
        elif "contentBlockDelta" in event:
            delta = event["contentBlockDelta"]
            block = blocks.setdefault(delta["contentBlockIndex"], {"text": ""})
            if "text" in delta["delta"]:
                block["text"] += delta["delta"]["text"]
            else:
                block["toolUse"]["input"] += delta["delta"]["toolUse"]["input"]
        elif "messageStop" in event:
            stop = event["messageStop"]["stopReason"]
    for block in blocks.values():
        if "toolUse" in block:
            block["toolUse"]["input"] = json.loads(block["toolUse"]["input"] or "{}")
    return {"role": "assistant", "content": [blocks[i] for i in sorted(blocks)]}, stop


def test_converse_stream_tool_loop(
    inspector: MockServer, client_for: Any, weather_schema: dict[str, Any]
) -> None:
    client = client_for(inspector)
    tools = tool_config(weather_schema)
    first = client.converse_stream(modelId="sim-inspector", messages=[QUESTION], toolConfig=tools)
    message, stop = assemble(first["stream"])
    assert stop == "tool_use"
    use = message["content"][0]["toolUse"]
    assert use["name"] == "get_weather" and use["input"] == {"city": "Paris"}

    history = [QUESTION, message, result_message(use["toolUseId"])]
    second = client.converse_stream(modelId="sim-inspector", messages=history, toolConfig=tools)
    events = list(second["stream"])
    final, stop = assemble(events)
    assert stop == "end_turn" and "metadata" in events[-1]
    assert json.loads(final["content"][0]["text"])["tool_turns"][0]["call_id"] == use["toolUseId"]


def test_an_unknown_field_is_boto3s_validation_exception(inspector: MockServer, client_for: Any) -> None:
    """botocore validates parameters before sending and cannot even serialise an unknown member, so
    this client has ``parameter_validation=False`` and a ``before-sign`` hook adds the field to the
    serialised body: the mock's 400 then comes back as boto3's own ``ValidationException``."""
    client = client_for(inspector, validate=False)

    def add_unknown_field(request: Any, **kwargs: Any) -> None:
        body = json.loads(request.data)
        body["inferenceConfig"]["topK"] = 5
        request.data = json.dumps(body).encode()

    client.meta.events.register("before-sign.bedrock-runtime.Converse", add_unknown_field)
    with pytest.raises(client.exceptions.ValidationException) as caught:
        client.converse(modelId="sim-echo", messages=[QUESTION], inferenceConfig={"maxTokens": 10})
    error = caught.value.response
    assert error["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert "extraneous key [inferenceConfig.topK]" in error["Error"]["Message"]


def test_sdk_errors_arrive_typed(inspector: MockServer, client_for: Any) -> None:
    client = client_for(inspector)
    with pytest.raises(client.exceptions.ThrottlingException):
        client.meta.events.register(
            "before-sign.bedrock-runtime.Converse",
            lambda request, **kwargs: request.headers.__setitem__("x-fcbench-fault", "rate_limit=0"),
        )
        client.converse(modelId="sim-echo", messages=[QUESTION])
    plain = client_for(inspector)
    with pytest.raises(ClientError) as caught:
        plain.converse(modelId="sim-echo", messages=[{"role": "assistant", "content": [{"text": "hi"}]}])
    assert caught.value.response["Error"]["Code"] == "ValidationException"
    assert "must start with a user message" in caught.value.response["Error"]["Message"]
