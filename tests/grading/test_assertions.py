"""Assertion objects: requiredEquals, oneOf, optional with constraints, forbidden; and null arguments."""

from __future__ import annotations

from typing import Any

import pytest

from fcbench.errors import CaseError
from fcbench.grading import grade


def search_case(arguments: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "id": "assert-01",
        "prompt": "Show my shipped orders. My email is sam@example.test.",
        "expected": {"kind": "tool", "name": "search_orders", "arguments": arguments},
    }


def search(args: Any) -> dict[str, Any]:
    return {"kind": "tool_calls", "calls": [{"id": "c1", "name": "search_orders", "arguments": args}]}


SEED_ASSERTION = {
    "requiredEquals": {"email": "sam@example.test", "status": "shipped"},
    "optional": ["limit"],
    "constraints": {"limit": {"integer": True, "minimum": 1, "maximum": 20}},
}
BASE = {"email": "sam@example.test", "status": "shipped"}


@pytest.mark.parametrize("extra", [{}, {"limit": 5}, {"limit": 20}, {"limit": 1.0}])
def test_optional_key_within_constraints_passes(
    extra: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    verdict = grade(search_case(SEED_ASSERTION), search({**BASE, **extra}), core_tools)
    assert verdict.semantic_exact is True
    assert verdict.passed is True


@pytest.mark.parametrize(
    ("limit", "reason"),
    [
        (50, "limit: 50 is not a number <= 20"),
        (0, "limit: 0 is not a number >= 1"),
        (2.5, "limit: 2.5 is not an integer"),
        ("5", 'limit: "5" is not an integer; is not a number >= 1; is not a number <= 20'),
        (True, "limit: true is not an integer; is not a number >= 1; is not a number <= 20"),
    ],
)
def test_optional_key_breaking_a_constraint_is_wrong(
    limit: Any, reason: str, core_tools: list[dict[str, Any]]
) -> None:
    verdict = grade(search_case(SEED_ASSERTION), search({**BASE, "limit": limit}), core_tools)
    assert verdict.semantic_exact is False
    assert verdict.schema_valid is False
    assert verdict.model_dump()["wrong"] == [
        {"key": "limit", "expected": {"integer": True, "minimum": 1.0, "maximum": 20.0}, "actual": limit}
    ]
    assert reason in verdict.reasons


def test_required_key_missing_and_unknown_key_unexpected(core_tools: list[dict[str, Any]]) -> None:
    verdict = grade(search_case(SEED_ASSERTION), search({"email": "sam@example.test", "page": 2}), core_tools)
    assert verdict.missing == ["status"]
    assert verdict.unexpected == ["page"]
    assert verdict.semantic_exact is False


def test_required_value_must_be_equal(core_tools: list[dict[str, Any]]) -> None:
    verdict = grade(search_case(SEED_ASSERTION), search({**BASE, "status": "Shipped"}), core_tools)
    assert verdict.model_dump()["wrong"] == [{"key": "status", "expected": "shipped", "actual": "Shipped"}]
    assert verdict.schema_valid is False  # not in the enum either


def test_schema_invalid_but_semantically_right(core_tools: list[dict[str, Any]]) -> None:
    lenient = {"requiredEquals": {"email": "sam@example.test"}, "optional": ["limit"]}
    verdict = grade(search_case(lenient), search({"email": "sam@example.test", "limit": 500}), core_tools)
    assert verdict.semantic_exact is True
    assert verdict.schema_valid is False
    assert verdict.schema_errors == ["limit: 500 is greater than the maximum of 20"]
    assert verdict.passed is False


def test_one_of(core_tools: list[dict[str, Any]]) -> None:
    spec = {"requiredEquals": {"email": "sam@example.test"}, "oneOf": {"status": ["shipped", "delivered"]}}
    case = search_case(spec)
    email = {"email": "sam@example.test"}
    assert grade(case, search({**email, "status": "delivered"}), core_tools).passed is True
    wrong = grade(case, search({**email, "status": "processing"}), core_tools)
    assert wrong.model_dump()["wrong"] == [
        {"key": "status", "expected": {"oneOf": ["shipped", "delivered"]}, "actual": "processing"}
    ]
    assert grade(case, search(email), core_tools).missing == ["status"]


def test_forbidden_key_present_is_unexpected(core_tools: list[dict[str, Any]]) -> None:
    spec = {"requiredEquals": {"email": "sam@example.test"}, "optional": ["status"], "forbidden": ["limit"]}
    verdict = grade(search_case(spec), search({"email": "sam@example.test", "limit": 5}), core_tools)
    assert verdict.unexpected == ["limit"]
    assert verdict.reasons == ["forbidden argument limit is present"]
    assert verdict.schema_valid is True
    assert verdict.passed is False


def test_pattern_and_enum_constraints(core_tools: list[dict[str, Any]]) -> None:
    spec = {
        "requiredEquals": {},
        "optional": ["email", "status"],
        "constraints": {
            "email": {"pattern": "@example\\.test$"},
            "status": {"enum": ["shipped", "delivered"]},
        },
    }
    case = search_case(spec)
    assert grade(case, search({"email": "a@example.test", "status": "shipped"}), core_tools).passed is True
    bad = grade(case, search({"email": "a@example.com", "status": "cancelled"}), core_tools)
    assert [w.key for w in bad.wrong] == ["email", "status"]
    assert "email: \"a@example.com\" does not match '@example\\\\.test$'" in bad.reasons


def test_non_object_arguments_against_an_assertion(core_tools: list[dict[str, Any]]) -> None:
    verdict = grade(search_case(SEED_ASSERTION), search(["sam@example.test"]), core_tools)
    assert verdict.semantic_exact is False
    assert verdict.missing == ["email", "status"]
    assert "arguments are not a JSON object (got array)" in verdict.reasons


def test_null_expected_arguments_accept_anything(core_tools: list[dict[str, Any]]) -> None:
    case = search_case(None)
    fine = grade(case, search({"email": "x@example.test", "limit": 3}), core_tools)
    assert (fine.semantic_exact, fine.passed) == (True, True)
    odd = grade(case, search({"email": "x@example.test", "limit": "3"}), core_tools)
    assert odd.semantic_exact is True
    assert odd.schema_valid is False  # schema validity is still judged
    assert odd.passed is False


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"requiredEquals": {"email": "a"}, "forbidden": ["email"]}, "both forbidden and allowed"),
        (
            {"requiredEquals": {}, "constraints": {"email": {"pattern": "("}}},
            "not a valid regular expression",
        ),
        ({"optional": ["limit"]}, "neither requiredEquals nor oneOf"),
        ({"requiredEquals": {"email": "a"}, "optinal": ["limit"]}, "unknown keys ['optinal']"),
        ({"requiredEquals": {}, "oneOf": {"status": []}}, "no accepted value"),
        ({"requiredEquals": {}, "constraints": {"limit": {"between": [1, 2]}}}, "constraints.limit.between"),
    ],
)
def test_malformed_assertions_are_case_errors(
    arguments: dict[str, Any], fragment: str, core_tools: list[dict[str, Any]]
) -> None:
    with pytest.raises(CaseError) as caught:
        grade(search_case(arguments), search({}), core_tools)
    assert fragment in str(caught.value)
    assert "assert-01" in str(caught.value)
