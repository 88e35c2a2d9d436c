"""Agent frameworks run their own tool loops to a final answer against the strict mock.

The OpenAI Agents SDK (Responses and Chat Completions models) and pydantic-ai (OpenAI Chat, OpenAI
Responses, Anthropic Messages) each get one Python tool, ``lookup_order``, and the core suite's
order question. ``sim-careful`` calls the tool, the framework runs the function and sends its result
back, and ``sim-careful`` answers with text built from that result: two requests per loop.

Each test watches both ends: the client's HTTP hooks log every request body and response status
(nothing may get a 400, or any other error), and a recording wrapper around ``sim-careful`` keeps
what the mock decoded from each request, so a test can check that the second request carried the
tool result for the very call the mock made in its first reply.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai
import pytest
from agents import (
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from agents.models.interface import Model
from openai import AsyncOpenAI
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai import Tool
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.models import Model as PydanticModel
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.models.openai import OpenAIResponsesModel as PydanticResponsesModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.settings import ModelSettings as PydanticSettings

from fcbench.mock.server import MockServer
from fcbench.mock.sim.base import SimReply, SimRequest
from fcbench.mock.sim.models import Careful
from fcbench.suite.loader import load_suite

PROMPT = "Where is order ORD-104821?"
INSTRUCTIONS = "You help customers with their orders."
ORDER = {"order_id": "ORD-104821", "status": "shipped", "carrier": "UPS", "eta": "2026-03-14"}
CHAT, RESPONSES, MESSAGES = "/v1/chat/completions", "/v1/responses", "/v1/messages"


class RecordingCareful:
    """``sim-careful``, keeping every request the mock decoded for it."""

    name = "sim-careful"

    def __init__(self) -> None:
        self.model = Careful()
        self.requests: list[SimRequest] = []

    def respond(self, request: SimRequest) -> SimReply:
        """Record the request, then answer as ``sim-careful``."""
        self.requests.append(request)
        return self.model.respond(request)


@dataclass
class Wire:
    """What went over HTTP: each request's path and body, each response's status and body."""

    sent: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    answers: list[tuple[int, str]] = field(default_factory=list)
    """Status and body text (JSON, or SSE for a stream)."""

    def client(self) -> httpx2.AsyncClient:
        """An async client that logs into this object (no environment proxies)."""

        async def on_request(request: httpx2.Request) -> None:
            await request.aread()
            self.sent.append((request.url.path, json.loads(request.content)))

        async def on_response(response: httpx2.Response) -> None:
            await response.aread()
            self.answers.append((response.status_code, response.text))

        hooks: dict[str, list[Callable[..., Any]]] = {"request": [on_request], "response": [on_response]}
        return httpx2.AsyncClient(timeout=10, trust_env=False, event_hooks=hooks)


@dataclass
class Loop:
    """One mock server with a recording ``sim-careful``, the wire log and the tool's calls."""

    server: MockServer
    model: RecordingCareful
    wire: Wire = field(default_factory=Wire)
    calls: list[dict[str, Any]] = field(default_factory=list)

    def lookup_order(self, order_id: str) -> str:
        """What every framework's tool runs: note the arguments, return the order as JSON."""
        self.calls.append({"order_id": order_id})
        return json.dumps(ORDER)


@pytest.fixture(autouse=True)
def no_tracing() -> None:
    """The Agents SDK would export traces to the real platform; keep it from trying."""
    set_tracing_disabled(True)


@pytest.fixture
def loop(mock_server_factory: Callable[..., MockServer]) -> Iterator[Loop]:
    """A fresh strict mock serving the recording ``sim-careful``."""
    model = RecordingCareful()
    yield Loop(mock_server_factory(models={"sim-careful": model}), model)


def _description() -> str:
    tool = next(t for t in load_suite("core").tool_sets["core"] if t.name == "lookup_order")
    return tool.description


# ---------------------------------------------------------------- what each dialect carried
def _made_call_ids(path: str, text: str) -> list[str]:
    """Ids of the tool calls in a reply of the mock, a JSON body or an SSE stream."""
    if not text.startswith(("data:", "event:")):
        answer = json.loads(text)
        if path == CHAT:
            return [call["id"] for call in answer["choices"][0]["message"].get("tool_calls") or []]
        if path == RESPONSES:
            return [item["call_id"] for item in answer["output"] if item["type"] == "function_call"]
        return [block["id"] for block in answer["content"] if block["type"] == "tool_use"]
    ids: list[str] = []
    for line in text.splitlines():
        data = line.removeprefix("data:").strip()
        if not line.startswith("data:") or data == "[DONE]":
            continue
        event = json.loads(data)
        if path == CHAT:
            deltas = [call for choice in event["choices"] for call in choice["delta"].get("tool_calls") or []]
            ids += [call["id"] for call in deltas if call.get("id")]
        elif path == RESPONSES and event["type"] == "response.output_item.done":
            ids += [event["item"]["call_id"]] if event["item"]["type"] == "function_call" else []
        elif event["type"] == "content_block_start" and event["content_block"]["type"] == "tool_use":
            ids.append(event["content_block"]["id"])
    return ids


