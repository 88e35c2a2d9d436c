"""The mock answers a judge request (only ``rate_reply`` offered) with one deterministic
``rate_reply`` call, by rules of its own, for every simulated model, over its real HTTP API, and
leaves every other request to the model."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

import fcbench.mock.sim as sim
from fcbench.mock.rater import rate_reply, rating
from fcbench.mock.server import base_urls
from fcbench.mock.sim.base import SimRequest, SimTool, SimTurn

LABELS = ["writes_call", "invents_value", "asks_for_missing", "asks_again", "asks_other", "answers"]
TOOL = SimTool(
    "rate_reply",
    "Record your rating.",
    {
        "type": "object",
        "properties": {"label": {"type": "string", "enum": LABELS}, "reason": {"type": "string"}},
    },
)


def material(reply: str, missing: str = "postal_code", said: str = "Ship 750 g to Germany.") -> str:
    parts = [
        f"## Conversation\nuser: {said}",
        "## Tools the assistant was offered\n- get_shipping_quote: Quote.",
        f"## Information the request still lacks\n{missing}",
        f"## The assistant's reply (text, no tool call)\n{reply}",
    ]
    return "\n\n".join(parts)


@pytest.mark.parametrize(
    ("reply", "missing", "label"),
    [
        ("What is the postal code?", "postal_code", "asks_for_missing"),
        (
            "Bitte nennen Sie die Postleitzahl.",
            "postal_code",
            "asks_other",
        ),  # no English word: a rule's limit
        ("Please send the postal code.", "postal_code", "asks_for_missing"),
        ("What is your email address?", "postal_code", "asks_other"),
        ("Which country?", "nothing", "asks_again"),
        ('get_shipping_quote(postal_code="10115")', "postal_code", "writes_call"),
        ('{"name": "lookup_order", "arguments": {}}', "nothing", "writes_call"),
        ("Shipping costs about 9 dollars.", "postal_code", "invents_value"),
        ("Shipping 750 g to Germany is possible.", "postal_code", "answers"),
        ("Hi! I can look up orders.", "nothing", "answers"),
    ],
)
def test_rules(reply: str, missing: str, label: str) -> None:
    assert rating(material(reply, missing))[0] == label


def _request(model: str, tools: tuple[SimTool, ...], text: str) -> SimRequest:
    return SimRequest(model=model, system="rubric", turns=(SimTurn("user", text),), tools=tools)


@pytest.mark.parametrize("model", sim.model_names())
def test_every_model_rates_a_judge_request_over_http(mock_server: str, model: str) -> None:
    client = openai.OpenAI(
        base_url=base_urls(mock_server)["openai-chat"], api_key="sk-test", max_retries=0, timeout=20
    )
    tool: Any = {"type": "function", "function": {"name": TOOL.name, "parameters": TOOL.parameters}}
    messages: Any = [
        {"role": "system", "content": "rubric"},
        {"role": "user", "content": material("Your postal code?")},
    ]
    choice: Any = {"type": "function", "function": {"name": "rate_reply"}}
    reply = client.chat.completions.create(model=model, messages=messages, tools=[tool], tool_choice=choice)
    (call,) = reply.choices[0].message.tool_calls or []
    function: Any = getattr(call, "function", None)
    assert function is not None and function.name == "rate_reply"
    assert json.loads(function.arguments)["label"] == "asks_for_missing"


def test_a_label_the_request_does_not_offer_is_never_sent() -> None:
    narrow = SimTool("rate_reply", "", {"type": "object", "properties": {"label": {"enum": ["answers"]}}})
    reply = rate_reply(_request("sim-careful", (narrow,), material("What is the postal code?")))
    assert reply is not None and json.loads(reply.calls[0].arguments_json)["label"] == "answers"


def test_other_requests_are_left_to_the_model() -> None:
    other = SimTool("rate_item", "Rate an item.", TOOL.parameters)
    assert rate_reply(_request("sim-careful", (other,), "Hello!")) is None
    assert rate_reply(_request("sim-careful", (TOOL, other), material("What is the postal code?"))) is None
    assert rate_reply(SimRequest(model="m", system="", turns=(), tools=(TOOL,))) is None
