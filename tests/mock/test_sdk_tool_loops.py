"""The official SDKs' own tool loops run to a final answer against the strict mock.

``sim-careful`` calls ``get_shipping_quote`` for the core suite's shipping prompt, then answers
with text once the tool result is in the conversation, so each loop ends after two model turns.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2
import openai
from anthropic import beta_tool
from google import genai
from google.genai import types

from fcbench.suite.loader import load_suite

PROMPT = "Quote standard shipping for 750 grams to US postal code 02139."
QUOTE = {"price": 12.5, "currency": "USD"}


def get_shipping_quote(
    country_code: str, postal_code: str, weight_grams: int, service: str = "standard"
) -> dict:
    """Quote shipping for a parcel.

    Args:
        country_code: ISO 3166-1 alpha-2 country code, uppercase.
        postal_code: destination postal code.
        weight_grams: parcel weight in grams.
        service: standard or express.
    """
    return dict(QUOTE)


def test_anthropic_tool_runner_completes(mock_server: str) -> None:
    sent: list[tuple[dict[str, str], dict[str, Any]]] = []

    def record(request: httpx2.Request) -> None:
        request.read()
        sent.append((dict(request.headers), json.loads(request.content)))

    calls: list[dict[str, Any]] = []

    @beta_tool
    def quote(country_code: str, postal_code: str, weight_grams: int, service: str = "standard") -> str:
        """Quote shipping for a parcel.

        Args:
            country_code: ISO 3166-1 alpha-2 country code, uppercase.
            postal_code: destination postal code.
            weight_grams: parcel weight in grams.
            service: standard or express.
        """
        calls.append({"country_code": country_code, "postal_code": postal_code, "weight_grams": weight_grams})
        return json.dumps(QUOTE)

    quote.name = "get_shipping_quote"
    client = anthropic.Anthropic(
        base_url=mock_server,
        api_key="sk-ant-test",
        max_retries=0,
        http_client=httpx2.Client(timeout=20, event_hooks={"request": [record]}),
    )
    runner = client.beta.messages.tool_runner(
        model="sim-careful", max_tokens=500, tools=[quote], messages=[{"role": "user", "content": PROMPT}]
    )
    replies = list(runner)
    assert [reply.stop_reason for reply in replies] == ["tool_use", "end_turn"]
    assert calls == [{"country_code": "US", "postal_code": "02139", "weight_grams": 750}]
    final = replies[-1].content[0]
    assert final.type == "text" and "12.5" in final.text
    # The runner first asks for a server-side thread (a beta field), is told the server cannot
    # thread, and then sends the whole conversation on every turn.
    assert "thread" in sent[0][1] and sent[0][0].get("anthropic-beta")
    assert all("thread" not in body for _, body in sent[1:]) and len(sent) == 3


def test_openai_chat_loop_completes(mock_server: str) -> None:
    client = openai.OpenAI(base_url=f"{mock_server}/v1", api_key="sk-test", max_retries=0, timeout=20)
    quote = next(tool for tool in load_suite("core").tool_sets["core"] if tool.name == "get_shipping_quote")
    function = {"name": quote.name, "description": quote.description, "parameters": quote.parameters}
    tools: Any = [{"type": "function", "function": function}]
    functions = {"get_shipping_quote": get_shipping_quote}
    messages: list[Any] = [{"role": "user", "content": PROMPT}]
    for _ in range(4):
        reply = client.chat.completions.create(model="sim-careful", messages=messages, tools=tools)
        message = reply.choices[0].message
        if not message.tool_calls:
            break
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            assert call.type == "function"
            result = functions[call.function.name](**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})
    assert reply.choices[0].finish_reason == "stop"
    assert message.content and "12.5" in message.content
    assert [m["role"] for m in messages] == ["user", "assistant", "tool"]


def test_genai_automatic_function_calling_completes(mock_server: str) -> None:
    options = types.HttpOptions(
        base_url=mock_server,
        api_version="v1beta",
        timeout=20_000,
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    client = genai.Client(api_key="test-key", http_options=options)
    chat = client.chats.create(
        model="sim-careful", config=types.GenerateContentConfig(tools=[get_shipping_quote])
    )
    reply = chat.send_message(PROMPT)
    assert reply.text and "12.5" in reply.text
    history = chat.get_history()
    calls = [part.function_call for content in history for part in content.parts or [] if part.function_call]
    answers = [part for content in history for part in content.parts or [] if part.function_response]
    assert len(answers) == 1 and [content.role for content in history] == ["user", "model", "user", "model"]
    assert [call.name for call in calls] == ["get_shipping_quote"]
    assert calls[0].args == {"country_code": "US", "postal_code": "02139", "weight_grams": 750}
