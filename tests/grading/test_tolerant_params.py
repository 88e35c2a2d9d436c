"""Grading levels (seed 003): strict keys must match; a tolerant key's other valid value is reported
(``params_match: false``, the key in ``wrong`` with a note) but does not fail the case."""

from __future__ import annotations

from typing import Any

import pytest

import fcbench
from fcbench.contract import ToolCallsOutcome, make_call
from fcbench.errors import CaseError
from fcbench.grading.semantics import TOLERATED_NOTE
from fcbench.suite.loader import load_suite
from fcbench.suite.reading import SuiteError

TOOLS = load_suite("core").tool_sets["core"]


def search_case(arguments: dict[str, Any], kind: str = "tool") -> dict[str, Any]:
    expected: dict[str, Any]
    if kind == "tool":
        expected = {"kind": "tool", "name": "search_orders", "arguments": arguments}
    else:
        expected = {
            "kind": "tools",
            "calls": [
                {"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}},
                {"name": "search_orders", "arguments": arguments},
            ],
        }
    return {"id": "levels-01", "prompt": "List my last orders, sam@example.test.", "expected": expected}


def calls(*pairs: tuple[str, Any]) -> ToolCallsOutcome:
    return ToolCallsOutcome(calls=[make_call(f"c{i}", name, args) for i, (name, args) in enumerate(pairs)])


LIMIT_TOLERANT = {"requiredEquals": {"email": "sam@example.test", "limit": 10}, "tolerant": ["limit"]}
LIMIT_STRICT = {"requiredEquals": {"email": "sam@example.test", "limit": 10}}

# (assertion, produced arguments, passed, semantic_exact, params_match, wrong keys, tolerated keys)
TABLE: list[tuple[dict[str, Any], dict[str, Any], bool, bool, bool, list[str], list[str]]] = [
    (LIMIT_TOLERANT, {"email": "sam@example.test", "limit": 10}, True, True, True, [], []),
    (LIMIT_TOLERANT, {"email": "sam@example.test", "limit": 20}, True, True, False, ["limit"], ["limit"]),
    (LIMIT_STRICT, {"email": "sam@example.test", "limit": 20}, False, False, False, ["limit"], []),
    # a strict key stays strict beside a tolerant one
    (LIMIT_TOLERANT, {"email": "kim@example.test", "limit": 10}, False, False, False, ["email"], []),
    (
        LIMIT_TOLERANT,
        {"email": "kim@example.test", "limit": 20},
        False,
        False,
        False,
        ["email", "limit"],
        ["limit"],
    ),
    # tolerant oneOf and constraints
    (
        {"requiredEquals": {"email": "sam@example.test"}, "oneOf": {"limit": [5, 10]}, "tolerant": ["limit"]},
        {"email": "sam@example.test", "limit": 7},
        True,
        True,
        False,
        ["limit"],
        ["limit"],
    ),
    (
        {
            "requiredEquals": {"email": "sam@example.test"},
            "constraints": {"status": {"enum": ["shipped"]}},
            "tolerant": ["status"],
        },
        {"email": "sam@example.test", "status": "delivered"},
        True,
        True,
        False,
        ["status"],
        ["status"],
    ),
]


@pytest.mark.parametrize(("assertion", "args", "passed", "exact", "match", "wrong", "tolerated"), TABLE)
def test_tolerant_and_strict_keys(
    assertion: dict[str, Any],
    args: dict[str, Any],
    passed: bool,
    exact: bool,
    match: bool,
    wrong: list[str],
    tolerated: list[str],
) -> None:
    verdict = fcbench.grade(search_case(assertion), calls(("search_orders", args)), TOOLS)
    assert verdict.decision == "correct_call"
    assert verdict.schema_valid is True
    assert (verdict.passed, verdict.semantic_exact, verdict.params_match) == (passed, exact, match)
    assert [w.key for w in verdict.wrong] == wrong
    assert [w.key for w in verdict.wrong if w.note == TOLERATED_NOTE] == tolerated


def test_a_tolerated_difference_is_reported() -> None:
    args = {"email": "sam@example.test", "limit": 20}
    verdict = fcbench.grade(search_case(LIMIT_TOLERANT), calls(("search_orders", args)), TOOLS)
    dumped = verdict.model_dump(mode="json")
    assert dumped["params_match"] is False
    assert dumped["wrong"] == [{"key": "limit", "expected": 10, "actual": 20, "note": TOLERATED_NOTE}]
    assert verdict.reasons == [f"limit: expected 10, got 20 ({TOLERATED_NOTE})"]
    strict = fcbench.grade(search_case(LIMIT_STRICT), calls(("search_orders", args)), TOOLS)
    assert strict.model_dump(mode="json")["wrong"] == [{"key": "limit", "expected": 10, "actual": 20}]


def test_a_tolerant_key_must_still_be_schema_valid() -> None:
    args = {"email": "sam@example.test", "limit": 50}  # the schema allows 1..20
    verdict = fcbench.grade(search_case(LIMIT_TOLERANT), calls(("search_orders", args)), TOOLS)
    assert verdict.schema_valid is False
    assert verdict.passed is False


def test_a_missing_tolerant_key_is_still_missing() -> None:
    verdict = fcbench.grade(
        search_case(LIMIT_TOLERANT), calls(("search_orders", {"email": "sam@example.test"})), TOOLS
    )
    assert verdict.missing == ["limit"]
    assert (verdict.passed, verdict.semantic_exact, verdict.params_match) == (False, False, False)


def test_tolerance_across_several_calls() -> None:
    outcome = calls(
        ("lookup_order", {"order_id": "ORD-104821"}),
        ("search_orders", {"email": "sam@example.test", "limit": 3}),
    )
    verdict = fcbench.grade(search_case(LIMIT_TOLERANT, kind="tools"), outcome, TOOLS)
    assert (verdict.passed, verdict.params_match) == (True, False)
    assert [(w.key, w.note) for w in verdict.wrong] == [("calls[1].limit", TOLERATED_NOTE)]


def test_without_compared_arguments_params_match_is_null() -> None:
    case = {"id": "t", "prompt": "Hi", "expected": {"kind": "text"}}
    assert fcbench.grade(case, {"kind": "text", "text": "Hello!"}, TOOLS).params_match is None


def test_the_bfcl_profile_has_no_tolerance() -> None:
    args = {"email": "sam@example.test", "limit": 20}
    verdict = fcbench.grade(
        search_case(LIMIT_TOLERANT), calls(("search_orders", args)), TOOLS, profile="bfcl"
    )
    assert verdict.passed is False
    assert verdict.params_match is None


@pytest.mark.parametrize(
    ("assertion", "fragment"),
    [
        ({"requiredEquals": {"email": "sam@example.test"}, "tolerant": ["limit"]}, "has no expected value"),
        (
            {
                "requiredEquals": {"email": "sam@example.test"},
                "optional": ["limit"],
                "tolerant": ["limit"],
            },
            "has no expected value",
        ),
        (
            {
                "requiredEquals": {"email": "sam@example.test"},
                "constraints": {"limit": {"maximum": 5}},
                "forbidden": ["limit"],
                "tolerant": ["limit"],
            },
            "also forbidden",
        ),
    ],
)
def test_malformed_tolerant_keys_are_case_errors(assertion: dict[str, Any], fragment: str) -> None:
    args = {"email": "sam@example.test"}
    with pytest.raises(CaseError, match=fragment):
        fcbench.grade(search_case(assertion), calls(("search_orders", args)), TOOLS)


def test_bad_tolerant_keys_are_reported_with_file_and_line(core_copy: Any) -> None:
    def case(case_id: str, arguments: dict[str, Any]) -> dict[str, Any]:
        expected = {"kind": "tool", "name": "search_orders", "arguments": arguments}
        return {"id": case_id, "prompt": "List my orders, sam@example.test.", "expected": expected}

    unknown = core_copy.append(
        case(
            "levels-bad-01",
            {
                "requiredEquals": {"email": "sam@example.test"},
                "constraints": {"page_size": {"maximum": 5}},
                "tolerant": ["page_size"],
            },
        )
    )
    unchecked = core_copy.append(
        case("levels-bad-02", {"requiredEquals": {"email": "sam@example.test"}, "tolerant": ["limit"]})
    )
    with pytest.raises(SuiteError) as info:
        load_suite(core_copy.path)
    text = str(info.value)
    assert (
        f"cases.jsonl:{unknown}: expected.arguments.tolerant[0]: "
        "tolerant key 'page_size' is not a parameter of search_orders"
    ) in text
    assert f"cases.jsonl:{unchecked}: expected.arguments: " in text
    assert "tolerant key 'limit' has no expected value" in text


def test_a_valid_tolerant_case_loads(core_copy: Any) -> None:
    core_copy.append(
        {
            "id": "levels-ok-01",
            "prompt": "List my last 10 orders, sam@example.test.",
            "expected": {"kind": "tool", "name": "search_orders", "arguments": LIMIT_TOLERANT},
        }
    )
    suite = load_suite(core_copy.path)
    case = next(c for c in suite.cases if c.id == "levels-ok-01")
    verdict = fcbench.grade(
        case, calls(("search_orders", {"email": "sam@example.test", "limit": 20})), suite.tools_for(case)
    )
    assert (verdict.passed, verdict.params_match) == (True, False)
