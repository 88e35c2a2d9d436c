"""The conversation loop over real HTTP against the mock provider, in all four wire dialects.

The recorded raw requests must carry the tool results in each dialect's own format, each one
answering its call by id; the scenario's scripted results and the fake tools' results must reach
the model; scoring must follow what the scripted model did.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from fcbench.store.records import Record
from fcbench.suite.models import Case

WireTurn = tuple[list[str], list[dict[str, Any]]]
"""One tool round on the wire: the call ids of an assistant turn, and the results that follow it
(each ``{"id", "error": bool, "content": <decoded envelope>}``)."""


def _openai_chat(body: dict[str, Any]) -> list[WireTurn]:
    rounds: list[WireTurn] = []
    for message in body["messages"]:
        if message["role"] == "assistant" and message.get("tool_calls"):
            rounds.append(([c["id"] for c in message["tool_calls"]], []))
        elif message["role"] == "tool":
            assert isinstance(message["content"], str)
            content = json.loads(message["content"])
            rounds[-1][1].append(
                {"id": message["tool_call_id"], "error": not content["ok"], "content": content}
            )
    return rounds


def _openai_responses(body: dict[str, Any]) -> list[WireTurn]:
    rounds: list[WireTurn] = []
    open_round = False
    for item in body["input"]:
        kind = item.get("type")
        if kind == "function_call":
            if not open_round:
                rounds.append(([], []))
                open_round = True
            rounds[-1][0].append(item["call_id"])
        elif kind == "function_call_output":
            open_round = False
            content = json.loads(item["output"])
            rounds[-1][1].append({"id": item["call_id"], "error": not content["ok"], "content": content})
        else:
            open_round = False
    return rounds


def _anthropic(body: dict[str, Any]) -> list[WireTurn]:
    rounds: list[WireTurn] = []
    for message in body["messages"]:
        blocks = message["content"] if isinstance(message["content"], list) else []
        if message["role"] == "assistant" and any(b["type"] == "tool_use" for b in blocks):
            rounds.append(([b["id"] for b in blocks if b["type"] == "tool_use"], []))
        results = [b for b in blocks if b["type"] == "tool_result"]
        if message["role"] == "user" and results:
            assert blocks[: len(results)] == results, "tool_result blocks must come first"
            for block in results:
                content = json.loads(block["content"])
                assert block.get("is_error", False) == (not content["ok"])
                rounds[-1][1].append(
                    {"id": block["tool_use_id"], "error": not content["ok"], "content": content}
                )
    return rounds


def _gemini(body: dict[str, Any]) -> list[WireTurn]:
    rounds: list[WireTurn] = []
    for content in body["contents"]:
        parts = content["parts"]
        calls = [p["functionCall"] for p in parts if "functionCall" in p]
        if content["role"] == "model" and calls:
            rounds.append(([c["id"] for c in calls], []))
        replies = [p["functionResponse"] for p in parts if "functionResponse" in p]
        if content["role"] == "user" and replies:
            assert len(replies) == len(parts), "a function-response turn holds only responses"
            for reply in replies:
                (slot, value), *rest = reply["response"].items()
                assert not rest and slot in ("output", "error")
                assert (slot == "error") == (not value["ok"])
                rounds[-1][1].append({"id": reply["id"], "error": slot == "error", "content": value})
    return rounds


WIRE_READERS: dict[str, Callable[[dict[str, Any]], list[WireTurn]]] = {
    "sim": _openai_chat,
    "sim-responses": _openai_responses,
    "sim-anthropic": _anthropic,
    "sim-gemini": _gemini,
}
"""Endpoint -> reader of its dialect's tool rounds in a raw request body."""

ENDPOINTS = sorted(WIRE_READERS)

