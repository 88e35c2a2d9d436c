"""Every decision value of the strict profile, with its pass/fail consequence."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fcbench.grading import DECISIONS, grade


def calls(*pairs: tuple[str, Any]) -> dict[str, Any]:
    """A tool_calls outcome dict with one call per ``(name, arguments)`` pair."""
    return {
        "kind": "tool_calls",
        "calls": [
            {"id": f"call_{i}", "name": name, "arguments": args, "raw_arguments": json.dumps(args)}
            for i, (name, args) in enumerate(pairs)
        ],
    }


def text(body: str) -> dict[str, Any]:
    return {"kind": "text", "text": body}


LOOKUP = ("lookup_order", {"order_id": "ORD-104821"})
SEARCH = ("search_orders", {"email": "sam@example.test"})
TWO_LOOKUPS: dict[str, Any] = {
    "id": "multi-01",
    "prompt": "Where are ORD-104821 and ORD-104822?",
    "expected": {
        "kind": "tools",
        "calls": [
            {"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}},
            {"name": "lookup_order", "arguments": {"order_id": "ORD-104822"}},
        ],
    },
}

# (case id or inline case, outcome, expected decision, expected passed)
TABLE: list[tuple[str | dict[str, Any], dict[str, Any], str, bool]] = [
    ("select-lookup-01", calls(LOOKUP), "correct_call", True),
    ("conflict-01", calls(("search_orders", {"email": "sam@example.test"})), "wrong_tool", False),
    ("abstain-01", calls(LOOKUP), "unexpected_call", False),
    ("select-lookup-01", text("Your order is on its way."), "missed_call", False),
    ("select-lookup-01", calls(LOOKUP, SEARCH), "extra_calls", False),
    ("abstain-01", text("I can look up orders, search them and quote shipping."), "correct_abstention", True),
    ("clarify-01", text("What is the destination postal code?"), "correct_clarification", True),
    (
        "select-lookup-01",
        text("Which order would you like me to look up?"),
        "unnecessary_clarification",
        False,
    ),
    (
        "clarify-01",
        calls(
            (
                "get_shipping_quote",
                {"country_code": "DE", "postal_code": "10115", "weight_grams": 750, "service": "express"},
            )
        ),
        "guessed_missing",
        False,
    ),
    ("unsupported-01", {"kind": "refusal", "text": "I can't cancel orders."}, "refusal", True),
    (
        "select-lookup-01",
        {"kind": "provider_error", "code": "rate_limited", "message": "slow down"},
        "not_scored",
        False,
    ),
    (TWO_LOOKUPS, calls(LOOKUP), "missed_call", False),
    (TWO_LOOKUPS, calls(SEARCH), "wrong_tool", False),
    ("clarify-01", text("Which country is it going to?"), "unnecessary_clarification", False),
    ("clarify-01", text("What is your email address?"), "wrong_clarification", False),
    (
        "select-lookup-01",
        text('{"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}'),
        "call_in_text",
        False,
    ),
]


@pytest.mark.parametrize(("case", "outcome", "decision", "passed"), TABLE)
def test_decision_table(
    case: str | dict[str, Any],
    outcome: dict[str, Any],
    decision: str,
    passed: bool,
    seed: dict[str, dict[str, Any]],
    core_tools: list[dict[str, Any]],
) -> None:
    verdict = grade(seed[case] if isinstance(case, str) else case, outcome, core_tools)
    assert verdict.decision == decision
    assert verdict.passed is passed


def test_table_covers_every_decision() -> None:
    assert {row[2] for row in TABLE} == set(DECISIONS)


def test_correct_call_details(seed: dict[str, Any], core_tools: list[dict[str, Any]]) -> None:
    verdict = grade(seed["select-lookup-01"], calls(LOOKUP), core_tools)
    assert verdict.schema_valid is True
    assert verdict.semantic_exact is True
    assert verdict.calls_scored == 1
    assert (verdict.missing, verdict.wrong, verdict.unexpected, verdict.schema_errors) == ([], [], [], [])
    assert verdict.reasons == []


def test_wrong_tool_is_not_graded_semantically(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    verdict = grade(seed["conflict-01"], calls(SEARCH), core_tools)
    assert verdict.semantic_exact is None
    assert verdict.schema_valid is True
    assert verdict.calls_scored == 0
    assert verdict.reasons == ["called search_orders; expected lookup_order"]


def test_extra_calls_still_grades_the_matching_call(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    good = grade(seed["select-lookup-01"], calls(SEARCH, LOOKUP), core_tools)
    assert (good.decision, good.semantic_exact, good.calls_scored) == ("extra_calls", True, 1)
    bad = grade(
        seed["select-lookup-01"], calls(("lookup_order", {"order_id": "ORD-999999"}), SEARCH), core_tools
    )
    assert bad.decision == "extra_calls"
    assert bad.semantic_exact is False
    assert [w.model_dump() for w in bad.wrong] == [
        {"key": "order_id", "expected": "ORD-104821", "actual": "ORD-999999"}
    ]
    none_matching = grade(seed["select-lookup-01"], calls(SEARCH, SEARCH), core_tools)
    assert (none_matching.decision, none_matching.semantic_exact) == ("wrong_tool", None)


def test_text_when_text_expected_is_abstention_even_as_a_question(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    verdict = grade(seed["abstain-01"], text("Hi! Do you want to track an order?"), core_tools)
    assert verdict.decision == "correct_abstention"
    assert verdict.passed is True
    assert verdict.schema_valid is None and verdict.semantic_exact is None


def test_unexpected_call_is_still_schema_checked(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    verdict = grade(seed["unsupported-01"], calls(("search_orders", {"email": 5})), core_tools)
    assert verdict.decision == "unexpected_call"
    assert verdict.schema_valid is False
    assert verdict.schema_errors == ["email: 5 is not of type 'string'"]
    assert verdict.semantic_exact is None


def test_clarification_that_names_none_of_the_missing_values_is_wrong(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    vague = grade(seed["clarify-01"], text("Could you give me a few more details?"), core_tools)
    assert (vague.decision, vague.passed) == ("wrong_clarification", False)
    assert vague.reasons == ["the question names none of the parameters; missing: postal_code"]
    again = grade(seed["clarify-01"], text("Which country is it going to?"), core_tools)
    assert again.reasons == [
        "asked for country_code, which the user gave or the call does not need; missing: postal_code"
    ]
    both = grade(seed["clarify-01"], text("What are the country and the postal code?"), core_tools)
    assert (both.decision, both.passed) == ("correct_clarification", True)
    polite = grade(seed["clarify-01"], text("Please provide the postal code in Germany."), core_tools)
    assert (polite.decision, polite.reasons) == ("correct_clarification", [])


def test_clarification_expected_but_plain_text_is_missed_call(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    verdict = grade(seed["clarify-01"], text("Express shipping to Germany costs 20 EUR."), core_tools)
    assert verdict.decision == "missed_call"
    assert verdict.passed is False
    assert verdict.reasons == ["answered without asking for postal_code"]


@pytest.mark.parametrize("postal", [None, "", "  "])
def test_call_without_a_value_for_the_missing_argument_is_unexpected_call(
    postal: str | None, seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    args: dict[str, Any] = {"country_code": "DE", "weight_grams": 750}
    if postal is not None:
        args["postal_code"] = postal
    verdict = grade(seed["clarify-01"], calls(("get_shipping_quote", args)), core_tools)
    assert verdict.decision == "unexpected_call"
    assert verdict.passed is False


def test_guessed_missing_names_the_guess(seed: dict[str, Any], core_tools: list[dict[str, Any]]) -> None:
    args = {"country_code": "DE", "postal_code": "10115", "weight_grams": 750}
    verdict = grade(seed["clarify-01"], calls(("get_shipping_quote", args)), core_tools)
    assert verdict.decision == "guessed_missing"
    assert verdict.reasons == ['call 0 (get_shipping_quote) guessed postal_code = "10115"']
    assert verdict.schema_valid is True


def test_clarification_target_tool_limits_guess_detection(core_tools: list[dict[str, Any]]) -> None:
    case = {
        "id": "clarify-named",
        "prompt": "Look up my order please, email sam@example.test",
        "expected": {"kind": "clarification", "missing": ["order_id"], "name": "lookup_order"},
    }
    other_tool = grade(case, calls(("search_orders", {"email": "sam@example.test"})), core_tools)
    assert other_tool.decision == "unexpected_call"
    guessed = grade(case, calls(("lookup_order", {"order_id": "ORD-000001"})), core_tools)
    assert guessed.decision == "guessed_missing"


def test_refusal_fails_when_a_call_was_expected(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    verdict = grade(seed["select-lookup-01"], {"kind": "refusal", "text": None}, core_tools)
    assert (verdict.decision, verdict.passed) == ("refusal", False)
    assert verdict.reasons == ["refused; expected tool"]


def test_provider_error_is_not_scored(seed: dict[str, Any], core_tools: list[dict[str, Any]]) -> None:
    outcome = {"kind": "provider_error", "code": "schema_rejected", "message": "bad schema", "status": 400}
    verdict = grade(seed["types-01"], outcome, core_tools, anomalies=["retried"])
    assert verdict.decision == "not_scored"
    assert verdict.passed is False
    assert verdict.scored is False
    assert verdict.schema_valid is None and verdict.semantic_exact is None
    assert verdict.anomalies == ["retried"]
    assert verdict.reasons == ["not scored: provider error schema_rejected (HTTP 400): bad schema"]


def test_empty_call_list_counts_as_text(seed: dict[str, Any], core_tools: list[dict[str, Any]]) -> None:
    outcome = {"kind": "tool_calls", "calls": [], "text": "Which order?"}
    assert grade(seed["select-lookup-01"], outcome, core_tools).decision == "unnecessary_clarification"
    assert grade(seed["abstain-01"], outcome, core_tools).decision == "correct_abstention"
