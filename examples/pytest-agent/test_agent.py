"""Tests of the shop assistant against fcbench's mock provider and simulated models."""

from __future__ import annotations

import pytest
from agent import TOOLS, ask
from openai import OpenAI

from fcbench.pytest_plugin import MockProvider, assert_asked_for, assert_called, assert_no_call, outcome_of

DIALECT = "openai-chat"


@pytest.fixture
def client(fcbench_mock: MockProvider) -> OpenAI:
    return OpenAI(
        base_url=fcbench_mock.base_url(DIALECT),
        api_key="test",
        default_headers=dict(fcbench_mock.headers),
        max_retries=0,
    )


def test_looks_up_the_order(client: OpenAI, fcbench_mock: MockProvider) -> None:
    reply = ask(client, fcbench_mock.model, "Where is my order ORD-104821?")
    assert_called(outcome_of(reply, DIALECT), "lookup_order", tools=TOOLS, order_id="ORD-104821")


def test_answers_a_greeting_without_a_call(client: OpenAI, fcbench_mock: MockProvider) -> None:
    reply = ask(client, fcbench_mock.model, "Hi there, thanks for the help yesterday!")
    assert_no_call(outcome_of(reply, DIALECT), tools=TOOLS)


def test_asks_for_the_missing_postal_code(client: OpenAI, fcbench_mock: MockProvider) -> None:
    question = "How much to ship 750 grams to Germany?"
    reply = ask(client, fcbench_mock.model, question)
    assert_asked_for(outcome_of(reply, DIALECT), "postal_code", tools=TOOLS, prompt=question)


@pytest.mark.fcbench(faults="rate_limit")
def test_a_busy_provider_gives_no_reply(client: OpenAI, fcbench_mock: MockProvider) -> None:
    assert ask(client, fcbench_mock.model, "Where is my order ORD-104821?") is None
