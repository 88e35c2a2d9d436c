"""The keyword checkers count only their own keyword family's errors, against the original schema."""

from __future__ import annotations

from typing import Any

import pytest

from fcbench.compat.checks import KeywordValidator, check_call
from fcbench.compat.probes import KeywordProbe, build_plan, load_probes
from fcbench.grading.key import turn_key
from fcbench.suite.loader import load_suite

TOOLS = {t.name: t for t in load_suite("core").tool_sets["compatibility"]}
PROBES = {p.id: p for p in load_probes().keyword_probes}


def check(probe_id: str, arguments: Any, parse_error: str | None = None) -> tuple[bool, list[str], bool]:
    probe = PROBES[probe_id]
    call = {"name": probe.tool, "arguments": arguments, "raw_arguments": None, "parse_error": parse_error}
    result = check_call(probe, TOOLS[probe.tool], call, KeywordValidator())
    return result.honoured, result.violations, result.omitted


@pytest.mark.parametrize(
    ("probe_id", "arguments", "honoured"),
    [
        ("pattern", {"sku": "AB-1234"}, True),
        ("pattern", {"sku": "ab-1234"}, False),
        ("pattern", {"sku": "AB-1234", "extra": 1}, True),  # additionalProperties is not this probe's family
        ("format", {"email": "jane@example.com", "date": "2025-02-28"}, True),
        ("format", {"email": "jane at example dot com", "date": "2025-02-28"}, False),
        ("format", {"email": "jane@example.com", "date": "2025-02-31"}, False),
        ("min-max", {"percent": 50, "quantity": 1}, True),
        ("min-max", {"percent": 75, "quantity": 1}, False),
        ("min-max", {"percent": 0, "quantity": 1}, True),  # exclusiveMinimum belongs to another probe
        ("exclusive-min", {"percent": 0, "quantity": 1}, False),
        ("exclusive-min", {"percent": 10, "quantity": 100}, False),
        ("string-length", {"message": "Hello there"}, True),
        ("string-length", {"message": "Hi"}, False),
        ("enum-nonstring", {"size": 5, "fragile": True}, True),
        ("enum-nonstring", {"size": "5", "fragile": True}, False),
        ("enum-nonstring", {"size": 5, "fragile": 1}, False),
        ("const", {"confirm": True, "version": "v2", "action": "hold"}, True),
        ("const", {"confirm": False, "version": "v2", "action": "hold"}, False),
        ("any-of", {"customer": 7}, True),
        ("any-of", {"customer": 0}, False),
        ("one-of", {"channel": {"kind": "sms", "phone": "+15550100"}}, True),
        ("one-of", {"channel": {"kind": "sms", "phone": "555-0100"}}, False),
        ("all-of", {"name": "Jane", "zip": "10001"}, True),
        ("all-of", {"name": "Jane"}, False),
        ("nullable", {"order_id": "ORD-104821", "note": None}, True),
        ("nullable", {"order_id": "ORD-104821"}, False),  # left out instead of null
        ("nullable", {"note": None}, True),  # the missing order_id is not this probe's business
        ("ref-defs", {"billing": {"street": "1 Main", "city": "X", "country_code": "US"}}, True),
        ("ref-defs", {"billing": {"street": "1 Main", "city": "X", "country_code": "us"}}, False),
        ("nested-object", {"parcel": {"weight_grams": 2, "dimensions": {"length_cm": 1}}}, False),
        ("nested-object", {}, True),
        ("array-of-objects", {"lines": [{"sku": "A", "quantity": 0}]}, False),
        ("array-of-objects", {"lines": [{"sku": "A", "quantity": 1}], "tags": ["x", "x"]}, False),
        ("additional-properties", {"counts": {"BER": 3}}, True),
        ("additional-properties", {"counts": {"BER": -3}}, False),
        ("additional-properties", {"counts": {}, "note": "urgent"}, False),
        ("default", {}, True),
        ("default", {"limit": 10, "include_closed": False}, True),
        ("default", {"include_closed": True}, False),
        ("default", {"limit": 10.0}, True),  # the default's value, written as JSON allows (one JSON equality)
        ("default", {"include_closed": 0}, False),  # 0 is not false
        ("long-description", {"summary": "x" * 20, "priority": "urgent", "channel": "chat"}, True),
        ("long-description", {"summary": "x" * 20, "priority": "urgent", "channel": "phone"}, False),
        ("long-description", {"summary": "x" * 20, "priority": "urgent"}, False),
        ("strict-schema", {"postal_code": "02139", "date": "d", "window": None}, True),
        ("strict-schema", {"postal_code": "02139", "date": "d", "window": "evening"}, False),
        ("strict-schema", {"postal_code": "02139", "date": "d"}, False),
    ],
)
def test_each_probe_judges_its_keyword(probe_id: str, arguments: Any, honoured: bool) -> None:
    assert check(probe_id, arguments)[0] is honoured


def test_violations_name_the_keyword_and_the_path() -> None:
    _, violations, _ = check("ref-defs", {"billing": {"street": "1", "city": "X", "country_code": "us"}})
    assert violations == ["billing.country_code: 'us' does not match '^[A-Z]{2}$' [pattern]"]
    _, violations, _ = check("nullable", {"order_id": "ORD-104821"})
    assert violations == ["note: 'note' is a required property [required]"]


def test_unparsed_or_non_object_arguments_are_violations() -> None:
    honoured, violations, _ = check("pattern", None, parse_error="Expecting value")
    assert not honoured and "not valid JSON" in violations[0]
    honoured, violations, _ = check("pattern", ["AB-1234"])
    assert not honoured and "not an object" in violations[0]


def test_leaving_every_probed_value_out_is_flagged() -> None:
    assert check("pattern", {}) == (True, [], True)
    assert check("pattern", {"sku": "AB-1234"})[2] is False


def test_every_probe_targets_a_real_tool_and_covers_the_brief() -> None:
    assert all(p.tool in TOOLS for p in PROBES.values())
    families = {p.keyword for p in PROBES.values()}
    for family in (
        "pattern",
        "format",
        "minimum/maximum",
        "minLength/maxLength",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref/$defs",
        "additionalProperties",
        "default",
        "long description",
    ):
        assert family in families
    plan = build_plan(None, "both")
    assert {r.strict for r in plan.requests.values() if r.keyword} == {False, True}
    assert len(plan.suite.cases) == len(plan.requests)


def test_a_probe_must_check_something() -> None:
    with pytest.raises(ValueError, match="checks nothing"):
        KeywordProbe(id="x", keyword="x", tool="probe_pattern", prompt="p")


def test_stream_turns_compare_calls_not_formatting() -> None:
    a = {"kind": "tool_calls", "calls": [{"name": "t", "arguments": {"a": 1, "b": 2}, "parse_error": None}]}
    b = {"kind": "tool_calls", "calls": [{"name": "t", "arguments": {"b": 2, "a": 1.0}, "parse_error": None}]}
    c = {"kind": "tool_calls", "calls": [{"name": "t", "arguments": {"a": "1", "b": 2}, "parse_error": None}]}
    assert turn_key(a) == turn_key(b) != turn_key(c)
    assert turn_key({"kind": "text", "text": "x"}) == turn_key({"kind": "text", "text": "y"})
    assert turn_key({"kind": "text", "text": "x"}) != turn_key({"kind": "refusal", "text": "x"})