def _sent_results(path: str, body: dict[str, Any]) -> list[tuple[str, Any]]:
    """``(call id, decoded result)`` of every tool result in a request body."""
    if path == CHAT:
        messages = body["messages"]
        return [(m["tool_call_id"], json.loads(m["content"])) for m in messages if m["role"] == "tool"]
    if path == RESPONSES:
        items = [item for item in body["input"] if item.get("type") == "function_call_output"]
        return [(item["call_id"], json.loads(item["output"])) for item in items]
    found: list[tuple[str, Any]] = []
    for message in body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block["type"] == "tool_result":
                content = block["content"]
                text = content if isinstance(content, str) else "".join(part["text"] for part in content)
                found.append((block["tool_use_id"], json.loads(text)))
    return found


def _check_loop(loop: Loop, path: str, final: str, *, stream: bool = False) -> None:
    """Tool call, tool run with the right arguments, result sent back, final text: all of it."""
    assert loop.calls == [{"order_id": "ORD-104821"}]
    assert [status for status, _ in loop.wire.answers] == [200, 200], loop.wire.answers
    assert [sent_path for sent_path, _ in loop.wire.sent] == [path, path]
    (_, first_body), (_, second_body) = loop.wire.sent
    assert bool(first_body.get("stream")) is stream and bool(second_body.get("stream")) is stream
    made = _made_call_ids(path, loop.wire.answers[0][1])
    assert len(made) == 1 and _made_call_ids(path, loop.wire.answers[1][1]) == []
    assert _sent_results(path, first_body) == []
    assert _sent_results(path, second_body) == [(made[0], ORDER)]
    # The mock decoded the same: no tool turn at first, then the result of the call it made.
    first, second = loop.model.requests
    assert [turn.role for turn in first.turns] == ["user"] and first.turns[0].text == PROMPT
    assert [tool.name for tool in first.tools] == ["lookup_order"]
    assert [turn.role for turn in second.turns] == ["user", "assistant", "tool"]
    assert [(call.name, json.loads(call.arguments_json)) for call in second.turns[1].calls] == [
        ("lookup_order", {"order_id": "ORD-104821"})
    ]
    assert (second.turns[2].call_id, second.turns[2].result) == (made[0], ORDER)
    assert INSTRUCTIONS in first.system and INSTRUCTIONS in second.system
    assert "shipped" in final and "ORD-104821" in final


# ---------------------------------------------------------------- OpenAI Agents SDK
AGENTS_MODELS: dict[str, tuple[Callable[[AsyncOpenAI], Model], str]] = {
    "responses": (lambda client: OpenAIResponsesModel(model="sim-careful", openai_client=client), RESPONSES),
    "chat": (lambda client: OpenAIChatCompletionsModel(model="sim-careful", openai_client=client), CHAT),
}
"""Agents SDK model -> (builder over the client, the path it posts to)."""


async def _agents_run(
    loop: Loop, api: str, *, stream: bool = False, settings: ModelSettings | None = None
) -> str:
    lookup = function_tool(
        loop.lookup_order, name_override="lookup_order", description_override=_description()
    )
    async with loop.wire.client() as http:
        client = AsyncOpenAI(
            base_url=loop.server.base_urls()["openai-chat"],
            api_key="sk-test",
            max_retries=0,
            http_client=http,
        )
        model = AGENTS_MODELS[api][0](client)
        agent = Agent(
            name="orders",
            instructions=INSTRUCTIONS,
            tools=[lookup],
            model=model,
            model_settings=settings or ModelSettings(),
        )
        config = RunConfig(tracing_disabled=True)
        if not stream:
            result = await Runner.run(agent, PROMPT, max_turns=4, run_config=config)
            return str(result.final_output)
        streamed = Runner.run_streamed(agent, PROMPT, max_turns=4, run_config=config)
        kinds = {event.type async for event in streamed.stream_events()}
        assert "raw_response_event" in kinds
        return str(streamed.final_output)


def test_agents_sdk_responses_model_loop(loop: Loop) -> None:
    final = asyncio.run(_agents_run(loop, "responses"))
    _check_loop(loop, RESPONSES, final)
    # The SDK replays the call item it got, with the mock's ``fc_`` item id, and no server state.
    call_item = next(item for item in loop.wire.sent[1][1]["input"] if item.get("type") == "function_call")
    assert call_item["id"].startswith("fc_") and "previous_response_id" not in loop.wire.sent[1][1]


