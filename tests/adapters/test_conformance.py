"""Conformance of every registered dialect against the mock provider over real HTTP.

Parametrised over the adapter registry: a new dialect (adapter + registry line + mock module) is
covered by adding it, with no change here. The mock's ``sim-scripted`` model is told exactly what
to answer, so each scenario checks the adapter's request building, the transport and the
adapter's parsing end to end: single call, parallel calls, text, refusal, a tool-result round
trip (and a result whose id matches no call), and streaming.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from fcbench import adapters
from fcbench.adapters.base import ParsedTurn, RequestOptions, ToolChoice
from fcbench.contract import Message, ToolResultMessage, UserMessage
from fcbench.endpoints import Endpoint
from fcbench.mock.server import base_urls
from fcbench.suite.loader import load_suite
from fcbench.transport import RetryPolicy, Transport

DIALECTS = adapters.dialects()
TOOLS = load_suite("core").tool_sets["core"]
SYSTEM = "You are a support operations assistant."
LOOKUP = {"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}
SEARCH = {"name": "search_orders", "arguments": {"email": "sam@example.test", "status": "shipped"}}


def _exchange(
    root: str, dialect: str, messages: list[Message], reply: dict[str, Any], *, stream: bool = False
) -> ParsedTurn:
    endpoint = Endpoint(
        name=f"conformance-{dialect}",
        dialect=dialect,
        base_url=base_urls(root)[dialect],
        key_required=False,
        local=True,
    )
    adapter = adapters.get(dialect)
    built = adapter.build_request(
        SYSTEM, messages, TOOLS, ToolChoice(), RequestOptions(model="sim-scripted", stream=stream)
    )

    async def go() -> ParsedTurn:
        transport = Transport(timeout_s=20, retry=RetryPolicy(max_retries=0))
        try:
            exchange = await transport.exchange(
                endpoint,
                adapter,
                built,
                api_key="conformance-key",
                offered_tools=[t.name for t in TOOLS],
                headers={"X-Fcbench-Sim-Reply": json.dumps(reply)},
            )
        finally:
            await transport.aclose()
        return exchange.turn

    return asyncio.run(go())


def _calls(turn: ParsedTurn) -> list[tuple[str, Any]]:
    outcome = turn.outcome.model_dump()
    assert outcome["kind"] == "tool_calls", outcome
    return [(c["name"], c["arguments"]) for c in outcome["calls"]]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_single_and_parallel_calls(mock_server: str, dialect: str, stream: bool) -> None:
    prompt: list[Message] = [UserMessage(content="Where is ORD-104821?")]
    single = _exchange(mock_server, dialect, prompt, {"kind": "calls", "calls": [LOOKUP]}, stream=stream)
    assert _calls(single) == [("lookup_order", {"order_id": "ORD-104821"})]
    assert single.outcome.model_dump()["calls"][0]["id"]
    assert not [a for a in single.anomalies if a.code != "finish_reason_mismatch"], single.anomalies
    both = _exchange(
        mock_server, dialect, prompt, {"kind": "calls", "calls": [LOOKUP, SEARCH]}, stream=stream
    )
    assert _calls(both) == [(LOOKUP["name"], LOOKUP["arguments"]), (SEARCH["name"], SEARCH["arguments"])]
    ids = [c["id"] for c in both.outcome.model_dump()["calls"]]
    assert len(set(ids)) == 2


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_text_and_refusal(mock_server: str, dialect: str, stream: bool) -> None:
    prompt: list[Message] = [UserMessage(content="Hello!")]
    text = _exchange(
        mock_server, dialect, prompt, {"kind": "text", "text": "Hi, how can I help?"}, stream=stream
    )
    assert text.outcome.model_dump() == {"kind": "text", "text": "Hi, how can I help?"}
    refusal = _exchange(
        mock_server, dialect, prompt, {"kind": "refusal", "text": "I can't help."}, stream=stream
    )
    assert refusal.outcome.kind == "refusal"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_tool_result_round_trip_matches_ids(mock_server: str, dialect: str) -> None:
    prompt: list[Message] = [UserMessage(content="Where are ORD-104821 and my shipped orders?")]
    first = _exchange(mock_server, dialect, prompt, {"kind": "calls", "calls": [LOOKUP, SEARCH]})
    assert first.assistant is not None
    calls = first.assistant.calls
    keys = (first.assistant.provider_state or {}).get("gemini", {}).get("call_keys")
    call_ids = [c.id or (keys[i] if keys else None) for i, c in enumerate(calls)]
    results = [
        ToolResultMessage(call_id=call_ids[1], name=calls[1].name, content={"ok": True, "result": []}),
        ToolResultMessage(
            call_id=call_ids[0], name=calls[0].name, content={"ok": True, "result": {"status": "shipped"}}
        ),
    ]  # answered in reverse order: matching is by id, never by position
    history: list[Message] = [*prompt, first.assistant, *results]
    second = _exchange(mock_server, dialect, history, {"kind": "text", "text": "It has shipped."})
    assert second.outcome.model_dump() == {"kind": "text", "text": "It has shipped."}
    wire = adapters.get(dialect).tool_result_messages(calls, results)
    assert json.dumps(wire).count("shipped") == 1


@pytest.mark.parametrize("dialect", [d for d in DIALECTS if d != "gemini"])
def test_result_for_an_unknown_call_id_is_rejected(mock_server: str, dialect: str) -> None:
    prompt: list[Message] = [UserMessage(content="Where is ORD-104821?")]
    first = _exchange(mock_server, dialect, prompt, {"kind": "calls", "calls": [LOOKUP]})
    assert first.assistant is not None
    stray = ToolResultMessage(call_id="call_does_not_exist", name="lookup_order", content={"ok": True})
    second = _exchange(mock_server, dialect, [*prompt, first.assistant, stray], {"kind": "text", "text": "x"})
    outcome = second.outcome.model_dump()
    assert outcome["kind"] == "provider_error" and outcome["status"] == 400, outcome
