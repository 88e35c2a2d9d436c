"""Schema validity and semantic correctness of arguments, judged separately and strictly."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fcbench.contract import make_call
from fcbench.grading import grade, normalised_outcome_key


def quote(args: Any) -> dict[str, Any]:
    """A one-call outcome asking for a shipping quote with ``args`` exactly as given."""
    return {"kind": "tool_calls", "calls": [make_call("call_1", "get_shipping_quote", args).model_dump()]}


def one(name: str, args: Any) -> dict[str, Any]:
    return {"kind": "tool_calls", "calls": [make_call("call_1", name, args).model_dump()]}


TYPES_OK = {"country_code": "US", "postal_code": "02139", "weight_grams": 750, "service": "standard"}


def test_leading_zero_kept_as_string_passes(seed: dict[str, Any], core_tools: list[dict[str, Any]]) -> None:
    verdict = grade(seed["types-01"], quote(TYPES_OK), core_tools)
    assert verdict.passed is True
    assert (verdict.schema_valid, verdict.semantic_exact) == (True, True)


def test_postal_code_as_number_is_schema_invalid_and_wrong(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    verdict = grade(seed["types-01"], quote({**TYPES_OK, "postal_code": 2139}), core_tools)
    assert verdict.decision == "correct_call"
    assert verdict.passed is False
    assert verdict.schema_valid is False
    assert verdict.schema_errors == ["postal_code: 2139 is not of type 'string'"]
    assert verdict.semantic_exact is False
    assert [w.model_dump() for w in verdict.wrong] == [
        {"key": "postal_code", "expected": "02139", "actual": 2139}
    ]


def test_string_750_is_not_number_750(seed: dict[str, Any], core_tools: list[dict[str, Any]]) -> None:
    verdict = grade(seed["types-01"], quote({**TYPES_OK, "weight_grams": "750"}), core_tools)
    assert verdict.model_dump(
        include={"passed", "decision", "schema_valid", "schema_errors", "semantic_exact"}
    ) == {
        "passed": False,
        "decision": "correct_call",
        "schema_valid": False,
        "schema_errors": ["weight_grams: '750' is not of type 'integer'"],
        "semantic_exact": False,
    }
    assert verdict.model_dump()["wrong"] == [{"key": "weight_grams", "expected": 750, "actual": "750"}]


def test_integral_float_equals_integer(seed: dict[str, Any], core_tools: list[dict[str, Any]]) -> None:
    verdict = grade(seed["types-01"], quote({**TYPES_OK, "weight_grams": 750.0}), core_tools)
    assert (verdict.schema_valid, verdict.semantic_exact, verdict.passed) == (True, True, True)


def test_boolean_is_not_a_number(core_tools: list[dict[str, Any]]) -> None:
    case = {
        "id": "limit-01",
        "prompt": "Show one order for sam@example.test",
        "expected": {
            "kind": "tool",
            "name": "search_orders",
            "arguments": {"email": "sam@example.test", "limit": 1},
        },
    }
    verdict = grade(case, one("search_orders", {"email": "sam@example.test", "limit": True}), core_tools)
    assert verdict.schema_valid is False
    assert verdict.schema_errors == ["limit: True is not of type 'integer'"]
    assert verdict.semantic_exact is False
    assert verdict.model_dump()["wrong"] == [{"key": "limit", "expected": 1, "actual": True}]


def test_unit_not_converted_is_schema_valid_but_semantically_wrong(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    args = {"country_code": "CA", "postal_code": "M5V 3L9", "weight_grams": 1}
    verdict = grade(seed["normalize-01"], quote(args), core_tools)
    assert verdict.schema_valid is True
    assert verdict.semantic_exact is False
    assert verdict.passed is False
    assert verdict.model_dump()["wrong"] == [{"key": "weight_grams", "expected": 1000, "actual": 1}]
    assert verdict.reasons == ["weight_grams: expected 1000, got 1"]


def test_lowercase_country_is_schema_invalid_and_wrong(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    args = {"country_code": "ca", "postal_code": "M5V 3L9", "weight_grams": 1000}
    verdict = grade(seed["normalize-01"], quote(args), core_tools)
    assert verdict.schema_valid is False
    assert verdict.schema_errors == ["country_code: 'ca' does not match '^[A-Z]{2}$'"]
    assert verdict.semantic_exact is False
    assert verdict.model_dump()["wrong"] == [{"key": "country_code", "expected": "CA", "actual": "ca"}]


def test_extra_key_breaks_additional_properties_and_is_unexpected(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    args = {"order_id": "ORD-104821", "email": "sam@example.test"}
    verdict = grade(seed["conflict-01"], one("lookup_order", args), core_tools)
    assert verdict.decision == "correct_call"
    assert verdict.schema_valid is False
    assert len(verdict.schema_errors) == 1
    assert "Additional properties are not allowed ('email' was unexpected)" in verdict.schema_errors[0]
    assert verdict.unexpected == ["email"]
    assert verdict.missing == [] and verdict.wrong == []
    assert verdict.semantic_exact is False


def test_missing_key_is_reported(seed: dict[str, Any], core_tools: list[dict[str, Any]]) -> None:
    args = {"country_code": "US", "postal_code": "02139", "weight_grams": 750}
    verdict = grade(seed["types-01"], quote(args), core_tools)
    assert verdict.schema_valid is True  # service is optional in the schema
    assert verdict.missing == ["service"]
    assert verdict.semantic_exact is False


def test_unparseable_arguments(seed: dict[str, Any], core_tools: list[dict[str, Any]]) -> None:
    outcome = one("lookup_order", '{"order_id": "ORD-104821"')
    assert outcome["calls"][0]["arguments"] is None
    verdict = grade(seed["select-lookup-01"], outcome, core_tools)
    assert verdict.decision == "correct_call"
    assert verdict.schema_valid is False
    assert len(verdict.schema_errors) == 1
    assert verdict.schema_errors[0].startswith("arguments did not parse as JSON: invalid JSON")
    assert verdict.semantic_exact is False
    assert verdict.missing == ["order_id"]
    assert verdict.anomalies == ["unparseable_arguments"]
    assert verdict.passed is False


@pytest.mark.parametrize("args", [["ORD-104821"], "ORD-104821", None, 42, True])
def test_arguments_that_are_not_an_object(
    args: Any, seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    outcome = {"kind": "tool_calls", "calls": [{"id": "c", "name": "lookup_order", "arguments": args}]}
    verdict = grade(seed["select-lookup-01"], outcome, core_tools)
    assert verdict.decision == "correct_call"
    assert verdict.schema_valid is False
    assert verdict.schema_errors[0].startswith("(root): ")
    assert verdict.semantic_exact is False
    assert verdict.missing == ["order_id"]
    assert "arguments_not_object" in verdict.anomalies


def test_tool_not_offered(seed: dict[str, Any], core_tools: list[dict[str, Any]]) -> None:
    verdict = grade(seed["select-lookup-01"], one("delete_everything", {"confirm": True}), core_tools)
    assert verdict.decision == "wrong_tool"
    assert verdict.schema_valid is False
    assert verdict.schema_errors == ["tool 'delete_everything' was not offered"]
    assert verdict.anomalies == ["tool_not_offered"]


def test_adapter_anomalies_are_copied_first_and_once(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    from fcbench.contract import Anomaly

    given: list[Any] = [
        Anomaly(code="finish_reason_mismatch"),
        {"code": "tool_not_offered", "detail": "x"},
        "missing_call_id",
    ]
    verdict = grade(seed["select-lookup-01"], one("nope", {}), core_tools, anomalies=given)
    assert verdict.anomalies == ["finish_reason_mismatch", "tool_not_offered", "missing_call_id"]


def test_huge_and_odd_values_never_raise(seed: dict[str, Any], core_tools: list[dict[str, Any]]) -> None:
    huge = grade(seed["types-01"], quote({**TYPES_OK, "weight_grams": 10**400}), core_tools)
    assert huge.schema_valid is False
    assert huge.semantic_exact is False
    assert all(len(message) <= 300 for message in huge.schema_errors)
    nan = grade(seed["types-01"], quote({**TYPES_OK, "weight_grams": float("nan")}), core_tools)
    assert nan.semantic_exact is False
    deep: Any = "x"
    for _ in range(3000):
        deep = {"a": deep}
    deep_outcome = {
        "kind": "tool_calls",
        "calls": [{"id": "c", "name": "get_shipping_quote", "arguments": deep}],
    }
    verdict = grade(seed["types-01"], deep_outcome, core_tools)
    assert verdict.schema_valid is False
    assert verdict.semantic_exact is False
    assert normalised_outcome_key(deep_outcome, verdict).startswith("correct_call:")


def test_raw_arguments_text_is_what_was_parsed(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    raw = json.dumps({"order_id": "ORD-104821"}, indent=4)
    verdict = grade(seed["select-lookup-01"], one("lookup_order", raw), core_tools)
    assert verdict.passed is True