def test_agents_sdk_chat_completions_model_loop(loop: Loop) -> None:
    final = asyncio.run(_agents_run(loop, "chat"))
    _check_loop(loop, CHAT, final)
    # Instructions travel as a system message; the assistant turn is replayed with its call.
    messages = loop.wire.sent[1][1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool"]
    assert messages[2]["tool_calls"][0]["function"]["name"] == "lookup_order"


@pytest.mark.parametrize("api", sorted(AGENTS_MODELS))
def test_agents_sdk_streamed_loop(loop: Loop, api: str) -> None:
    settings = ModelSettings(temperature=0, max_tokens=200, parallel_tool_calls=False, include_usage=True)
    final = asyncio.run(_agents_run(loop, api, stream=True, settings=settings))
    _check_loop(loop, AGENTS_MODELS[api][1], final, stream=True)
    assert all(body["temperature"] == 0 for _, body in loop.wire.sent)


def test_agents_sdk_unknown_field_gets_the_400(loop: Loop) -> None:
    settings = ModelSettings(extra_body={"colour": "red"})
    with pytest.raises(openai.BadRequestError) as info:
        asyncio.run(_agents_run(loop, "chat", settings=settings))
    assert (info.value.status_code, info.value.param) == (400, "colour")
    assert loop.calls == [] and loop.model.requests == [] and len(loop.wire.sent) == 1


# ---------------------------------------------------------------- pydantic-ai
def _openai_provider(loop: Loop, http: httpx2.AsyncClient) -> OpenAIProvider:
    return OpenAIProvider(
        base_url=loop.server.base_urls()["openai-chat"], api_key="sk-test", http_client=http
    )


def _anthropic_model(loop: Loop, http: httpx2.AsyncClient) -> PydanticModel:
    provider = AnthropicProvider(base_url=loop.server.url, api_key="sk-ant-test", http_client=http)
    return AnthropicModel("sim-careful", provider=provider)


PYDANTIC_MODELS: dict[str, tuple[Callable[[Loop, httpx2.AsyncClient], PydanticModel], str]] = {
    "openai-chat": (
        lambda loop, http: OpenAIChatModel("sim-careful", provider=_openai_provider(loop, http)),
        CHAT,
    ),
    "openai-responses": (
        lambda loop, http: PydanticResponsesModel("sim-careful", provider=_openai_provider(loop, http)),
        RESPONSES,
    ),
    "anthropic": (_anthropic_model, MESSAGES),
}
"""pydantic-ai model -> (builder over the loop and the HTTP client, the path it posts to)."""


async def _pydantic_run(
    loop: Loop, api: str, *, stream: bool = False, settings: PydanticSettings | None = None
) -> str:
    async with loop.wire.client() as http:
        lookup = Tool(loop.lookup_order, name="lookup_order", description=_description())
        model = PYDANTIC_MODELS[api][0](loop, http)
        agent = PydanticAgent(model, instructions=INSTRUCTIONS, tools=[lookup], model_settings=settings)
        if not stream:
            return (await agent.run(PROMPT)).output
        async with agent.run_stream(PROMPT) as streamed:
            return await streamed.get_output()


def test_pydantic_ai_openai_chat_loop(loop: Loop) -> None:
    final = asyncio.run(_pydantic_run(loop, "openai-chat"))
    _check_loop(loop, CHAT, final)
    assert loop.wire.sent[0][1]["tool_choice"] == "auto"


def test_pydantic_ai_openai_responses_loop(loop: Loop) -> None:
    final = asyncio.run(_pydantic_run(loop, "openai-responses"))
    _check_loop(loop, RESPONSES, final)
    assert loop.wire.sent[1][1]["instructions"] == INSTRUCTIONS


def test_pydantic_ai_anthropic_loop(loop: Loop) -> None:
    final = asyncio.run(_pydantic_run(loop, "anthropic"))
    _check_loop(loop, MESSAGES, final)
    # The result goes back as a ``tool_result`` block in a user turn, not flagged as an error.
    last = loop.wire.sent[1][1]["messages"][-1]
    assert last["role"] == "user" and last["content"][0]["is_error"] is False


@pytest.mark.parametrize("api", sorted(PYDANTIC_MODELS))
def test_pydantic_ai_streamed_loop(loop: Loop, api: str) -> None:
    settings = PydanticSettings(temperature=0, max_tokens=200, parallel_tool_calls=False)
    final = asyncio.run(_pydantic_run(loop, api, stream=True, settings=settings))
    _check_loop(loop, PYDANTIC_MODELS[api][1], final, stream=True)
    assert all(body["temperature"] == 0 for _, body in loop.wire.sent)


def test_pydantic_ai_unknown_field_gets_the_400(loop: Loop) -> None:
    settings = PydanticSettings(extra_body={"colour": "red"})
    with pytest.raises(ModelHTTPError) as info:
        asyncio.run(_pydantic_run(loop, "anthropic", settings=settings))
    assert info.value.status_code == 400
    assert isinstance(info.value.body, dict)
    assert info.value.body["error"] == {
        "type": "invalid_request_error",
        "message": "colour: Extra inputs are not permitted",
    }
    assert loop.calls == [] and loop.model.requests == [] and len(loop.wire.sent) == 1