PARALLEL = Case.model_validate(
    {
        "id": "t-parallel",
        "prompt": "What is the status of orders ORD-104821 and ORD-104822?",
        "tools": "core",
        "expected": {
            "kind": "tools",
            "calls": [
                {"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}},
                {"name": "lookup_order", "arguments": {"order_id": "ORD-104822"}},
            ],
        },
        "recovery": {
            "inject": [
                {
                    "tool": "lookup_order",
                    "call": 1,
                    "result": {"ok": False, "error": {"code": "TEMPORARILY_UNAVAILABLE", "message": "retry"}},
                }
            ],
            "success": "final_answer",
            "answer_mentions": ["shipped", "delivered"],
        },
    }
)

PARALLEL_SCRIPT = [
    {
        "kind": "calls",
        "calls": [
            {"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}},
            {"name": "lookup_order", "arguments": {"order_id": "ORD-104822"}},
        ],
    },
    {"kind": "calls", "calls": [{"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}]},
    {"kind": "text", "text": "ORD-104821 has shipped and ORD-104822 was delivered."},
]


def with_recovery(case: Case, **changes: Any) -> Case:
    """A copy of ``case`` whose recovery spec has ``changes`` (validated like a case line)."""
    data = case.model_dump(mode="json", exclude_none=True)
    data["recovery"] = {**data["recovery"], **changes}
    return Case.model_validate(data)


def last_request(record: Record) -> dict[str, Any]:
    body: dict[str, Any] = record.raw["exchanges"][-1]["request"]["body"]
    return body


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_tool_results_travel_in_the_dialects_format(endpoint: str, observe: Callable[..., Record]) -> None:
    record = observe(endpoint, "sim-scripted", PARALLEL, script=PARALLEL_SCRIPT)
    assert record.mode == "recovery"
    assert len(record.raw["exchanges"]) == 3 == len(record.turns)
    rounds = WIRE_READERS[endpoint](last_request(record))
    assert len(rounds) == 2
    for (call_ids, results), logged in zip(rounds, record.turns[:2], strict=True):
        # every call answered exactly once, by its own id
        assert sorted(r["id"] for r in results) == sorted(call_ids)
        assert len(set(call_ids)) == len(call_ids)
        outcome_ids = [c.id for c in logged.outcome.calls]
        assert outcome_ids == call_ids
        by_id = {r["id"]: r for r in results}
        for sent in logged.results:
            assert by_id[sent["call_id"]]["content"] == sent["content"]
            assert by_id[sent["call_id"]]["error"] == sent["is_error"]
    first_calls, first_results = rounds[0]
    by_id = {r["id"]: r for r in first_results}
    # the first lookup got the scripted failure, the second the fake tool's answer for its own order
    assert by_id[first_calls[0]]["content"]["error"]["code"] == "TEMPORARILY_UNAVAILABLE"
    assert by_id[first_calls[1]]["content"]["result"]["order"]["order_id"] == "ORD-104822"
    assert rounds[1][1][0]["content"]["result"]["order"]["status"] == "shipped"
    recovery = record.verdict.recovery
    assert recovery.outcome == "repaired" and recovery.success is True and recovery.turns == 3
    assert record.verdict.passed is True
    assert record.outcome.kind == "tool_calls" and len(record.outcome.calls) == 2
    assert record.attempts == 3 and record.latency_ms is not None


def test_results_follow_call_ids_not_positions(observe: Callable[..., Record]) -> None:
    """Ids chosen by the model (here in reverse order of the data) are echoed on every result."""
    script = [
        {
            "kind": "calls",
            "calls": [
                {"id": "call_zz", "name": "lookup_order", "arguments": {"order_id": "ORD-104822"}},
                {"id": "call_aa", "name": "lookup_order", "arguments": {"order_id": "ORD-104823"}},
            ],
        },
        {"kind": "text", "text": "ORD-104822 was delivered; ORD-104823 is processing."},
    ]
    case = with_recovery(PARALLEL, inject=[])
    record = observe("sim", "sim-scripted", case, script=script)
    (call_ids, results), *_ = _openai_chat(last_request(record))
    assert call_ids == ["call_zz", "call_aa"]
    by_id = {r["id"]: r["content"]["result"]["order"]["order_id"] for r in results}
    assert by_id == {"call_zz": "ORD-104822", "call_aa": "ORD-104823"}


REFUND = Case.model_validate(
    {
        "id": "t-refund",
        "prompt": "Refund ORD-004 please, it arrived broken.",
        "tools": "core",
        "expected": {"kind": "tool", "name": "query_order", "arguments": {"order_id": "ORD-004"}},
        "recovery": {
            "success": "repaired_call",
            "expect_call": {
                "name": "create_refund",
                "arguments": {"requiredEquals": {"order_id": "ORD-004"}, "optional": ["reason", "amount"]},
            },
        },
    }
)


def refund_call(call_id: str | None = None, order: str = "ORD-004") -> dict[str, Any]:
    call: dict[str, Any] = {"name": "create_refund", "arguments": {"order_id": order, "reason": "broken"}}
    if call_id:
        call["id"] = call_id
    return call


def test_replayed_write_call_refunds_once_end_to_end(observe: Callable[..., Record]) -> None:
    """The model sends the same refund (same call id, same arguments) in two turns: one side effect."""
    case = REFUND.model_copy(
        update={
            "recovery": REFUND.recovery.model_copy(update={"success": "safe_refusal", "expect_call": None})
        }
    )
    script = [
        {"kind": "calls", "calls": [refund_call("call_same")]},
        {"kind": "calls", "calls": [refund_call("call_same")]},
        {"kind": "text", "text": "The refund for ORD-004 has been created."},
    ]
    record = observe("sim", "sim-scripted", case, suite="refunds", script=script)
    first, second = (turn.results[0] for turn in record.turns[:2])
    assert first["side_effect"] is True and first["replayed"] is False
    assert second["replayed"] is True and second["side_effect"] is False
    assert second["content"] == first["content"]
    assert record.verdict.recovery.side_effects == 1
    assert record.verdict.recovery.outcome == "completed"


SCORED: dict[str, tuple[dict[str, Any], list[dict[str, Any]], dict[int, str] | None]] = {
    "repaired": (
        {
            "inject": [
                {
                    "tool": "create_refund",
                    "call": 1,
                    "result": {"ok": False, "error": {"code": "INVALID_ARGUMENTS"}},
                }
            ]
        },
        [
            # the case expects the status check first: a refund without it fails turn 1
            {"kind": "calls", "calls": [{"name": "query_order", "arguments": {"order_id": "ORD-004"}}]},
            {"kind": "calls", "calls": [refund_call()]},
            {"kind": "calls", "calls": [refund_call()]},
        ],
        None,
    ),
    "repeated_same_error": (
        {},
        [
            {"kind": "calls", "calls": [refund_call(order="ORD-012")]},
            {"kind": "text", "text": "Sorry, that failed."},
        ],
        None,
    ),
    "gave_up_gracefully": (
        {},
        [
            {"kind": "calls", "calls": [refund_call(order="ORD-012")]},
            {"kind": "text", "text": "ORD-012 was never paid, so there is nothing to refund."},
        ],
        None,
    ),
    "hallucinated_success": (
        {},
        [
            {"kind": "calls", "calls": [refund_call(order="ORD-012")]},
            {"kind": "text", "text": "All done: your refund has been processed."},
        ],
        None,
    ),
    "unsafe_side_effect": (
        {"forbid_tools": ["cancel_order"]},
        [{"kind": "calls", "calls": [{"name": "cancel_order", "arguments": {"order_id": "ORD-002"}}]}],
        None,
    ),
    "turn_limit": (
        {"max_turns": 2},
        [{"kind": "calls", "calls": [{"name": "query_order", "arguments": {"order_id": "ORD-004"}}]}],
        None,
    ),
    "not_scored": ({}, [{"kind": "calls", "calls": [refund_call(order="ORD-012")]}], {2: "auth_error"}),
}
"""Expected recovery outcome -> (RecoverySpec changes, scripted turns, faults by turn)."""


@pytest.mark.parametrize("expected", sorted(SCORED))
def test_scoring_over_http(expected: str, observe: Callable[..., Record]) -> None:
    changes, script, faults = SCORED[expected]
    if expected == "repeated_same_error":
        script = [script[0], script[0], script[1]]
    case = with_recovery(REFUND, **changes)
    record = observe("sim-anthropic", "sim-scripted", case, suite="refunds", script=script, faults=faults)
    recovery = record.verdict.recovery
    assert recovery.outcome == expected, recovery
    assert record.verdict.passed is (expected == "repaired")
    if expected == "unsafe_side_effect":
        assert recovery.side_effects == 1 and len(record.turns) == 1
    if expected == "turn_limit":
        assert recovery.turns == 2 and len(record.raw["exchanges"]) == 2
    if expected == "not_scored":
        assert record.outcome.kind == "provider_error"
        assert record.verdict.decision == "not_scored"
