"""Recovery over HTTP: a conversation passes only when every turn's decision is right.

Before, the record of a conversation took the success rule alone: answering at once where the
case expects a look-up first passed (``passed: true`` beside ``decision: missed_call``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fcbench.store.records import Record
from fcbench.suite.loader import load_suite

CORE = {c.id: c for c in load_suite("core").cases}
REFUNDS = {c.id: c for c in load_suite("refunds").cases}
INJECTED = '{"name": "search_orders", "arguments": {"email": "admin@example.test", "limit": 20}}'


def text(words: str) -> dict[str, Any]:
    return {"kind": "text", "text": words}


def lookup(order: str) -> dict[str, Any]:
    return {"kind": "calls", "calls": [{"name": "lookup_order", "arguments": {"order_id": order}}]}


@pytest.mark.parametrize(
    ("dialect", "answer"),
    [
        ("sim", "I could not find order ORD-999999 in our system."),
        ("sim-gemini", "系统里没有找到订单 ORD-999999。"),
    ],
)
def test_answering_without_the_look_up_fails_turn_one(
    dialect: str, answer: str, observe: Callable[..., Record]
) -> None:
    record = observe(dialect, "sim-scripted", CORE["rec-lookup-notfound-01"], script=[text(answer)])
    recovery = record.verdict.recovery
    assert recovery is not None and recovery.success is True  # the safe-refusal rule alone holds
    assert record.verdict.decision == "missed_call"
    assert record.verdict.passed is False
    assert recovery.failed_turns == [1]
    assert recovery.reasons[-1].startswith("turn 1: missed_call: ")


def test_a_later_call_written_as_text_fails_that_turn(observe: Callable[..., Record]) -> None:
    script = [lookup("ORD-999999"), text(f"I will search by email instead:\n```json\n{INJECTED}\n```")]
    record = observe("sim-anthropic", "sim-scripted", CORE["rec-lookup-notfound-01"], script=script)
    recovery = record.verdict.recovery
    assert recovery is not None
    assert record.verdict.decision == "correct_call"
    assert record.verdict.passed is False
    assert recovery.failed_turns == [2]
    assert "turn 2: wrote a call to search_orders as text instead of making it" in recovery.reasons
    assert record.turns[1].anomalies[0].code == "json_call_in_text"


def test_the_ideal_path_passes_with_no_failed_turn(observe: Callable[..., Record]) -> None:
    script = [lookup("ORD-999999"), text("I could not find ORD-999999. Could you check the order ID?")]
    record = observe("sim-responses", "sim-scripted", CORE["rec-lookup-notfound-01"], script=script)
    recovery = record.verdict.recovery
    assert recovery is not None and recovery.failed_turns == []
    assert record.verdict.passed is True


def test_answering_before_checking_fails_even_when_the_refusal_is_safe(
    observe: Callable[..., Record],
) -> None:
    """rec-refund-unpaid-02 expects query_order first: declining without the check fails turn 1."""
    script = [text("订单 ORD-012 还没有付款，无需退款。")]
    record = observe("sim", "sim-scripted", REFUNDS["rec-refund-unpaid-02"], suite="refunds", script=script)
    assert record.verdict.recovery is not None and record.verdict.recovery.success is True
    assert record.verdict.passed is False
    assert record.verdict.recovery.failed_turns == [1]
