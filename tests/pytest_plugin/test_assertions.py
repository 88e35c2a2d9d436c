"""The assertion helpers grade with fcbench's grader: real SDK replies from the mock, read by the
dialect's own adapter, pass or fail the way a case's verdict would."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from fcbench.pytest_plugin import assert_asked_for, assert_called, assert_no_call, outcome_of

EXAMPLE_AGENT = Path(__file__).resolve().parents[2] / "examples" / "pytest-agent" / "agent.py"


def example_tools() -> list[dict[str, Any]]:
    """The tools of the documented example agent (``examples/pytest-agent/agent.py``)."""
    spec = importlib.util.spec_from_file_location("example_agent", EXAMPLE_AGENT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tools: list[dict[str, Any]] = module.TOOLS
    return tools


TOOLS = example_tools()
ORDERS = next(tool for tool in TOOLS if tool["function"]["name"] == "lookup_order")


def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    raw = json.dumps(arguments)
    return {
        "kind": "tool_calls",
        "calls": [{"id": "c1", "name": name, "arguments": arguments, "raw_arguments": raw}],
    }


@pytest.fixture(scope="module")
def chat_reply(mock_server: str) -> Any:
    client = openai.OpenAI(base_url=mock_server + "/v1", api_key="test", max_retries=0)
    return client.chat.completions.create(
        model="sim-careful",
        messages=[{"role": "user", "content": "Where is my order ORD-104821?"}],
        tools=TOOLS,
    )


def test_an_openai_sdk_reply_becomes_the_call_it_holds(chat_reply: Any) -> None:
    outcome = outcome_of(chat_reply, "openai-chat", tools=TOOLS)
    verdict = assert_called(outcome, "lookup_order", tools=TOOLS, order_id="ORD-104821")
    assert (verdict.decision, verdict.schema_valid) == ("correct_call", True)
    assert outcome_of(chat_reply.to_json(), "openai-chat") == outcome


def test_an_anthropic_sdk_reply_is_read_by_its_own_adapter(mock_server: str) -> None:
    client = anthropic.Anthropic(base_url=mock_server, api_key="test", max_retries=0)
    tools = [
        {
            "name": "lookup_order",
            "description": "Look up an order.",
            "input_schema": ORDERS["function"]["parameters"],
        }
    ]  # type: ignore[index]
    reply = client.messages.create(
        model="sim-careful",
        max_tokens=200,
        messages=[{"role": "user", "content": "Where is my order ORD-104821?"}],
        tools=tools,  # type: ignore[arg-type]
    )
    assert_called(outcome_of(reply, "anthropic-messages"), "lookup_order", tools=tools, order_id="ORD-104821")


def test_a_wrong_value_fails_naming_it(chat_reply: Any) -> None:
    with pytest.raises(AssertionError, match=r'order_id: expected "ORD-1", got "ORD-104821"'):
        assert_called(outcome_of(chat_reply, "openai-chat"), "lookup_order", order_id="ORD-1")


def test_a_call_of_another_tool_fails_as_wrong_tool(chat_reply: Any) -> None:
    with pytest.raises(AssertionError, match="decision wrong_tool"):
        assert_called(outcome_of(chat_reply, "openai-chat"), "get_shipping_quote", tools=TOOLS)


def test_arguments_are_checked_against_the_offered_schema() -> None:
    loose = call("get_shipping_quote", {"country_code": "DE", "postal_code": "10115", "weight_grams": "750"})
    assert_called(loose, "get_shipping_quote", country_code="DE")  # no tools: no schema to break
    with pytest.raises(AssertionError, match="is not of type 'integer'"):
        assert_called(loose, "get_shipping_quote", tools=TOOLS, country_code="DE")


def test_no_call_passes_on_text_and_fails_on_a_call_or_a_call_written_as_text() -> None:
    assert assert_no_call("Hello! How can I help?").decision == "correct_abstention"
    with pytest.raises(AssertionError, match="decision unexpected_call"):
        assert_no_call(call("lookup_order", {"order_id": "ORD-104821"}), tools=TOOLS)
    written = 'I will call {"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}'
    with pytest.raises(AssertionError, match="decision call_in_text"):
        assert_no_call(written, tools=TOOLS)


def test_asked_for_reads_the_question_as_the_grader_does() -> None:
    prompt = "How much to ship 750 grams to Germany?"
    verdict = assert_asked_for("Could you tell me the zip code?", "postal_code", tools=TOOLS, prompt=prompt)
    assert verdict.decision == "correct_clarification"
    with pytest.raises(AssertionError, match="decision unnecessary_clarification"):
        assert_asked_for(
            "How heavy is the parcel?", "postal_code", tools=TOOLS, prompt=prompt, call="get_shipping_quote"
        )
    guessed = call("get_shipping_quote", {"country_code": "DE", "postal_code": "10001", "weight_grams": 750})
    with pytest.raises(AssertionError, match="decision guessed_missing"):
        assert_asked_for(guessed, "postal_code", tools=TOOLS, prompt=prompt)


def test_a_provider_error_is_never_a_pass() -> None:
    error = {"kind": "provider_error", "code": "rate_limited", "message": "slow down", "status": 429}
    with pytest.raises(AssertionError, match=r"provider error \(rate_limited, status 429\).*not_scored"):
        assert_no_call(error)


def test_bad_input_says_what_is_wrong() -> None:
    with pytest.raises(TypeError, match="cannot read a response of type int"):
        outcome_of(42, "openai-chat")
    with pytest.raises(ValueError, match="tools: "):
        assert_no_call("Hello!", tools=[{"type": "function", "function": {"description": "no name"}}])
    with pytest.raises(TypeError, match="at least one missing parameter"):
        assert_asked_for("What is it?")
