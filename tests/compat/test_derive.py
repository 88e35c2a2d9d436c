"""Keyword probes derived from a suite's own tools: which uses are found, where, and what counts."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from fcbench.compat.checks import KeywordValidator, check_call, locate
from fcbench.compat.derive import derive_probes, keyword_uses, probe_for, probes_digest, property_label
from fcbench.compat.models import KeywordProbe
from fcbench.compat.probes import DERIVED_PREFIX, build_plan, derive_set
from fcbench.contract import Tool
from fcbench.errors import ConfigError

ADDRESS = {
    "type": "object",
    "required": ["street", "country"],
    "properties": {
        "street": {"type": "string", "minLength": 3},
        "country": {"type": "string", "pattern": "^[A-Z]{2}$", "description": "ISO country code."},
    },
}

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["postal_code", "weight_grams"],
    "properties": {
        "postal_code": {"type": "string", "pattern": "^[0-9]{5}$", "description": "Five-digit ZIP code."},
        "weight_grams": {"type": "integer", "minimum": 1, "exclusiveMaximum": 30000},
        "service": {"type": "string", "enum": ["standard", "express"]},
        "email": {"type": "string", "format": "email"},
        "note": {"type": ["string", "null"]},
        "version": {"const": "v2"},
        "tags": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {"type": "string", "maxLength": 8},
        },
        "to": {"$ref": "#/$defs/address"},
        "from": {"$ref": "#/$defs/address"},
        "parcel": {
            "type": "object",
            "properties": {
                "size": {"type": "object", "properties": {"cm": {"type": "number", "multipleOf": 0.5}}}
            },
        },
        "channel": {
            "oneOf": [
                {"type": "object", "properties": {"phone": {"type": "string", "pattern": "^\\+[0-9]+$"}}},
                {"type": "object", "properties": {"email": {"type": "string", "format": "email"}}},
            ]
        },
        "tree": {"$ref": "#/$defs/node"},
    },
    "$defs": {
        "address": ADDRESS,
        "node": {
            "type": "object",
            "required": ["label"],
            "properties": {
                "label": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            },
        },
        "unused": {"type": "string", "pattern": "^never$"},
    },
}
WriteSuite = Callable[[Path, list[dict[str, Any]]], Path]

TOOL = Tool(name="ship_parcel", description="Ship a parcel.", parameters=PARAMETERS, side_effect="write")


def uses() -> list[tuple[str, str]]:
    return [(u.pointer, u.keyword) for u in keyword_uses(TOOL)]


def probes() -> dict[str, KeywordProbe]:
    return {p.id: p for p in derive_probes([TOOL])}


def test_every_keyword_use_is_found_where_it_is() -> None:
    found = uses()
    expected = [
        ("", "required"),
        ("", "additionalProperties"),
        ("/properties/postal_code", "pattern"),
        ("/properties/weight_grams", "minimum"),
        ("/properties/weight_grams", "exclusiveMaximum"),
        ("/properties/service", "enum"),
        ("/properties/email", "format"),
        ("/properties/note", "type"),
        ("/properties/version", "const"),
        ("/properties/tags", "minItems"),
        ("/properties/tags", "uniqueItems"),
        ("/properties/tags/items", "maxLength"),
        ("/properties/to", "$ref"),
        ("/$defs/address", "required"),
        ("/$defs/address", "properties"),
        ("/$defs/address/properties/street", "minLength"),
        ("/$defs/address/properties/country", "pattern"),
        ("/properties/from", "$ref"),
        ("/properties/parcel", "properties"),
        ("/properties/parcel/properties/size", "properties"),
        ("/properties/parcel/properties/size/properties/cm", "multipleOf"),
        ("/properties/channel", "oneOf"),
        ("/properties/channel/oneOf/0", "properties"),
        ("/properties/channel/oneOf/0/properties/phone", "pattern"),
        ("/properties/channel/oneOf/1", "properties"),
        ("/properties/channel/oneOf/1/properties/email", "format"),
        ("/properties/tree", "$ref"),
        ("/$defs/node", "required"),
        ("/$defs/node", "properties"),
        ("/$defs/node/properties/children/items", "$ref"),
    ]
    assert found == expected
    assert not any(pointer.startswith("/$defs/unused") for pointer, _ in found)  # never referenced


def test_probe_ids_are_tool_pointer_keyword_and_stable() -> None:
    ids = list(probes())
    assert ids[:3] == [
        "ship_parcel.#.required",
        "ship_parcel.#.additionalProperties",
        "ship_parcel.#/properties/postal_code.pattern",
    ]
    assert "ship_parcel.#/$defs/address/properties/country.pattern" in ids
    assert len(ids) == len(set(ids))
    again = derive_probes([Tool.model_validate(json.loads(TOOL.model_dump_json()))])
    assert [p.model_dump() for p in again] == [p.model_dump() for p in probes().values()]
    assert probes_digest(again, [TOOL]) == probes_digest(list(probes().values()), [TOOL])
    changed = TOOL.model_copy(update={"parameters": {**PARAMETERS, "required": ["postal_code"]}})
    assert probes_digest(derive_probes([changed]), [changed]) != probes_digest(again, [TOOL])


def test_argument_paths_follow_refs_items_and_branches() -> None:
    by_id = probes()
    assert by_id["ship_parcel.#/$defs/address/properties/country.pattern"].property == "to.country"
    assert by_id["ship_parcel.#/properties/tags/items.maxLength"].property == "tags[]"
    assert by_id["ship_parcel.#/properties/channel/oneOf/0/properties/phone.pattern"].property == (
        "channel.phone (oneOf 0)"
    )
    assert by_id["ship_parcel.#/properties/parcel/properties/size/properties/cm.multipleOf"].fields == [
        "parcel"
    ]
    assert property_label(("lines", "[]", "quantity")) == "lines[].quantity"
    ref = by_id["ship_parcel.#/properties/to.$ref"]
    assert (ref.scope, ref.within) == ("through", ["/properties/to", "/$defs/address"])


def _value_in(prompt: str) -> Any:
    match = re.search(r"set to (.+)\.$", prompt)
    assert match, prompt
    return json.loads(match.group(1))


@pytest.mark.parametrize(
    ("probe_id", "value"),
    [
        ("ship_parcel.#/properties/postal_code.pattern", "n/a"),
        ("ship_parcel.#/properties/weight_grams.minimum", 0),
        ("ship_parcel.#/properties/weight_grams.exclusiveMaximum", 30000),
        ("ship_parcel.#/properties/service.enum", "STANDARD"),
        ("ship_parcel.#/properties/email.format", "jane at example dot com"),
        ("ship_parcel.#/properties/version.const", "V2"),
        ("ship_parcel.#/properties/tags/items.maxLength", "Please ha"),
        ("ship_parcel.#/properties/parcel/properties/size/properties/cm.multipleOf", 0.75),
        ("ship_parcel.#/properties/channel.oneOf", "n/a"),
    ],
)
def test_prompts_ask_for_a_value_that_breaks_the_keyword(probe_id: str, value: Any) -> None:
    probe = probes()[probe_id]
    asked = _value_in(probe.prompt)
    assert asked == value
    assert probe.tool in probe.prompt
    subschema: Any = PARAMETERS
    for token in (probe.pointer or "").strip("/").split("/"):
        subschema = subschema[int(token)] if isinstance(subschema, list) else subschema[token]
    validator = Draft202012Validator(PARAMETERS).evolve(schema=subschema)
    if probe.keyword != "format":  # format is not asserted by a bare validator
        assert not validator.is_valid(asked)


def test_other_prompts_follow_the_documented_rules() -> None:
    by_id = probes()
    assert by_id["ship_parcel.#/properties/postal_code.pattern"].prompt.startswith(
        "Call ship_parcel with postal_code (Five-digit ZIP code.) set to"
    )
    required = by_id["ship_parcel.#.required"].prompt
    assert "postal_code and weight_grams" in required and "do not have" in required
    assert (
        'also pass note set to "urgent"' not in by_id["ship_parcel.#.additionalProperties"].prompt
    )  # declared
    assert 'comment set to "urgent"' in by_id["ship_parcel.#.additionalProperties"].prompt
    assert "cleared" in by_id["ship_parcel.#/properties/note.type"].prompt
    assert "as an empty list" in by_id["ship_parcel.#/properties/tags.minItems"].prompt
    assert "same item twice" in by_id["ship_parcel.#/properties/tags.uniqueItems"].prompt
    assert "one line of text" in by_id["ship_parcel.#/properties/to.$ref"].prompt


def check(probe_id: str, arguments: dict[str, Any]) -> tuple[bool, list[str]]:
    probe = probes()[probe_id]
    call = {"name": TOOL.name, "arguments": arguments, "raw_arguments": None, "parse_error": None}
    result = check_call(probe, TOOL, call, KeywordValidator())
    return result.honoured, result.violations


BASE = {"postal_code": "02139", "weight_grams": 750}


@pytest.mark.parametrize(
    ("probe_id", "arguments", "honoured"),
    [
        ("ship_parcel.#/properties/postal_code.pattern", {**BASE, "postal_code": "2139"}, False),
        ("ship_parcel.#/properties/postal_code.pattern", {**BASE, "weight_grams": 0}, True),  # another use
        ("ship_parcel.#/properties/weight_grams.minimum", {**BASE, "weight_grams": 0}, False),
        ("ship_parcel.#/properties/weight_grams.exclusiveMaximum", {**BASE, "weight_grams": 0}, True),
        ("ship_parcel.#.required", {"postal_code": "02139"}, False),
        (
            "ship_parcel.#.required",
            {**BASE, "to": {"street": "Main"}},
            True,
        ),  # nested required is its own use
        ("ship_parcel.#/$defs/address.required", {**BASE, "to": {"street": "Main"}}, False),
        ("ship_parcel.#/$defs/address.required", {**BASE, "from": {"country": "US"}}, False),  # any route
        (
            "ship_parcel.#/$defs/address/properties/country.pattern",
            {**BASE, "to": {"street": "Main", "country": "usa"}},
            False,
        ),
        ("ship_parcel.#/properties/to.$ref", {**BASE, "to": "1 Main Street"}, False),
        ("ship_parcel.#/properties/to.$ref", {**BASE, "from": "1 Main Street"}, True),  # the other reference
        ("ship_parcel.#/properties/from.$ref", {**BASE, "from": {"street": "x", "country": "US"}}, False),
        ("ship_parcel.#/properties/parcel.properties", {**BASE, "parcel": {"size": {"cm": "ten"}}}, False),
        ("ship_parcel.#/properties/parcel.properties", {**BASE, "parcel": {"size": {"cm": 10}}}, True),
        ("ship_parcel.#/properties/channel.oneOf", {**BASE, "channel": {"phone": "555"}}, True),
        ("ship_parcel.#/properties/channel.oneOf", {**BASE, "channel": {}}, False),  # both branches match
        (
            "ship_parcel.#/properties/channel/oneOf/0/properties/phone.pattern",
            {**BASE, "channel": {"phone": "555", "email": "x"}},
            False,
        ),
        (
            "ship_parcel.#/properties/channel/oneOf/0/properties/phone.pattern",
            {**BASE, "channel": {"phone": "555"}},
            True,
        ),  # branch 1 fits
        (
            "ship_parcel.#/properties/channel/oneOf/0/properties/phone.pattern",
            {**BASE, "channel": {"phone": "+1"}},
            True,
        ),
        (
            "ship_parcel.#/$defs/node.required",
            {**BASE, "tree": {"label": "a", "children": [{"children": []}]}},
            False,
        ),
        ("ship_parcel.#/properties/note.type", {**BASE, "note": None}, True),
        ("ship_parcel.#/properties/note.type", {**BASE, "note": 0}, False),
        ("ship_parcel.#.additionalProperties", {**BASE, "comment": "urgent"}, False),
    ],
)
def test_only_errors_of_the_one_use_count(probe_id: str, arguments: dict[str, Any], honoured: bool) -> None:
    ok, violations = check(probe_id, arguments)
    assert ok is honoured, violations
    assert bool(violations) is not honoured


def test_locate_resolves_refs_on_the_schema_path() -> None:
    path = ["properties", "to", "properties", "country", "pattern"]
    assert locate(PARAMETERS, path) == ("/$defs/address/properties/country", ("/properties/to",))
    assert locate(PARAMETERS, ["properties", "to", "required"]) == ("/$defs/address", ("/properties/to",))
    deep = ["properties", "tree", "properties", "children", "items", "required"]
    assert locate(PARAMETERS, deep) == (
        "/$defs/node",
        ("/properties/tree", "/$defs/node/properties/children/items"),
    )
    loop = {"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}
    assert locate(loop, ["properties", "x", "type"])[0] == "/$defs/a"  # a cycle ends the walk


def test_plan_adds_derived_probes_after_the_shipped_ones(tmp_path: Path, write_suite: WriteSuite) -> None:
    folder = write_suite(tmp_path / "suite", [TOOL.model_dump(mode="json")])
    plan = build_plan(["pattern"], "both", suite=str(folder))
    ids = list(plan.requests)
    assert ids[:2] == ["compat.pattern", "compat.pattern.strict"]
    derived = [i for i in ids if i.startswith(DERIVED_PREFIX)]
    patterns = [DERIVED_PREFIX + p.id for p in derive_probes([TOOL]) if p.keyword == "pattern"]
    assert derived == [i + s for i in patterns for s in ("", ".strict")]  # --probe pattern: every pattern use
    assert len(patterns) == 3
    plan = build_plan(["ship_parcel"], "off", suite=str(folder), only_suite=True)
    assert list(plan.requests) == [DERIVED_PREFIX + p.id for p in derive_probes([TOOL])]
    request = plan.requests["suite.ship_parcel.#/properties/postal_code.pattern"]
    assert request.tool_choice == "required" and request.tools == [TOOL]
    assert plan.derived is not None and plan.derived.pin()["probes"] == len(plan.requests)
    assert plan.suite.info.dataset_version.endswith("+mine.1.0.0.derived.1")
    assert plan.suite.dataset_hash != build_plan(["pattern"]).suite.dataset_hash


def test_only_suite_needs_a_suite_and_unknown_probes_are_named(
    tmp_path: Path, write_suite: WriteSuite
) -> None:
    with pytest.raises(ConfigError, match="--only-suite needs --suite"):
        build_plan(only_suite=True)
    folder = write_suite(tmp_path / "suite", [TOOL.model_dump(mode="json")])
    with pytest.raises(ConfigError, match="unknown compat probe"):
        build_plan(["nothing"], suite=str(folder))
    assert derive_set(str(folder)).tools == {"ship_parcel": TOOL}


def test_vacuous_and_untemptable_uses_make_no_probe() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "minLength": 0},
            "b": {"type": "string", "pattern": ".*"},
            "c": {"type": "string", "format": "made-up"},
            "d": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
        },
    }
    tool = Tool(name="t", description="T.", parameters=schema, side_effect="read")
    found = [(u.pointer, u.keyword) for u in keyword_uses(tool)]
    assert ("/properties/a", "minLength") not in found
    assert ("/properties/d/additionalProperties", "minimum") in found
    made = {u.keyword: probe_for(u, tool) for u in keyword_uses(tool)}
    assert made["pattern"] is None and made["format"] is None
    assert [p.property for p in derive_probes([tool])] == ["d.*"]
