"""A forced request answered with text is ``tool_choice_ignored`` in every dialect, over real HTTP.

The kernel (:func:`fcbench.run.observe.send_turn`) decides it once for all dialects from the
requested tool choice; the mock's ``sim-scripted`` model says what the ``X-Fcbench-Sim-Reply``
header tells it, whatever the tool choice.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from mock_observe import mock_context

from fcbench.endpoints import BUILTIN_ENDPOINTS
from fcbench.mock.scripted import REPLY_HEADER
from fcbench.run.observe import TurnRequest, observe_one_turn
from fcbench.run.plan import Planned, Target
from fcbench.store.records import Record
from fcbench.suite.loader import load_suite

SUITE = load_suite("core")
CASE = next(c for c in SUITE.cases if c.id == "select-lookup-01")
ENDPOINTS = {
    "openai-chat": "sim",
    "openai-responses": "sim-responses",
    "anthropic-messages": "sim-anthropic",
    "gemini": "sim-gemini",
}
TEXT = {"kind": "text", "text": "Your order ORD-104821 is on its way."}
LOOKUP = {"kind": "calls", "calls": [{"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}]}
SEARCH = {"kind": "calls", "calls": [{"name": "search_orders", "arguments": {"email": "sam@example.test"}}]}

Observe = Callable[..., Record]


@pytest.fixture
def observe_forced(mock_server: str) -> Observe:
    """``observe_forced(dialect, reply, tool_choice, stream=False) -> Record`` of ``select-lookup-01``."""

    def run(dialect: str, reply: dict[str, Any], tool_choice: str, stream: bool = False) -> Record:
        endpoint = ENDPOINTS[dialect]

        async def go() -> Record:
            ctx = mock_context(SUITE, endpoint, lambda planned, turn: {REPLY_HEADER: json.dumps(reply)})
            target = Target(BUILTIN_ENDPOINTS[endpoint].resolved(mock_server), "sim-scripted")
            planned = Planned(seq=0, target=target, case=CASE, repeat=0, mode="forced")
            request = TurnRequest(tools=SUITE.tools_for(CASE), tool_choice=tool_choice, stream=stream)
            try:
                return (await observe_one_turn(ctx, planned, request))()
            finally:
                await ctx.transport.aclose()

        return asyncio.run(go())

    return run


def ignored(record: Record) -> list[str]:
    return [a.detail for a in record.anomalies if a.code == "tool_choice_ignored"]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("dialect", sorted(ENDPOINTS))
def test_forced_request_answered_with_text_is_tool_choice_ignored(
    dialect: str, stream: bool, observe_forced: Observe
) -> None:
    record = observe_forced(dialect, TEXT, "required", stream=stream)
    assert record.outcome.kind == "text"
    assert ignored(record) == ["tool choice 'required' answered with text and no call"]
    assert record.verdict.anomalies.count("tool_choice_ignored") == 1
    assert (record.verdict.decision, record.verdict.passed) == ("missed_call", False)


@pytest.mark.parametrize("dialect", sorted(ENDPOINTS))
def test_named_tool_answered_with_text_or_another_tool(dialect: str, observe_forced: Observe) -> None:
    assert ignored(observe_forced(dialect, TEXT, "tool:lookup_order")) == [
        "tool choice 'lookup_order' answered with text and no call"
    ]
    assert ignored(observe_forced(dialect, SEARCH, "tool:lookup_order")) == [
        "tool choice 'lookup_order' answered with calls of search_orders"
    ]
    assert ignored(observe_forced(dialect, LOOKUP, "tool:lookup_order")) == []


@pytest.mark.parametrize("dialect", sorted(ENDPOINTS))
def test_honoured_choices_carry_no_anomaly(dialect: str, observe_forced: Observe) -> None:
    assert ignored(observe_forced(dialect, LOOKUP, "required")) == []
    assert ignored(observe_forced(dialect, TEXT, "auto")) == []
    assert ignored(observe_forced(dialect, LOOKUP, "auto")) == []
    assert ignored(observe_forced(dialect, TEXT, "none")) == []


@pytest.mark.parametrize("dialect", sorted(ENDPOINTS))
def test_a_call_when_tool_choice_none_is_tool_choice_ignored(dialect: str, observe_forced: Observe) -> None:
    record = observe_forced(dialect, LOOKUP, "none")
    assert record.outcome.kind == "tool_calls"
    assert ignored(record) == ["tool choice 'none' answered with calls of lookup_order"]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("dialect", sorted(ENDPOINTS))
def test_a_forced_call_written_as_text_is_both_anomalies_and_call_in_text(
    dialect: str, stream: bool, observe_forced: Observe
) -> None:
    written = '```json\n{"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}\n```'
    record = observe_forced(dialect, {"kind": "text", "text": written}, "required", stream=stream)
    codes = [a.code for a in record.anomalies]
    assert "json_call_in_text" in codes and "tool_choice_ignored" in codes
    assert (record.verdict.decision, record.verdict.passed) == ("call_in_text", False)
