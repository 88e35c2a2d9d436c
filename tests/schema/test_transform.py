"""Schema transforms: every dialect rule applied, every change recorded, the input untouched.

The machinery is :mod:`fcbench.schema.transform`; each dialect's rules come from its adapter
(``fcbench.adapters.<dialect>.schema``), reached here the way a request builder reaches them.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from fcbench import adapters
from fcbench.adapters.base import wire_schema
from fcbench.adapters.gemini.schema import SCHEMA_FIELD as GEMINI_SCHEMA_FIELD
from fcbench.contract import SchemaChange, Tool
from fcbench.errors import TargetError
from fcbench.schema import transform

RICH: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "pattern": "^ORD-[0-9]{6}$", "minLength": 10},
        "status": {"type": "string", "enum": ["open", "closed"]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5},
        "when": {"type": "string", "format": "date"},
        "site": {"type": "string", "format": "uri"},
        "code": {"type": "string", "pattern": "^(?!X)[A-Z]+$"},
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "minItems": 2},
        "kind": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "address": {"$ref": "#/$defs/Address", "description": "Where to ship."},
        "meta": {"type": "object", "properties": {"note": {"type": "string"}}, "additionalProperties": True},
        "choice": {"const": "only"},
    },
    "required": ["order_id"],
    "$defs": {"Address": {"type": "object", "properties": {"zip": {"type": "string"}}, "required": ["zip"]}},
}


def _tool(parameters: dict[str, Any], name: str = "t") -> Tool:
    return Tool(name=name, description="d", parameters=parameters)


def _apply(dialect: str, tool: Tool, *, strict: bool = False) -> tuple[dict[str, Any], list[SchemaChange]]:
    """The schema the adapter of ``dialect`` sends for ``tool``, and the changes made."""
    return wire_schema(adapters.get(dialect), tool, strict)


def _at(changes: list[SchemaChange], path: str, keyword: str) -> list[SchemaChange]:
    return [c for c in changes if c.path == path and c.keyword == keyword]


def _objects(node: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every object-typed subschema, with its pointer."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        kind = node.get("type")
        if kind == "object" or (isinstance(kind, list) and "object" in kind):
            found.append((path, node))
        for key, value in node.items():
            if isinstance(value, dict):
                found += _objects(value, f"{path}/{key}")
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    found += _objects(item, f"{path}/{key}/{i}")
    return found


@pytest.mark.parametrize("dialect", sorted(adapters.BUILTIN_ADAPTERS))
@pytest.mark.parametrize("strict", [False, True])
def test_input_never_mutated_and_result_is_a_copy(dialect: str, strict: bool) -> None:
    tool = _tool(copy.deepcopy(RICH))
    before = copy.deepcopy(tool.parameters)
    schema, _ = _apply(dialect, tool, strict=strict)
    assert tool.parameters == before
    schema["properties"]["order_id"]["mutated"] = True
    assert "mutated" not in tool.parameters["properties"]["order_id"]


@pytest.mark.parametrize("dialect", ["openai-chat", "openai-responses"])
def test_openai_non_strict_only_strips_schema_keyword(dialect: str) -> None:
    schema, changes = _apply(dialect, _tool(RICH))
    expected = {k: v for k, v in RICH.items() if k != "$schema"}
    assert schema == expected
    assert [(c.path, c.keyword, c.action) for c in changes] == [("", "$schema", "removed")]


def test_openai_strict_closes_every_object_and_requires_every_property() -> None:
    schema, changes = _apply("openai-chat", _tool(RICH), strict=True)
    objects = _objects(schema)
    assert len(objects) >= 4
    for path, node in objects:
        assert node.get("additionalProperties") is False, path
        if "properties" in node:
            assert sorted(node["required"]) == sorted(node["properties"]), path
    assert _at(changes, "", "additionalProperties")[0].action == "added"
    assert _at(changes, "/properties/meta", "additionalProperties")[0].action == "rewritten"
    assert _at(changes, "", "required")[0].action == "rewritten"
    assert _at(changes, "/$defs/Address", "additionalProperties")[0].action == "added"


def test_openai_strict_makes_optional_properties_nullable_and_keeps_required_ones() -> None:
    schema, changes = _apply("openai-chat", _tool(RICH), strict=True)
    props = schema["properties"]
    assert props["order_id"]["type"] == "string"  # was required: untouched
    assert props["status"]["type"] == ["string", "null"]
    assert props["status"]["enum"] == ["open", "closed", None]
    assert props["kind"] == {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}
    assert props["choice"] == {"anyOf": [{"const": "only"}, {"type": "null"}]}
    for name in ("status", "limit", "when", "kind", "choice", "meta"):
        assert _at(changes, f"/properties/{name}", "type") or _at(changes, f"/properties/{name}", "anyOf"), (
            name
        )
    validator = Draft202012Validator(schema)
    assert validator.is_valid({name: None for name in props} | {"order_id": "ORD-000001"})
    assert not validator.is_valid({"order_id": None} | {name: None for name in props if name != "order_id"})


def test_openai_strict_drops_unsupported_keywords_and_records_each() -> None:
    schema, changes = _apply("openai-chat", _tool(RICH), strict=True)
    props = schema["properties"]
    removed = {(c.path, c.keyword) for c in changes if c.action == "removed"}
    assert ("/properties/limit", "default") in removed and "default" not in props["limit"]
    assert ("/properties/order_id", "minLength") in removed and "minLength" not in props["order_id"]
    assert ("/properties/tags", "uniqueItems") in removed and props["tags"]["minItems"] == 2
    assert ("/properties/site", "format") in removed and "format" not in props["site"]
    assert props["when"]["format"] == "date"  # a supported format stays
    assert ("/properties/code", "pattern") in removed  # lookaround
    assert props["order_id"]["pattern"] == "^ORD-[0-9]{6}$"  # a plain pattern stays
    assert props["limit"]["minimum"] == 1 and props["limit"]["maximum"] == 20
    assert ("", "$schema") in removed


def test_openai_strict_rewrites_one_of_inlines_refs_with_siblings_and_single_all_of() -> None:
    params = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/A", "description": "sibling"},
            "b": {"$ref": "#/$defs/A"},
            "c": {"allOf": [{"type": "string", "maxLength": 3}]},
            "d": {"allOf": [{"type": "string"}, {"minLength": 1}]},
        },
        "required": ["a", "b", "c", "d"],
        "$defs": {"A": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}},
    }
    schema, changes = _apply("openai-responses", _tool(params), strict=True)
    props = schema["properties"]
    assert "$ref" not in props["a"] and props["a"]["description"] == "sibling"
    assert (
        props["a"]["properties"] == {"x": {"type": "integer"}} and props["a"]["additionalProperties"] is False
    )
    assert props["b"] == {"$ref": "#/$defs/A"}  # a bare $ref is allowed
    assert props["c"] == {"type": "string"}  # inlined, then maxLength dropped
    assert "allOf" in props["d"]  # a longer allOf is left for the provider to judge
    assert _at(changes, "/properties/a", "$ref")[0].action == "rewritten"
    assert _at(changes, "/properties/c", "allOf")[0].action == "rewritten"


def test_openai_strict_does_not_inline_recursive_refs() -> None:
    params = {
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node", "description": "tree"}},
        "required": ["root"],
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node", "title": "n"}}
                },
                "required": ["children"],
            }
        },
    }
    schema, changes = _apply("openai-chat", _tool(params), strict=True)
    assert schema["properties"]["root"]["$ref"] == "#/$defs/Node"
    assert not [c for c in changes if c.keyword == "$ref"]


def test_anthropic_non_strict_is_unchanged_even_where_the_api_would_reject() -> None:
    rooted_any_of = {"anyOf": [{"type": "object"}, {"type": "null"}]}
    for params in (RICH, rooted_any_of):
        schema, changes = _apply("anthropic-messages", _tool(params))
        assert schema == params and changes == []


def test_anthropic_strict_closes_objects_and_moves_unsupported_keywords_to_description() -> None:
    schema, changes = _apply("anthropic-messages", _tool(RICH), strict=True)
    props = schema["properties"]
    for path, node in _objects(schema):
        assert node.get("additionalProperties") is False, path
    assert props["limit"] == {"type": "integer", "description": "{minimum: 1, maximum: 20, default: 5}"}
    assert props["order_id"] == {"type": "string", "description": "{pattern: ^ORD-[0-9]{6}$, minLength: 10}"}
    assert props["site"]["format"] == "uri"  # uri is supported here
    assert props["status"] == {"enum": ["open", "closed"]}  # no type beside an enum
    assert "pattern" not in props["code"]
    assert "uniqueItems" not in props["tags"] and "minItems" not in props["tags"]
    assert props["kind"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert props["address"] == {
        "$ref": "#/$defs/Address",
        "description": "Where to ship.",
    }  # with its description
    moved = {(c.path, c.keyword) for c in changes if c.action == "moved"}
    assert {
        ("", "$schema"),
        ("/properties/limit", "minimum"),
        ("/properties/limit", "default"),
        ("/properties/tags", "minItems"),
        ("/properties/code", "pattern"),
    } <= moved
    assert _at(changes, "/properties/address", "description") == []  # kept beside the $ref, unchanged
    assert schema["required"] == ["order_id"]  # optional properties stay optional


def test_anthropic_strict_keeps_an_existing_description_first() -> None:
    params = {
        "type": "object",
        "properties": {"n": {"type": "integer", "description": "Count.", "maximum": 3}},
    }
    schema, _ = _apply("anthropic-messages", _tool(params), strict=True)
    assert schema["properties"]["n"]["description"].startswith("Count.\n\n")


@pytest.mark.parametrize("strict", [False, True])
def test_gemini_sends_full_json_schema_and_records_the_move(strict: bool) -> None:
    schema, changes = _apply("gemini", _tool(RICH, name="lookup"), strict=strict)
    assert schema == RICH
    assert changes == [
        SchemaChange(tool="lookup", path="", keyword="parameters", action="moved", reason=changes[0].reason)
    ]
    assert GEMINI_SCHEMA_FIELD in changes[0].reason


def test_json_pointer_escaping_in_paths() -> None:
    params = {"type": "object", "properties": {"a/b~c": {"type": "string"}}}
    _, changes = _apply("openai-chat", _tool(params), strict=True)
    assert _at(changes, "/properties/a~1b~0c", "type")


def test_changes_name_the_tool() -> None:
    _, changes = _apply("openai-chat", _tool(RICH, name="ship"), strict=True)
    assert changes and {c.tool for c in changes} == {"ship"}


def test_unknown_dialect_is_a_target_error() -> None:
    with pytest.raises(TargetError, match="unknown dialect"):
        _apply("smoke-signals", _tool(RICH))


def test_every_builtin_adapter_brings_its_own_schema_rules() -> None:
    for dialect in adapters.BUILTIN_ADAPTERS:
        assert adapters.get(dialect).transform_schema is not None, dialect


def test_apply_rules_runs_rules_once_per_tool_and_strict() -> None:
    seen: list[tuple[str, bool]] = []

    def rules(tool: Tool, params: dict[str, Any], strict: bool) -> list[SchemaChange]:
        seen.append((tool.name, strict))
        walk = transform.Walk(tool, params)
        transform.drop(walk, params, "", "type", "test")
        return walk.changes

    tool = _tool({"type": "object", "title": "cached"}, name="cache-probe")
    first, changes = transform.apply_rules(rules, tool, strict=True)
    second, again = transform.apply_rules(rules, tool, strict=True)
    transform.apply_rules(rules, tool, strict=False)
    assert first == second == {"title": "cached"} and first is not second
    assert changes == again and changes is not again
    assert [(c.tool, c.keyword, c.action) for c in changes] == [("cache-probe", "type", "removed")]
    assert seen == [("cache-probe", True), ("cache-probe", False)]
    assert tool.parameters == {"type": "object", "title": "cached"}
