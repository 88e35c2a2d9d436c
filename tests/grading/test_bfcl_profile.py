"""The ``bfcl`` grading profile: one test (or more) per BFCL checker rule, with the edge cases."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fcbench import grade
from fcbench.grading import PROFILES, Verdict
from fcbench.grading.bfcl_rules import (
    TypeCheck,
    check_arguments,
    check_type,
    dict_list_matches,
    dict_matches,
    list_matches,
    python_type,
    standardize,
    string_matches,
)

TOOL = {
    "name": "book_trip",
    "description": "Book a trip",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "nights": {"type": "integer"},
            "budget": {"type": "number"},
            "refundable": {"type": "boolean"},
            "stops": {"type": "array", "items": {"type": "string"}},
            "coords": {"type": "array", "items": {"type": "number"}},
            "room": {
                "type": "object",
                "properties": {"beds": {"type": "integer"}, "view": {"type": "string"}},
            },
            "guests": {"type": "array", "items": {"type": "object"}},
            "notes": {},
        },
        "required": ["city", "nights"],
    },
}


def _case(arguments: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "t-1",
        "prompt": "Book it.",
        "tools": [TOOL],
        "expected": {"kind": "tool", "name": "book_trip", "arguments": arguments},
        **extra,
    }


def _call(arguments: Any, name: str = "book_trip", index: int = 0) -> dict[str, Any]:
    return {"id": f"c{index}", "name": name, "arguments": arguments, "raw_arguments": json.dumps(arguments)}


def _calls(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "tool_calls", "calls": list(calls)}


BASE = {"requiredEquals": {"city": "Paris", "nights": 3}}


def _bfcl(case: dict[str, Any], outcome: dict[str, Any]) -> Verdict:
    return grade(case, outcome, None, profile="bfcl")


def _strict(case: dict[str, Any], outcome: dict[str, Any]) -> Verdict:
    return grade(case, outcome, None, profile="strict")


def test_profile_is_registered() -> None:
    assert "bfcl" in PROFILES and "strict" in PROFILES
    verdict = _bfcl(_case(BASE), _calls(_call({"city": "Paris", "nights": 3})))
    assert verdict.passed and verdict.decision == "correct_call" and verdict.semantic_exact is True


def test_exact_function_name() -> None:
    verdict = _bfcl(_case(BASE), _calls(_call({"city": "Paris", "nights": 3}, name="book_trips")))
    assert not verdict.passed and verdict.decision == "wrong_tool"


def test_names_compared_after_undoing_the_name_map() -> None:
    case = _case(BASE, name_map={"book_trip": "travel.book_trip"})
    legal = _bfcl(case, _calls(_call({"city": "Paris", "nights": 3})))
    assert legal.passed
    original = _bfcl(case, _calls(_call({"city": "Paris", "nights": 3}, name="travel.book_trip")))
    assert original.passed and original.schema_valid is False  # BFCL's own spelling is the same function
    other = _bfcl(case, _calls(_call({"city": "Paris", "nights": 3}, name="travel_book_trip")))
    assert not other.passed and other.decision == "wrong_tool"
    assert "travel.book_trip" in other.reasons[0]


def test_required_parameters_must_be_present() -> None:
    case = _case(
        {
            "requiredEquals": {"city": "Paris"},
            "optional": ["nights"],
            "constraints": {"nights": {"enum": [3]}},
        }
    )
    verdict = _bfcl(case, _calls(_call({"city": "Paris"})))
    assert not verdict.passed and verdict.missing == ["nights"]


def test_parameter_outside_schema_or_answer_is_rejected() -> None:
    outside_schema = _bfcl(_case(BASE), _calls(_call({"city": "Paris", "nights": 3, "pets": True})))
    assert not outside_schema.passed and outside_schema.unexpected == ["pets"]
    outside_answer = _bfcl(_case(BASE), _calls(_call({"city": "Paris", "nights": 3, "budget": 100})))
    assert not outside_answer.passed and outside_answer.unexpected == ["budget"]


@pytest.mark.parametrize(
    ("key", "accepted", "value", "passes"),
    [
        ("budget", 100.0, 100, True),  # an int is accepted for a float
        ("budget", 100.5, 100.5, True),
        ("budget", 100.0, True, False),  # a bool is not a float
        ("budget", 100.0, "100", False),
        ("nights", 3, 3.0, False),  # a float is not accepted for an int
        ("nights", 1, True, False),  # nor a bool
        ("nights", 3, "3", False),
        ("refundable", True, 1, False),
        ("refundable", False, False, True),
    ],
)
def test_python_type_checks(key: str, accepted: Any, value: Any, passes: bool) -> None:
    case = _case({"requiredEquals": {"city": "Paris", "nights": 3, key: accepted}})
    arguments = {"city": "Paris", "nights": 3, key: value}
    verdict = _bfcl(case, _calls(_call(arguments)))
    assert verdict.passed is passes, verdict.reasons


def test_numbers_compared_exactly() -> None:
    case = _case({"requiredEquals": {"city": "Paris", "nights": 3, "budget": 99.5}})
    assert not _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "budget": 99.51}))).passed
    assert not _bfcl(case, _calls(_call({"city": "Paris", "nights": 4, "budget": 99.5}))).passed


def test_strings_compared_after_normalisation() -> None:
    assert standardize("New York, NY") == "newyorkny"
    assert standardize("It's 3/4 - A_B*C^D.") == 'it"s34abcd'
    case = _case({"requiredEquals": {"city": "San Francisco, CA", "nights": 3}})
    for variant in ("san francisco ca", "SAN-FRANCISCO/CA.", "San_Francisco,CA"):
        verdict = _bfcl(case, _calls(_call({"city": variant, "nights": 3})))
        assert verdict.passed, variant
        assert not _strict(case, _calls(_call({"city": variant, "nights": 3}))).passed
    for wrong in ("San Francisco!", "San Fransisco CA", "Francisco San CA"):
        assert not _bfcl(case, _calls(_call({"city": wrong, "nights": 3}))).passed, wrong
    quoted = _case({"requiredEquals": {"city": "O'Hare", "nights": 3}})
    assert _bfcl(quoted, _calls(_call({"city": 'O"Hare', "nights": 3}))).passed
    assert string_matches("Rome", ["", "rome"]) and not string_matches("Rome", [3, "Milan"])


def test_lists_compared_element_wise_in_order() -> None:
    case = _case({"requiredEquals": {"city": "Paris", "nights": 3, "stops": ["Lyon", "Nice"]}})
    assert _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "stops": ["lyon", " NICE"]}))).passed
    assert not _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "stops": ["Nice", "Lyon"]}))).passed
    assert not _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "stops": ["Lyon"]}))).passed
    assert not _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "stops": "Lyon, Nice"}))).passed
    assert list_matches([1, "A b"], [[1, "ab"]]) and list_matches([], [""])  # BFCL reads "" as an empty list


def test_list_items_are_type_checked_one_level_deep_without_int_for_float() -> None:
    case = _case({"requiredEquals": {"city": "Paris", "nights": 3, "coords": [48.5, 2.0]}})
    assert _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "coords": [48.5, 2.0]}))).passed
    # BFCL converts an int to a float only at the top level: an int inside a float list fails its
    # nested type check (type_error:nested), and the variable rule does not rescue it
    verdict = _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "coords": [48.5, 2]})))
    assert not verdict.passed
    assert "coords: [48.5, 2] is not an array of float (nested type check)" in verdict.reasons
    assert not _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "coords": [48.5, 2.5]}))).passed
    assert check_type([1, 2], [[1, 2]], list, int) == TypeCheck(True, False)
    assert check_type([1.0, 2.0], [[1, 2]], list, int) == TypeCheck(False)
    # BFCL's own example: integer coefficients for an array of floats
    assert not check_type([6, -3, 2, -1, 1], [[6.0, -3.0, 2.0, -1.0, 1.0]], list, float).valid
    assert not check_type([1.5], None, list, int).valid  # no possible answer: item types are exact
    assert check_type([1.5], ["", "x"], list, int).valid  # non-list answers skip the item check
    # a mixed list where strings are expected fails the item check, even when it is the accepted value
    stops = _case({"requiredEquals": {"city": "Paris", "nights": 3, "stops": ["Lyon", 1]}})
    assert not _bfcl(stops, _calls(_call({"city": "Paris", "nights": 3, "stops": ["Lyon", 1]}))).passed


def test_dicts_compared_one_level_deep_with_optional_keys() -> None:
    accepted = [{"beds": 2, "view": "Sea side"}, {"beds": 2}]
    case = _case({"requiredEquals": {"city": "Paris", "nights": 3}, "oneOf": {"room": accepted}})
    ok = [{"beds": 2, "view": "seaside"}, {"beds": 2}]
    bad = [{"beds": 2, "view": "mountain"}, {"beds": 2, "floor": 3}, {"view": "sea side"}, {"beds": 2.5}]
    for room in ok:
        assert _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "room": room}))).passed, room
    for room in bad:
        assert not _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "room": room}))).passed, room
    per_key = [{"beds": [1, 2], "view": ["sea", ""]}]
    assert dict_matches({"beds": 1}, per_key) and dict_matches({"beds": 2, "view": "SEA"}, per_key)
    assert not dict_matches({"view": "sea"}, per_key) and not dict_matches({"beds": 3}, per_key)
    assert not dict_matches({"beds": 1}, [""])  # "" is not an accepted object


def test_list_of_dicts_compared_in_order() -> None:
    guests = [{"name": "Ann", "age": 30}, {"name": "Bo", "age": 5}]
    case = _case({"requiredEquals": {"city": "Paris", "nights": 3, "guests": guests}})
    same = [{"name": "ann", "age": 30}, {"name": "BO", "age": 5}]
    assert _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "guests": same}))).passed
    swapped = list(reversed(guests))
    assert not _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "guests": swapped}))).passed
    assert not dict_list_matches([{"a": 1}], [[{"a": [1]}, {"a": [2]}]])
    assert dict_list_matches([{"a": 1}, {"a": 2}], [[{"a": [1]}, {"a": [2, 3]}]])


def test_empty_string_marks_an_optional_parameter() -> None:
    case = _case(
        {
            "requiredEquals": {"city": "Paris", "nights": 3},
            "optional": ["budget"],
            "constraints": {"budget": {"enum": [500]}},
        }
    )
    assert _bfcl(case, _calls(_call({"city": "Paris", "nights": 3}))).passed
    assert _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "budget": 500}))).passed
    assert not _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "budget": 600}))).passed
    leave_out = _case(
        {
            "requiredEquals": {"city": "Paris", "nights": 3},
            "optional": ["notes"],
            "constraints": {"notes": {"enum": [""]}},
        }
    )
    assert _bfcl(leave_out, _calls(_call({"city": "Paris", "nights": 3}))).passed
    assert not _bfcl(leave_out, _calls(_call({"city": "Paris", "nights": 3, "notes": "x"}))).passed


def test_any_type_expects_a_string_unless_the_answer_says_otherwise() -> None:
    assert python_type({}) is str
    case = _case({"requiredEquals": {"city": "Paris", "nights": 3, "notes": "My Data"}})
    assert _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "notes": "my_data"}))).passed
    assert not _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "notes": ["my data"]}))).passed
    variable = _case({"requiredEquals": {"city": "Paris", "nights": 3, "notes": 7}})
    assert _bfcl(variable, _calls(_call({"city": "Paris", "nights": 3, "notes": 7}))).passed
    assert not _bfcl(variable, _calls(_call({"city": "Paris", "nights": 3, "notes": 8}))).passed


def test_answer_parameter_missing_from_call_fails() -> None:
    problems = check_arguments(
        {"city": "Paris"}, TOOL["parameters"], {"city": ["Paris"], "nights": [3], "budget": [9.0]}
    )
    assert set(problems.missing) == {"nights", "budget"} and not problems.ok
    assert check_arguments({"city": "x", "nights": 1}, TOOL["parameters"], None).ok  # no answer: any values
    assert not check_arguments(["Paris"], TOOL["parameters"], None).ok


def test_one_call_categories_need_exactly_one_call() -> None:
    good = _call({"city": "Paris", "nights": 3})
    verdict = _bfcl(_case(BASE), _calls(good, {**good, "id": "c1"}))
    assert not verdict.passed and verdict.decision == "extra_calls"
    text = _bfcl(_case(BASE), {"kind": "text", "text": "Which city?"})
    assert not text.passed and text.decision == "unnecessary_clarification"
    unparsed = {
        "id": "c0",
        "name": "book_trip",
        "arguments": None,
        "raw_arguments": "{",
        "parse_error": "bad",
    }
    assert not _bfcl(_case(BASE), _calls(unparsed)).passed


def _parallel_case(*calls: dict[str, Any], order: str = "any") -> dict[str, Any]:
    return {
        "id": "p-1",
        "prompt": "Book both.",
        "tools": [TOOL],
        "expected": {
            "kind": "tools",
            "order": order,
            "calls": [{"name": "book_trip", "arguments": a} for a in calls],
        },
    }


def test_parallel_calls_matched_one_to_one_in_any_order() -> None:
    paris = {"requiredEquals": {"city": "Paris", "nights": 3}}
    rome = {"requiredEquals": {"city": "Rome", "nights": 2}}
    case = _parallel_case(paris, rome)
    made = [_call({"city": "rome", "nights": 2}), _call({"city": "Paris", "nights": 3}, index=1)]
    assert _bfcl(case, _calls(*made)).passed
    twice = [_call({"city": "Paris", "nights": 3}), _call({"city": "Paris", "nights": 3}, index=1)]
    duplicate = _bfcl(case, _calls(*twice))
    assert not duplicate.passed and duplicate.decision == "correct_call"
    assert any("no call matches expected call 1" in r for r in duplicate.reasons)
    fewer = _bfcl(case, _calls(made[0]))
    assert not fewer.passed and fewer.decision == "missed_call"
    more = _bfcl(case, _calls(*made, _call({"city": "Oslo", "nights": 1}, index=2)))
    assert not more.passed and more.decision == "extra_calls"
    misnamed = _bfcl(case, _calls(made[0], _call({"city": "Paris", "nights": 3}, name="book_trips", index=1)))
    assert not misnamed.passed and misnamed.decision == "wrong_tool"
    strict_order = _parallel_case(paris, rome, order="strict")
    assert not _bfcl(strict_order, _calls(*made)).passed
    assert _bfcl(strict_order, _calls(*reversed(made))).passed


def test_parallel_matching_is_greedy_like_bfcl() -> None:
    either = {"requiredEquals": {"nights": 3}, "oneOf": {"city": ["Paris", "Rome"]}}
    rome_only = {"requiredEquals": {"city": "Rome", "nights": 3}}
    case = _parallel_case(either, rome_only)
    rome_first = [_call({"city": "Rome", "nights": 3}), _call({"city": "Paris", "nights": 3}, index=1)]
    # expected call 0 takes the first call that satisfies it (Rome), leaving Paris for "Rome only"
    assert not _bfcl(case, _calls(*rome_first)).passed
    assert _strict(case, _calls(*rome_first)).passed
    assert _bfcl(case, _calls(*reversed(rome_first))).passed


def _text_case(kind: str = "text") -> dict[str, Any]:
    expected: dict[str, Any] = {"kind": kind}
    if kind == "clarification":
        expected.update(missing=["city"], name="book_trip")
    return {"id": "i-1", "prompt": "Tell me a joke.", "tools": [TOOL], "expected": expected}


def test_irrelevance_passes_without_a_decodable_call() -> None:
    assert _bfcl(_text_case(), {"kind": "text", "text": "No tool fits."}).passed
    assert _bfcl(_text_case(), {"kind": "refusal", "text": "no"}).passed
    called = _bfcl(_text_case(), _calls(_call({"city": "Paris", "nights": 3})))
    assert not called.passed and called.decision == "unexpected_call"
    unparsed = {
        "id": "c0",
        "name": "book_trip",
        "arguments": None,
        "raw_arguments": "{",
        "parse_error": "bad",
    }
    undecodable = _bfcl(_text_case(), _calls(unparsed))
    assert undecodable.passed and undecodable.decision == "correct_abstention"
    asked = _bfcl(_text_case("clarification"), {"kind": "text", "text": "Which city?"})
    assert asked.passed and asked.decision == "correct_clarification"
    assert not _bfcl(_text_case("clarification"), _calls(_call({"city": "Paris", "nights": 3}))).passed


def test_provider_errors_are_not_scored_and_refusals_fail_calls() -> None:
    error = {"kind": "provider_error", "code": "timeout", "message": "slow", "status": None}
    verdict = grade(_case(BASE), error, None, profile="bfcl", anomalies=["late"])
    assert verdict.decision == "not_scored" and not verdict.passed and verdict.anomalies == ["late"]
    refusal = _bfcl(_case(BASE), {"kind": "refusal", "text": "no"})
    assert refusal.decision == "refusal" and not refusal.passed


def test_schema_validity_is_reported_but_does_not_decide() -> None:
    case = _case(
        {
            "requiredEquals": {"city": "Paris", "nights": 3},
            "optional": ["notes"],
            "constraints": {"notes": {"enum": ["a"]}},
        }
    )
    verdict = _bfcl(case, _calls(_call({"city": "Paris", "nights": 3, "notes": "A"})))
    assert verdict.passed and verdict.schema_valid is True
    strict_only = _case({"requiredEquals": {"city": "Paris", "nights": 3}})
    loose = _bfcl(strict_only, _calls(_call({"city": "PARIS", "nights": 3})))
    assert loose.passed and not _strict(strict_only, _calls(_call({"city": "PARIS", "nights": 3}))).passed
