"""Several expected calls: one-to-one pairing in any order or position by position."""

from __future__ import annotations

from typing import Any

import pytest

from fcbench.grading import grade


def calls(*pairs: tuple[str, Any]) -> dict[str, Any]:
    return {
        "kind": "tool_calls",
        "calls": [
            {"id": f"call_{i}", "name": name, "arguments": args} for i, (name, args) in enumerate(pairs)
        ],
    }


def lookup(order: str) -> tuple[str, dict[str, Any]]:
    return ("lookup_order", {"order_id": order})


def multi(order: str, *expected: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": f"multi-{order}",
        "prompt": "Several things at once.",
        "expected": {
            "kind": "tools",
            "order": order,
            "calls": [{"name": name, "arguments": args} for name, args in expected],
        },
    }


SEARCH = ("search_orders", {"email": "sam@example.test", "status": "shipped"})
A, B, C = lookup("ORD-100001"), lookup("ORD-100002"), lookup("ORD-100003")


@pytest.mark.parametrize("produced", [(A, B, C), (C, A, B), (B, C, A), (C, B, A)])
def test_any_order_pairs_same_named_calls_by_arguments(
    produced: tuple[tuple[str, Any], ...], core_tools: list[dict[str, Any]]
) -> None:
    verdict = grade(multi("any", A, B, C), calls(*produced), core_tools)
    assert verdict.decision == "correct_call"
    assert verdict.semantic_exact is True
    assert verdict.calls_scored == 3
    assert verdict.passed is True


def test_strict_order_compares_position_by_position(core_tools: list[dict[str, Any]]) -> None:
    verdict = grade(multi("strict", A, B), calls(B, A), core_tools)
    assert verdict.decision == "correct_call"  # the names line up, the arguments do not
    assert verdict.semantic_exact is False
    assert verdict.passed is False
    assert verdict.model_dump()["wrong"] == [
        {"key": "calls[0].order_id", "expected": "ORD-100001", "actual": "ORD-100002"},
        {"key": "calls[1].order_id", "expected": "ORD-100002", "actual": "ORD-100001"},
    ]
    assert grade(multi("strict", A, B), calls(A, B), core_tools).passed is True


def test_strict_order_with_swapped_tools_is_wrong_tool(core_tools: list[dict[str, Any]]) -> None:
    swapped = grade(multi("strict", A, SEARCH), calls(SEARCH, A), core_tools)
    assert swapped.decision == "wrong_tool"
    assert swapped.semantic_exact is None
    assert swapped.reasons == [
        "call 0 is search_orders; expected lookup_order (order is strict)",
        "call 1 is lookup_order; expected search_orders (order is strict)",
    ]
    relaxed = grade(multi("any", A, SEARCH), calls(SEARCH, A), core_tools)
    assert (relaxed.decision, relaxed.passed) == ("correct_call", True)


def test_fewer_calls_is_missed_call(core_tools: list[dict[str, Any]]) -> None:
    verdict = grade(multi("any", A, SEARCH), calls(SEARCH), core_tools)
    assert verdict.decision == "missed_call"
    assert verdict.semantic_exact is True  # the call that was made is right
    assert verdict.reasons[0] == "made 1 of 2 expected calls; not made: lookup_order"
    assert verdict.passed is False


def test_more_calls_is_extra_calls(core_tools: list[dict[str, Any]]) -> None:
    verdict = grade(multi("any", A, B), calls(B, C, A), core_tools)
    assert verdict.decision == "extra_calls"
    assert verdict.semantic_exact is True
    assert verdict.calls_scored == 2
    assert verdict.reasons[0] == "made 3 calls; expected 2; extra: lookup_order"


def test_wrong_name_in_any_order_is_wrong_tool(core_tools: list[dict[str, Any]]) -> None:
    quote = ("get_shipping_quote", {"country_code": "US", "postal_code": "02139", "weight_grams": 5})
    verdict = grade(multi("any", A, SEARCH), calls(quote, A), core_tools)
    assert verdict.decision == "wrong_tool"
    assert verdict.semantic_exact is True  # the lookup is paired and right
    assert verdict.reasons == ["call 0 is get_shipping_quote; expected search_orders"]


def test_keys_are_prefixed_with_the_actual_call_position(core_tools: list[dict[str, Any]]) -> None:
    bad_search = ("search_orders", {"email": "sam@example.test", "status": "delivered", "limit": 3})
    verdict = grade(multi("any", A, SEARCH), calls(A, bad_search), core_tools)
    assert verdict.unexpected == ["calls[1].limit"]
    assert verdict.model_dump()["wrong"] == [
        {"key": "calls[1].status", "expected": "shipped", "actual": "delivered"}
    ]


def test_many_calls_use_the_greedy_pairing_without_failing(core_tools: list[dict[str, Any]]) -> None:
    produced = [lookup(f"ORD-{n:06d}") for n in range(30)]
    verdict = grade(multi("any", lookup("ORD-000007"), lookup("ORD-000003")), calls(*produced), core_tools)
    assert verdict.decision == "extra_calls"
    assert verdict.semantic_exact is True
    assert verdict.calls_scored == 2


def test_schema_errors_name_the_call_when_there_are_several(core_tools: list[dict[str, Any]]) -> None:
    verdict = grade(multi("any", A, B), calls(A, ("lookup_order", {"order_id": "104821"})), core_tools)
    assert verdict.schema_valid is False
    assert verdict.schema_errors == [
        "call 1 (lookup_order): order_id: '104821' does not match '^ORD-[0-9]{6}$'"
    ]


def test_text_when_several_calls_expected(core_tools: list[dict[str, Any]]) -> None:
    case = multi("any", A, B)
    assert grade(case, {"kind": "text", "text": "Done."}, core_tools).decision == "missed_call"
    assert (
        grade(case, {"kind": "text", "text": "Which one?"}, core_tools).decision
        == "unnecessary_clarification"
    )
