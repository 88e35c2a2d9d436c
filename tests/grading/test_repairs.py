"""The ``repairs`` grading profile: each repair kind applied where it is exact and nowhere else,
each one recorded, the strict rules applied after them, and ``strict`` / ``bfcl`` untouched."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from fcbench import grade
from fcbench.errors import CaseError
from fcbench.grading import PROFILES, REPAIR_KINDS, REPAIRING_PROFILES, Repair, Verdict
from fcbench.grading.repairs import exact_number

TOOL = {
    "name": "book_trip",
    "description": "Book a trip, loosely typed by the model",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "budget": {"type": "number"},
            "nights": {"type": "integer"},
            "zip": {"type": "string"},
            "ref": {"type": ["integer", "string"]},
            "cabin": {"type": "string", "enum": ["economy", "business", "first"]},
            "pets": {"type": ["integer", "null"]},
            "room": {"$ref": "#/$defs/room"},
            "stops": {
                "type": "array",
                "items": {"type": "object", "properties": {"days": {"type": "integer"}}},
            },
            "insurance": {"type": "boolean"},
            "currency": {"type": "string"},
        },
        "required": ["city", "nights"],
        "additionalProperties": False,
        "$defs": {
            "room": {
                "type": "object",
                "properties": {
                    "beds": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                    "view": {"type": "string", "enum": ["sea", "garden"], "default": "garden"},
                },
                "additionalProperties": False,
            }
        },
    },
}
WITH_DEFAULTS = copy.deepcopy(TOOL)
WITH_DEFAULTS["parameters"]["properties"]["insurance"]["default"] = False
WITH_DEFAULTS["parameters"]["properties"]["currency"]["default"] = "EUR"
OPEN_TOOL = {
    "name": "note",
    "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
}

BASE = {"city": "Paris", "nights": 3}


def _case(arguments: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    expected = {"kind": "tool", "name": "book_trip", "arguments": arguments or BASE}
    return {"id": "t-1", "prompt": "Book it.", "tools": [TOOL, OPEN_TOOL], "expected": expected, **extra}


def _calls(*arguments: Any, name: str = "book_trip") -> dict[str, Any]:
    calls = [
        {"id": f"c{i}", "name": name, "arguments": args, "raw_arguments": json.dumps(args)}
        for i, args in enumerate(arguments)
    ]
    return {"kind": "tool_calls", "calls": calls}


def _grade(case: dict[str, Any], outcome: dict[str, Any], profile: str = "repairs") -> Verdict:
    return grade(case, outcome, None, profile=profile)


def _defaults(arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    """A case offering the tool whose ``insurance`` and ``currency`` have defaults."""
    return _case(arguments, tools=[WITH_DEFAULTS, OPEN_TOOL])


def _kinds(verdict: Verdict) -> list[tuple[str, str, Any, Any]]:
    return [(r.kind, r.path, r.before, r.after) for r in verdict.repairs]


def test_profile_is_registered() -> None:
    assert "repairs" in PROFILES and "repairs" in REPAIRING_PROFILES
    assert REPAIR_KINDS == (
        "call_from_text",
        "numeric_string",
        "enum_case",
        "unknown_key_dropped",
        "default_inserted",
    )


# numeric_string ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "types", "number"),
    [
        ("750", {"integer"}, 750),
        ("10000", {"integer"}, 10000),
        ("-3", {"integer"}, -3),
        ("0", {"integer"}, 0),
        ("1.5", {"number"}, 1.5),
        ("750", {"number"}, 750),
        ("2.5e3", {"number"}, 2500.0),
        ("1.5", {"integer"}, None),  # not an integer
        ("750.0", {"integer"}, None),
        ("12abc", {"integer", "number"}, None),
        (" 750", {"integer"}, None),
        ("750 ", {"number"}, None),
        ("0750", {"integer"}, None),  # no JSON number has a leading zero
        ("+5", {"integer"}, None),
        ("1e999", {"number"}, None),  # not finite
        ("NaN", {"number"}, None),
        ("", {"integer"}, None),
        ("١٢", {"integer"}, None),  # other scripts' digits are not JSON digits
        ("9" * 5000, {"integer"}, None),  # more digits than Python converts
    ],
)
def test_exact_number(text: str, types: set[str], number: float | None) -> None:
    found = exact_number(text, types)
    assert found == number and type(found) is type(number)


def test_numeric_string_becomes_a_number_where_the_schema_says_integer_or_number() -> None:
    case = _case({**BASE, "budget": 1.5})
    outcome = _calls({"city": "Paris", "nights": "3", "budget": "1.5"})
    strict = _grade(case, outcome, "strict")
    assert not strict.passed and strict.schema_valid is False and strict.repairs == []
    verdict = _grade(case, outcome)
    assert verdict.passed and verdict.schema_valid is True and verdict.semantic_exact is True
    assert _kinds(verdict) == [("numeric_string", "nights", "3", 3), ("numeric_string", "budget", "1.5", 1.5)]
    assert isinstance(verdict.repairs[0], Repair) and verdict.repairs[0].tool == "book_trip"
    assert verdict.repairs[0].call == 0
    assert verdict.reasons[-1] == "after repairs: numeric_string nights, numeric_string budget"


@pytest.mark.parametrize("nights", ["3.0", "3 nights", " 3", "three", "0003"])
def test_numeric_string_is_not_coerced_unless_exact(nights: str) -> None:
    verdict = _grade(_case(), _calls({"city": "Paris", "nights": nights}))
    assert not verdict.passed and verdict.repairs == []
    assert verdict.wrong[0].actual == nights


def test_a_string_property_keeps_its_digits() -> None:
    case = _case({**BASE, "zip": "02139"})
    verdict = _grade(case, _calls({**BASE, "zip": "02139"}))
    assert verdict.passed and verdict.repairs == []
    either = _grade(_case({**BASE, "ref": "42"}), _calls({**BASE, "ref": "42"}))
    assert either.passed and either.repairs == []  # a string is allowed: nothing to repair
    lost = _grade(_case({**BASE, "zip": "02139"}), _calls({**BASE, "zip": 2139}))
    assert not lost.passed and lost.repairs == []  # never number -> string


def test_numeric_strings_in_nested_objects_arrays_refs_and_nullable_unions() -> None:
    expected = {**BASE, "pets": 2, "room": {"beds": 2, "view": "sea"}, "stops": [{"days": 1}, {"days": 2}]}
    produced = {
        "city": "Paris",
        "nights": 3,
        "pets": "2",
        "room": {"beds": "2", "view": "sea"},
        "stops": [{"days": "1"}, {"days": 2}],
    }
    verdict = _grade(_case(expected), _calls(produced))
    assert verdict.passed, verdict.reasons
    assert _kinds(verdict) == [
        ("numeric_string", "pets", "2", 2),
        ("numeric_string", "room.beds", "2", 2),
        ("numeric_string", "stops[0].days", "1", 1),
    ]


# enum_case -----------------------------------------------------------------------------------


@pytest.mark.parametrize("written", ["Business", "BUSINESS", " business ", "business\n"])
def test_enum_value_is_case_folded_and_stripped(written: str) -> None:
    verdict = _grade(_case({**BASE, "cabin": "business"}), _calls({**BASE, "cabin": written}))
    assert verdict.passed and _kinds(verdict) == [("enum_case", "cabin", written, "business")]
    assert not _grade(
        _case({**BASE, "cabin": "business"}), _calls({**BASE, "cabin": written}), "strict"
    ).passed


@pytest.mark.parametrize("written", ["busines", "business class", "premium"])
def test_enum_value_that_matches_no_member_is_left(written: str) -> None:
    verdict = _grade(_case({**BASE, "cabin": "business"}), _calls({**BASE, "cabin": written}))
    assert not verdict.passed and verdict.repairs == [] and verdict.schema_valid is False


def test_enum_value_matching_several_members_is_left() -> None:
    tool = {
        "name": "pick",
        "parameters": {"type": "object", "properties": {"size": {"type": "string", "enum": ["s", "S", "m"]}}},
    }
    case = {
        "id": "p",
        "prompt": "Pick.",
        "tools": [tool],
        "expected": {"kind": "tool", "name": "pick", "arguments": {"size": "m"}},
    }
    ambiguous = _grade(case, _calls({"size": " s"}, name="pick"))
    assert ambiguous.repairs == []
    member = _grade(case, _calls({"size": "S"}, name="pick"))
    assert member.repairs == []  # already a member: nothing to repair
    folded = _grade(case, _calls({"size": "M"}, name="pick"))
    assert folded.passed and _kinds(folded) == [("enum_case", "size", "M", "m")]


def test_enum_case_in_a_nested_object() -> None:
    case = _case({**BASE, "room": {"view": "sea"}})
    verdict = _grade(case, _calls({**BASE, "room": {"view": "Sea"}}))
    assert verdict.passed and _kinds(verdict) == [("enum_case", "room.view", "Sea", "sea")]


# unknown_key_dropped -------------------------------------------------------------------------


def test_unknown_key_is_dropped_where_additional_properties_are_false() -> None:
    outcome = _calls({**BASE, "force": True, "room": {"view": "sea", "floor": 3}})
    case = _case({**BASE, "room": {"view": "sea"}})
    strict = _grade(case, outcome, "strict")
    assert not strict.passed and "force" in strict.unexpected
    verdict = _grade(case, outcome)
    assert verdict.passed, verdict.reasons
    assert _kinds(verdict) == [
        ("unknown_key_dropped", "force", True, None),
        ("unknown_key_dropped", "room.floor", 3, None),
    ]


def test_unknown_key_is_kept_where_the_schema_allows_it() -> None:
    case = {
        "id": "n",
        "prompt": "Note it.",
        "tools": [OPEN_TOOL],
        "expected": {"kind": "tool", "name": "note", "arguments": {"text": "hi"}},
    }
    verdict = _grade(case, _calls({"text": "hi", "colour": "red"}, name="note"))
    assert verdict.repairs == [] and verdict.unexpected == ["colour"] and not verdict.passed


def test_pattern_properties_keep_matching_keys() -> None:
    tool = {
        "name": "tag",
        "parameters": {
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "patternProperties": {"^x-": {"type": "string"}},
            "additionalProperties": False,
        },
    }
    case = {
        "id": "g",
        "prompt": "Tag.",
        "tools": [tool],
        "expected": {
            "kind": "tool",
            "name": "tag",
            "arguments": {"requiredEquals": {"id": "a"}, "optional": ["x-a"]},
        },
    }
    verdict = _grade(case, _calls({"id": "a", "x-a": "kept", "y": "dropped"}, name="tag"))
    assert verdict.passed and _kinds(verdict) == [("unknown_key_dropped", "y", "dropped", None)]


# default_inserted ----------------------------------------------------------------------------


def test_default_is_inserted_and_satisfies_an_expectation_that_names_it() -> None:
    case = _defaults({**BASE, "currency": "EUR"})
    outcome = _calls(dict(BASE))
    strict = _grade(case, outcome, "strict")
    assert not strict.passed and strict.missing == ["currency"] and strict.repairs == []
    verdict = _grade(case, outcome)
    assert verdict.passed, verdict.reasons
    assert _kinds(verdict) == [
        ("default_inserted", "insurance", None, False),
        ("default_inserted", "currency", None, "EUR"),
    ]
    assert _grade(_case({**BASE, "currency": "EUR"}), outcome).repairs == []  # no default, no repair


def test_an_inserted_default_never_counts_against_a_call() -> None:
    outcome = _calls(dict(BASE))
    exact = _grade(_defaults(), outcome)
    assert exact.passed and {r.kind for r in exact.repairs} == {"default_inserted"}, exact.reasons
    assertion = _defaults({"requiredEquals": BASE, "forbidden": ["insurance"]})
    forbidden = _grade(assertion, outcome)
    assert forbidden.passed, forbidden.reasons  # the tool gets the default; the model set nothing
    assert not _grade(assertion, _calls({**BASE, "insurance": True})).passed
    optional = _grade(_defaults({"requiredEquals": BASE, "optional": ["currency"]}), outcome)
    assert optional.passed, optional.reasons


def test_default_not_inserted_when_the_key_is_present_and_a_wrong_default_still_fails() -> None:
    present = _grade(_defaults(), _calls({**BASE, "currency": "EUR", "insurance": False}))
    assert present.repairs == [] and not present.passed  # given by the model: unexpected, as under strict
    assert present == _grade(_defaults(), _calls({**BASE, "currency": "EUR", "insurance": False}), "strict")
    wrong = _grade(_defaults({**BASE, "currency": "USD"}), _calls(dict(BASE)))
    assert not wrong.passed and [(w.key, w.actual) for w in wrong.wrong] == [("currency", "EUR")]


def test_nested_default_inserted_into_an_object_that_is_present() -> None:
    case = _case({**BASE, "room": {"beds": 1}})
    verdict = _grade(case, _calls({**BASE, "room": {"beds": 1}}))
    assert verdict.passed, verdict.reasons
    assert _kinds(verdict) == [("default_inserted", "room.view", None, "garden")]
    named = _grade(_case({**BASE, "room": {"beds": 1, "view": "sea"}}), _calls({**BASE, "room": {"beds": 1}}))
    assert not named.passed and named.wrong[0].actual == {"beds": 1, "view": "garden"}
    absent = _grade(_case(), _calls(dict(BASE)))
    assert absent.repairs == []  # no object, nothing to fill in


# call_from_text ------------------------------------------------------------------------------

WRITTEN = '```json\n{"name": "book_trip", "arguments": {"city": "Paris", "nights": 3}}\n```'


def test_a_call_written_as_text_becomes_a_passing_call_under_repairs_only() -> None:
    outcome = {"kind": "text", "text": WRITTEN}
    strict = _grade(_case(), outcome, "strict")
    assert strict.decision == "call_in_text" and not strict.passed and strict.repairs == []
    bfcl = _grade(_case(), outcome, "bfcl")
    assert bfcl.decision == "call_in_text" and not bfcl.passed and bfcl.repairs == []
    verdict = _grade(_case(), outcome)
    assert verdict.passed and verdict.decision == "correct_call" and verdict.schema_valid is True
    first = verdict.repairs[0]
    assert (first.kind, first.call, first.tool, first.path, first.before) == (
        "call_from_text",
        0,
        "book_trip",
        "",
        None,
    )
    assert first.after == {"name": "book_trip", "arguments": BASE} and len(verdict.repairs) == 1


def test_every_written_call_is_taken_and_then_repaired() -> None:
    second = json.dumps({"name": "book_trip", "arguments": json.dumps({"city": "Rome", "nights": 2})})
    text = (
        '<tool_call>{"name": "book_trip", "arguments": {"city": "Paris", "nights": "3"}}</tool_call>\n'
        f"<tool_call>{second}</tool_call>"
    )
    case = _case()
    case["expected"] = {
        "kind": "tools",
        "calls": [
            {
                "name": "book_trip",
                "arguments": {"requiredEquals": BASE, "optional": ["insurance", "currency"]},
            },
            {"name": "book_trip", "arguments": {"requiredEquals": {"city": "Rome", "nights": 2}}},
        ],
    }
    verdict = _grade(case, {"kind": "text", "text": text})
    assert verdict.passed and verdict.calls_scored == 2, verdict.reasons
    assert [(r.kind, r.call) for r in verdict.repairs] == [
        ("call_from_text", 0),
        ("call_from_text", 1),
        ("numeric_string", 0),
    ]
    assert "numeric_string calls[0].nights" in verdict.reasons[-1]


def test_a_written_call_of_a_tool_never_offered_is_scored_as_a_call_of_it() -> None:
    outcome = {"kind": "text", "text": 'cancel_all(reason="test")'}
    verdict = _grade(_case(), outcome)
    assert [r.tool for r in verdict.repairs] == ["cancel_all"]
    assert (verdict.decision, verdict.passed) == ("wrong_tool", False)
    assert "tool_not_offered" in verdict.anomalies
    assert _grade(_case(), outcome, "strict").decision == "call_in_text"


def test_a_written_call_with_the_original_bfcl_name_becomes_a_call_of_the_offered_tool() -> None:
    case = _case(name_map={"book_trip": "travel.book_trip"})
    text = '{"name": "travel.book_trip", "arguments": {"city": "Paris", "nights": 3}}'
    assert _grade(case, {"kind": "text", "text": text}, "strict").decision == "call_in_text"
    verdict = _grade(case, {"kind": "text", "text": text})
    assert verdict.passed and verdict.repairs[0].tool == "book_trip"


def test_a_written_call_where_text_was_expected_is_an_unexpected_call() -> None:
    case = {"id": "a", "prompt": "Hello!", "tools": [TOOL], "expected": {"kind": "text"}}
    outcome = {"kind": "text", "text": WRITTEN}
    assert _grade(case, outcome, "strict").decision == "call_in_text"
    verdict = _grade(case, outcome)
    assert verdict.decision == "unexpected_call" and not verdict.passed and verdict.repairs


# strict and bfcl are untouched ---------------------------------------------------------------

SLOPPY_OUTCOMES: list[dict[str, Any]] = [
    _calls({"city": "Paris", "nights": "3", "cabin": "Business", "force": True}),
    _calls(dict(BASE)),
    _calls({**BASE, "room": {"beds": "2", "view": "SEA", "floor": 1}}),
    {"kind": "text", "text": WRITTEN},
    {"kind": "text", "text": "Which city?"},
    {"kind": "refusal", "text": "No."},
    {"kind": "provider_error", "code": "timeout", "message": "slow"},
    {
        "kind": "tool_calls",
        "calls": [
            {"id": "x", "name": "book_trip", "arguments": None, "raw_arguments": "{", "parse_error": "bad"}
        ],
    },
]
VERDICT_KEYS = set(Verdict.model_fields) - {"repairs", "unexpected_writes", "authorization"}
"""The keys of a serialised verdict before the repairs profile existed (an empty
``unexpected_writes`` and a null ``authorization`` are left out too)."""


@pytest.mark.parametrize("profile", ["strict", "bfcl"])
@pytest.mark.parametrize("outcome", SLOPPY_OUTCOMES)
def test_strict_and_bfcl_repair_nothing_and_serialise_as_before(
    profile: str, outcome: dict[str, Any]
) -> None:
    before = copy.deepcopy(outcome)
    repaired = _grade(_case(), outcome)
    verdict = _grade(_case(), outcome, profile)
    assert outcome == before  # grading never changes its input, repairs included
    assert verdict.repairs == []
    assert set(verdict.model_dump()) == VERDICT_KEYS
    assert set(json.loads(verdict.model_dump_json())) == VERDICT_KEYS
    assert verdict == _grade(_case(), outcome, profile)  # the repairs profile left nothing behind
    if profile == "strict" and not repaired.repairs:
        assert repaired == verdict  # nothing to repair: the strict verdict itself


def test_a_verdict_with_repairs_serialises_them_and_reads_back() -> None:
    verdict = _grade(_case(), _calls({"city": "Paris", "nights": "3"}))
    data = json.loads(verdict.model_dump_json())
    assert set(data) == VERDICT_KEYS | {"repairs"}
    assert data["repairs"][0] == {
        "kind": "numeric_string",
        "call": 0,
        "tool": "book_trip",
        "path": "nights",
        "before": "3",
        "after": 3,
    }
    assert Verdict.model_validate_json(verdict.model_dump_json()) == verdict
    assert Verdict.model_validate({k: v for k, v in data.items() if k != "repairs"}).repairs == []


def test_deep_values_and_recursive_schemas_are_bounded() -> None:
    tool = {
        "name": "tree",
        "parameters": {
            "type": "object",
            "properties": {"n": {"type": "integer"}, "child": {"$ref": "#"}},
            "additionalProperties": False,
        },
    }
    value: dict[str, Any] = {"n": "1"}
    for _ in range(200):
        value = {"n": "1", "child": value}
    case = {"id": "d", "prompt": "Tree.", "tools": [tool], "expected": {"kind": "tool", "name": "tree"}}
    verdict = _grade(case, _calls(value, name="tree"))
    assert 0 < len(verdict.repairs) <= 40 and verdict.repairs[0].path == "n"
    loop = {"name": "loop", "parameters": {"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}}
    looping = {"id": "l", "prompt": "Loop.", "tools": [loop], "expected": {"kind": "text"}}
    with pytest.raises(CaseError, match="reference loop"):
        _grade(looping, _calls({"x": "1"}, name="loop"))  # refused by schema validation, never a hang
