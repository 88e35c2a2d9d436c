"""ConverseStream assembly, and event-stream framing faults over HTTP.

Event payloads follow AWS's ``ConverseStream`` reference (``messageStart``, ``contentBlockStart``
with ``start.toolUse``, ``contentBlockDelta`` with ``delta.text`` or ``delta.toolUse.input``,
``contentBlockStop``, ``messageStop``, ``metadata``; exceptions as exception frames). The framing
tests send hand-made frames from a bare HTTP server through the real transport.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from robust_server import Answer, HostileServer, SeenRequest

from fcbench.adapters.base import RequestOptions, ToolChoice
from fcbench.adapters.bedrock_converse import BedrockConverse
from fcbench.contract import ProviderErrorOutcome, UserMessage
from fcbench.endpoints import Endpoint
from fcbench.mock.bedrock_converse import encode_frame
from fcbench.transport import Exchange, RetryPolicy, Transport

ADAPTER = BedrockConverse()
OFFERED = ["get_weather", "get_time"]
ARGUMENTS = '{"city": "San Francisco, CA", "unit": "celsius"}'


def event(name: str, **data: Any) -> tuple[str, str]:
    return name, json.dumps({**data, "p": "abcdefgh"})


def tool_stream(arguments: str, pieces: int, stop: str = "tool_use") -> list[tuple[str | None, str]]:
    size = max(1, -(-len(arguments) // pieces))
    fragments = [arguments[i : i + size] for i in range(0, len(arguments), size)]
    return [
        event("messageStart", role="assistant"),
        event("contentBlockDelta", contentBlockIndex=0, delta={"text": "Let me "}),
        event("contentBlockDelta", contentBlockIndex=0, delta={"text": "check."}),
        event("contentBlockStop", contentBlockIndex=0),
        event(
            "contentBlockStart",
            contentBlockIndex=1,
            start={"toolUse": {"toolUseId": "tooluse_abc", "name": "get_weather"}},
        ),
        *[
            event("contentBlockDelta", contentBlockIndex=1, delta={"toolUse": {"input": f}})
            for f in fragments
        ],
        event("contentBlockStop", contentBlockIndex=1),
        event("messageStop", stopReason=stop),
        event(
            "metadata",
            usage={"inputTokens": 40, "outputTokens": 20, "totalTokens": 60},
            metrics={"latencyMs": 9},
        ),
    ]


@pytest.mark.parametrize("pieces", [1, 7, len(ARGUMENTS)])
def test_arguments_split_over_many_deltas(pieces: int) -> None:
    turn = ADAPTER.parse_stream(tool_stream(ARGUMENTS, pieces), OFFERED)
    outcome = turn.outcome.model_dump()
    assert outcome["kind"] == "tool_calls" and outcome["text"] == "Let me check."
    (call,) = outcome["calls"]
    assert (call["id"], call["name"], call["arguments"]) == (
        "tooluse_abc",
        "get_weather",
        json.loads(ARGUMENTS),
    )
    assert call["raw_arguments"] == ARGUMENTS
    assert turn.anomalies == [] and turn.finish_reason == "tool_use"
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (40, 20)
    assert turn.assistant is not None
    replay = turn.assistant.provider_state["bedrock-converse"]["content"]  # type: ignore[index]
    assert replay == [
        {"text": "Let me check."},
        {"toolUse": {"toolUseId": "tooluse_abc", "name": "get_weather", "input": json.loads(ARGUMENTS)}},
    ]


def test_a_stream_cut_by_max_tokens() -> None:
    turn = ADAPTER.parse_stream(tool_stream(ARGUMENTS[:20], 3, stop="max_tokens"), OFFERED)
    (call,) = turn.outcome.model_dump()["calls"]
    assert call["arguments"] is None and call["parse_error"]
    assert {a.code for a in turn.anomalies} == {"unparseable_arguments", "finish_reason_mismatch"}


def test_a_tool_without_input_deltas_has_empty_arguments() -> None:
    events = tool_stream("", 1)
    turn = ADAPTER.parse_stream(events, OFFERED)
    assert turn.outcome.model_dump()["calls"][0]["arguments"] == {}


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("exception:throttlingException", "rate_limited"),
        ("exception:modelStreamErrorException", "server"),
        ("exception:internalServerException", "server"),
        ("exception:validationException", "bad_request"),
        ("exception:serviceUnavailableException", "overloaded"),
        ("error:InternalFailure", "server"),
    ],
)
def test_an_exception_mid_stream_is_a_provider_error(name: str, code: str) -> None:
    events = tool_stream(ARGUMENTS, 5)
    events.insert(6, (name, json.dumps({"message": "stream failed"})))
    outcome = ADAPTER.parse_stream(events, OFFERED).outcome
    assert isinstance(outcome, ProviderErrorOutcome) and outcome.code == code
    assert outcome.message.startswith("stream failed")


def test_incomplete_unknown_and_broken_streams() -> None:
    events = tool_stream(ARGUMENTS, 2)
    cut = ADAPTER.parse_stream(events[:-2], OFFERED)
    assert [a.code for a in cut.anomalies] == ["stream_incomplete"] and cut.outcome.kind == "tool_calls"
    unknown = ADAPTER.parse_stream([*events[:1], event("mysteryEvent"), *events[1:]], OFFERED)
    assert [a.code for a in unknown.anomalies] == ["unknown_event"]
    odd_delta = [
        *events[:2],
        event("contentBlockDelta", contentBlockIndex=0, delta={"sparkle": 1}),
        *events[2:],
    ]
    assert [a.code for a in ADAPTER.parse_stream(odd_delta, OFFERED).anomalies] == ["unknown_event"]
    for data in ("{not json", "[1]"):
        broken = ADAPTER.parse_stream([*events[:3], ("contentBlockDelta", data)], OFFERED).outcome
        assert isinstance(broken, ProviderErrorOutcome) and broken.code == "bad_response"
    empty = ADAPTER.parse_stream([], OFFERED).outcome
    assert isinstance(empty, ProviderErrorOutcome) and empty.code == "bad_response"


def test_a_guardrail_in_a_stream_is_a_refusal() -> None:
    events = [
        event("messageStart", role="assistant"),
        event("contentBlockDelta", contentBlockIndex=0, delta={"text": "Sorry."}),
        event("messageStop", stopReason="guardrail_intervened"),
    ]
    assert ADAPTER.parse_stream(events, OFFERED).outcome.kind == "refusal"


# ------------------------------------------------------------------ framing over HTTP
def frames(events: list[tuple[str | None, str]]) -> bytes:
    return b"".join(
        encode_frame(
            {":event-type": name or "", ":content-type": "application/json", ":message-type": "event"},
            data.encode(),
        )
        for name, data in events
    )


def exchange(body: bytes) -> Exchange:
    def answer(request: SeenRequest) -> Answer:
        return Answer(200, body, content_type="application/vnd.amazon.eventstream")

    with HostileServer(answer) as server:
        endpoint = Endpoint(name="bedrock-hostile", dialect="bedrock-converse", base_url=server.url)
        built = ADAPTER.build_request(
            None, [UserMessage(content="hi")], [], ToolChoice(), RequestOptions(model="m", stream=True)
        )

        async def go() -> Exchange:
            transport = Transport(timeout_s=10, retry=RetryPolicy(max_retries=0))
            try:
                return await transport.exchange(endpoint, ADAPTER, built, api_key="k", offered_tools=OFFERED)
            finally:
                await transport.aclose()

        result = asyncio.run(go())
        assert server.requests[0].headers["accept"] == "application/vnd.amazon.eventstream"
        assert server.requests[0].headers["authorization"] == "Bearer k"
    return result


def test_well_formed_frames_over_http() -> None:
    result = exchange(frames(tool_stream(ARGUMENTS, 9)))
    assert result.turn.outcome.kind == "tool_calls"
    assert result.raw["response"]["events"][0][0] == "messageStart"


def test_a_bad_checksum_is_a_bad_response() -> None:
    data = bytearray(frames(tool_stream(ARGUMENTS, 3)))
    data[-3] ^= 0xFF
    result = exchange(bytes(data))
    outcome = result.turn.outcome
    assert isinstance(outcome, ProviderErrorOutcome) and outcome.code == "bad_response"
    assert "checksum" in outcome.message and "FrameError" in result.raw["response"]["cut"]


def test_a_truncated_frame_is_a_bad_response() -> None:
    data = frames(tool_stream(ARGUMENTS, 3))
    outcome = exchange(data[:-10]).turn.outcome
    assert isinstance(outcome, ProviderErrorOutcome) and outcome.code == "bad_response"
    assert "ended inside a frame" in outcome.message
