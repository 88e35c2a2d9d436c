"""Input forms (models or dicts), profiles, errors for malformed input, and the Verdict shape."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from fcbench.contract import Tool, ToolCall, ToolCallsOutcome, parse_outcome
from fcbench.errors import CaseError, ConfigError, InputError
from fcbench.grading import PROFILES, Verdict, grade
from fcbench.schema.validate import ValidatorCache
from fcbench.suite.models import Case

WRONG_WEIGHT = {
    "kind": "tool_calls",
    "calls": [
        {
            "id": "call_1",
            "name": "get_shipping_quote",
            "arguments": {
                "country_code": "US",
                "postal_code": "02139",
                "weight_grams": "750",
                "service": "standard",
            },
        }
    ],
}


def test_models_and_dicts_give_the_same_verdict(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    from_dicts = grade(seed["types-01"], WRONG_WEIGHT, core_tools)
    from_models = grade(
        Case.model_validate(seed["types-01"]),
        parse_outcome(WRONG_WEIGHT),
        [Tool.model_validate(t) for t in core_tools],
        validators=ValidatorCache(),
    )
    assert from_models == from_dicts
    assert from_dicts.decision == "correct_call" and from_dicts.semantic_exact is False


def test_tool_file_object_and_built_outcome_models(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    outcome = ToolCallsOutcome(
        calls=[ToolCall(id="c", name="lookup_order", arguments={"order_id": "ORD-104821"})]
    )
    verdict = grade(seed["select-lookup-01"], outcome, {"tools": core_tools})
    assert verdict.passed is True


def test_inline_case_tools_are_used_when_no_tools_are_passed(core_tools: list[dict[str, Any]]) -> None:
    case = {
        "id": "inline-01",
        "prompt": "Where is ORD-104821?",
        "tools": [core_tools[0]],
        "expected": {"kind": "tool", "name": "lookup_order", "arguments": {"order_id": "ORD-104821"}},
    }
    outcome = {
        "kind": "tool_calls",
        "calls": [{"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}],
    }
    assert grade(case, outcome, None).passed is True
    with pytest.raises(CaseError, match="pass the offered tools"):
        grade({**case, "tools": "core"}, outcome, None)


def test_verdict_fields_and_dump(seed: dict[str, Any], core_tools: list[dict[str, Any]]) -> None:
    verdict = grade(seed["types-01"], WRONG_WEIGHT, core_tools)
    dumped = verdict.model_dump()
    assert list(dumped) == [
        "passed",
        "decision",
        "schema_valid",
        "schema_errors",
        "semantic_exact",
        "params_match",
        "missing",
        "wrong",
        "unexpected",
        "anomalies",
        "reasons",
        "calls_scored",
        "recovery",
    ]
    assert Verdict.model_validate(dumped) == verdict
    assert Verdict.model_validate_json(verdict.model_dump_json()) == verdict
    assert verdict.wrong[0].key == "weight_grams"
    with pytest.raises(ValidationError):
        verdict.passed = True  # type: ignore[misc]


def test_validator_cache_is_reused(seed: dict[str, Any], core_tools: list[dict[str, Any]]) -> None:
    cache = ValidatorCache()
    grade(seed["types-01"], WRONG_WEIGHT, core_tools, validators=cache)
    first = cache.get(core_tools[2]["parameters"])
    grade(seed["types-01"], WRONG_WEIGHT, core_tools, validators=cache)
    assert cache.get(core_tools[2]["parameters"]) is first


def test_profiles_registry_and_unknown_profile(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    assert "strict" in PROFILES
    assert grade(seed["types-01"], WRONG_WEIGHT, core_tools, profile="strict").decision == "correct_call"
    with pytest.raises(ConfigError) as caught:
        grade(seed["types-01"], WRONG_WEIGHT, core_tools, profile="bfcl-ast")
    assert "'bfcl-ast'" in str(caught.value)
    assert caught.value.key == "profile"


@pytest.mark.parametrize(
    ("case", "fragment"),
    [
        ({"id": "bad-01", "prompt": "x", "expected": {"kind": "bogus"}}, "bad-01"),
        ({"id": "bad-02", "prompt": "x", "expected": {"kind": "tool", "name": "teleport"}}, "'teleport'"),
        ({"id": "bad-03", "prompt": "x", "expected": {"kind": "clarification", "missing": []}}, "missing"),
        ({"id": "bad-04", "prompt": "x", "expected": {"kind": "text"}, "extra": 1}, "extra"),
    ],
)
def test_malformed_cases_raise_case_error(
    case: dict[str, Any], fragment: str, core_tools: list[dict[str, Any]]
) -> None:
    with pytest.raises(CaseError) as caught:
        grade(case, {"kind": "text", "text": "hi"}, core_tools)
    assert fragment in str(caught.value)


def test_malformed_case_raises_even_for_a_provider_error(core_tools: list[dict[str, Any]]) -> None:
    case = {"id": "bad-05", "prompt": "x", "expected": {"kind": "tool", "name": "teleport"}}
    with pytest.raises(CaseError):
        grade(case, {"kind": "provider_error", "code": "timeout", "message": "t"}, core_tools)


@pytest.mark.parametrize(
    "outcome",
    [{"kind": "tool_calls"}, {"kind": "weird"}, {"kind": "provider_error", "code": "nope", "message": "m"}],
)
def test_malformed_outcomes_raise_input_error(
    outcome: dict[str, Any], seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    with pytest.raises(InputError, match="invalid outcome"):
        grade(seed["abstain-01"], outcome, core_tools)


def test_malformed_tool_lists_raise_input_error(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    text = {"kind": "text", "text": "hi"}
    with pytest.raises(InputError, match="offered twice"):
        grade(seed["abstain-01"], text, core_tools + core_tools[:1])
    with pytest.raises(InputError, match="tool 0"):
        grade(seed["abstain-01"], text, [{"description": "no name"}])
    with pytest.raises(CaseError, match="invalid JSON Schema"):
        grade(
            seed["abstain-01"],
            {"kind": "tool_calls", "calls": [{"name": "t", "arguments": {}}]},
            [{"name": "t", "parameters": {"type": "no-such-type"}}],
        )
