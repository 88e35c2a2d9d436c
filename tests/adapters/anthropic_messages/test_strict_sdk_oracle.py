"""The strict ``anthropic-messages`` transform sends exactly what the official SDK's transform makes.

The oracle is ``anthropic.transform_schema`` of the installed SDK (a test dependency only; fcbench
never imports it). Its behaviour is pinned to SDK major version 2: on another major version the
module is skipped, since the expected schemas would be another version's. Where the SDK raises,
fcbench must refuse the same schema with a :class:`~fcbench.errors.CaseError`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcbench.adapters.anthropic_messages.schema import transform_schema
from fcbench.contract import SchemaChange, Tool
from fcbench.errors import CaseError

anthropic = pytest.importorskip("anthropic")
PINNED_MAJOR = "2"
if anthropic.__version__.split(".")[0] != PINNED_MAJOR:
    pytest.skip(
        f"the strict transform is pinned to anthropic SDK {PINNED_MAJOR}.x; "
        f"{anthropic.__version__} is installed",
        allow_module_level=True,
    )
sdk_transform = anthropic.transform_schema

BUILTIN = Path(__file__).resolve().parents[3] / "src" / "fcbench" / "suite" / "builtin"
SDK_REFUSALS = (ValueError, TypeError, AssertionError, AttributeError)
"""What the SDK's transform raises on a schema it cannot make strict."""


def builtin_tools() -> list[tuple[str, Tool]]:
    """Every tool of every built-in suite's tool files, with an id ``suite:name``."""
    found: list[tuple[str, Tool]] = []
    for path in sorted(BUILTIN.glob("*/tools.*.json")):
        for data in json.loads(path.read_text(encoding="utf-8"))["tools"]:
            tool = Tool.model_validate(data)
            found.append((f"{path.parent.name}:{tool.name}", tool))
    return found


def sdk_schema(parameters: dict[str, Any]) -> dict[str, Any] | None:
    """The SDK's strict schema of ``parameters``, or None when the SDK refuses it."""
    try:
        result: dict[str, Any] = sdk_transform(copy.deepcopy(parameters))
    except SDK_REFUSALS:
        return None
    return result


def fcbench_schema(tool: Tool) -> tuple[dict[str, Any] | None, list[SchemaChange]]:
    """fcbench's strict schema of ``tool`` and its changes, or (None, []) when it refuses."""
    try:
        return transform_schema(tool, True)
    except CaseError:
        return None, []


def node_at(schema: Any, path: str) -> Any:
    """The subschema at a JSON pointer."""
    for raw in path.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        schema = schema[int(token)] if isinstance(schema, list) else schema[token]
    return schema


def assert_matches_sdk(tool: Tool) -> None:
    """fcbench's strict schema equals the SDK's (or both refuse), and the changes account for it."""
    expected = sdk_schema(tool.parameters)
    schema, changes = fcbench_schema(tool)
    assert schema == expected
    if schema is None:
        return
    assert bool(changes) == (schema != tool.parameters)
    assert {c.tool for c in changes} <= {tool.name}
    for change in changes:
        if change.action == "moved":
            assert f"{change.keyword}: " in node_at(schema, change.path)["description"], change


BUILTIN_TOOLS = builtin_tools()


def test_every_builtin_suite_has_tools() -> None:
    assert {key.split(":")[0] for key, _ in BUILTIN_TOOLS} == {
        p.name for p in BUILTIN.iterdir() if p.is_dir()
    }


@pytest.mark.parametrize("tool", [t for _, t in BUILTIN_TOOLS], ids=[k for k, _ in BUILTIN_TOOLS])
def test_builtin_tool_matches_sdk(tool: Tool) -> None:
    assert_matches_sdk(tool)


def test_refusals_name_the_tool_and_node() -> None:
    tool = Tool(name="t", parameters={"type": "object", "properties": {"note": {"type": ["string", "null"]}}})
    with pytest.raises(CaseError, match=r"'t'.*/properties/note"):
        transform_schema(tool, True)
    assert sdk_schema(tool.parameters) is None


def test_records_what_the_sdk_changes() -> None:
    params = {
        "type": "object",
        "properties": {
            "limit": {"type": "integer", "minimum": 1, "default": 5, "description": "Max."},
            "status": {"type": "string", "enum": ["a", "b"]},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            "kind": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "where": {"$ref": "#/$defs/Where", "description": "Kept.", "title": "Dropped"},
        },
        "$defs": {"Where": {"type": "object"}},
    }
    tool = Tool(name="t", parameters=params)
    schema, changes = transform_schema(tool, True)
    assert schema == sdk_schema(params)
    assert schema["properties"]["limit"]["description"] == "Max.\n\n{minimum: 1, default: 5}"
    assert schema["properties"]["where"] == {"$ref": "#/$defs/Where", "description": "Kept."}
    assert {(c.path, c.keyword, c.action) for c in changes} == {
        ("", "additionalProperties", "added"),
        ("/properties/limit", "minimum", "moved"),
        ("/properties/limit", "default", "moved"),
        ("/properties/status", "type", "removed"),
        ("/properties/tags", "minItems", "moved"),
        ("/properties/kind", "oneOf", "rewritten"),
        ("/properties/where", "title", "removed"),
        ("/$defs/Where", "properties", "added"),
        ("/$defs/Where", "additionalProperties", "added"),
    }


EDGES: list[dict[str, Any]] = [
    {"type": "object", "properties": {"a": True}},
    {"type": "object", "properties": None},
    {"type": "object", "properties": {"a": {"type": "array", "items": [{"type": "string"}]}}},
    {"type": "object", "properties": {"a": {"type": "array", "items": None, "minItems": True}}},
    {"type": "object", "$defs": None, "required": None},
    {"type": "object", "properties": {"a": {"type": "integer", "minimum": 1, "description": 5}}},
    {"type": "object", "properties": {"a": {"type": "integer", "description": 5}}},
    {"type": "object", "properties": {"a": {"type": "string", "format": ["date"]}}},
    {"type": "object", "properties": {"a": {"type": "string", "format": "", "title": None}}},
    {"type": "object", "properties": {"a": {"type": "string", "anyOf": {}}}},
    {"type": "object", "properties": {"a": {"anyOf": {}, "oneOf": [{"type": "null"}], "allOf": []}}},
    {"type": "object", "properties": {"a": {"anyOf": [True]}}},
    {"type": "object", "properties": {"a": {"type": "string", "enum": []}}},
    {"type": "object", "properties": {"a": {"type": "object", "enum": [{"k": 1}]}}},
    {"type": "object", "properties": {"a": {"type": ["object", "null"], "const": None, "properties": {}}}},
    {"type": "object", "properties": {"a": {"type": "foo"}}},
    {"type": "object", "properties": {"a": {"type": "object", "anyOf": [{"type": "null"}]}}},
    {"type": "object", "properties": {"a": {"$ref": None, "type": "string"}}},
    {"type": "object", "definitions": {"X": {"type": "string"}}, "additionalProperties": {"type": "string"}},
    {"type": "array", "items": {"type": "string"}, "properties": {}, "required": ["a"]},
]
"""Corners of the SDK's transform: refusals, nulls, non-list combinators, non-scalar literals."""


@pytest.mark.parametrize("params", EDGES, ids=[str(i) for i in range(len(EDGES))])
def test_edge_schema_matches_sdk(params: dict[str, Any]) -> None:
    assert_matches_sdk(Tool(name="edge", parameters=params))


def test_non_strict_is_unchanged() -> None:
    for _, tool in BUILTIN_TOOLS:
        assert transform_schema(tool, False) == (tool.parameters, [])


# Generated schemas ------------------------------------------------------------------------------

NAMES = st.sampled_from(["a", "b", "order_id", "x/y", "n~1"])
TEXT = st.text(alphabet="abc {}:,'\n", max_size=6)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(-2, 2, width=16), TEXT)
FORMATS = st.sampled_from(["date", "date-time", "email", "uri", "uuid", "ipv4", "regex", "int32", ""])
NUMBER_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
STRING_BOUNDS = ("minLength", "maxLength")


def _extras(keys: tuple[str, ...], values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional=dict.fromkeys(keys, values))


def _annotated(core: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """``core`` with an optional description, title and default."""
    notes = _extras(("description", "title", "default"), TEXT)
    return st.builds(lambda c, n: {**c, **n}, core, notes)


def _scalar_type() -> st.SearchStrategy[str | list[str]]:
    kinds = st.sampled_from(["string", "integer", "number", "boolean", "null"])
    nullable = kinds.map(lambda k: [k, "null"])
    return st.one_of(kinds, kinds, kinds, nullable)


LEAVES = _annotated(
    st.one_of(
        st.builds(lambda t, e: {"type": t, **e}, _scalar_type(), _extras(NUMBER_BOUNDS, st.integers(0, 9))),
        st.builds(
            lambda e, f: {"type": "string", **e, **f},
            _extras((*STRING_BOUNDS, "pattern"), st.integers(0, 9) | st.just("^[A-Z]{2}$")),
            _extras(("format",), FORMATS),
        ),
        st.builds(lambda t, e: {"type": t, "enum": e}, _scalar_type(), st.lists(SCALARS, max_size=3)),
        st.builds(lambda c: {"const": c}, SCALARS),
        st.just({}),
    )
)


def _containers(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    properties = st.dictionaries(NAMES, children, max_size=3)
    objects = st.builds(
        lambda p, r, a: {
            "type": "object",
            "properties": p,
            **({"required": sorted(p)[:r]} if r else {}),
            **a,
        },
        properties,
        st.integers(0, 2),
        _extras(("additionalProperties",), st.booleans() | children),
    )
    arrays = st.builds(
        lambda i, e: {"type": "array", "items": i, **e},
        children,
        _extras(("minItems", "maxItems", "uniqueItems"), st.integers(0, 3)),
    )
    branches = st.builds(
        lambda k, b: {k: b}, st.sampled_from(["anyOf", "oneOf"]), st.lists(children, min_size=1, max_size=3)
    )
    ref = st.builds(lambda d: {"$ref": "#/$defs/Item", **d}, _extras(("description",), TEXT))
    return _annotated(st.one_of(objects, arrays, branches)) | ref


SCHEMAS = st.recursive(LEAVES, _containers, max_leaves=8)


@st.composite
def tool_parameters(draw: st.DrawFn) -> dict[str, Any]:
    """An object schema with nested properties, and sometimes ``$defs`` for its ``$ref`` nodes."""
    properties = draw(st.dictionaries(NAMES, SCHEMAS, max_size=4))
    params: dict[str, Any] = {"type": "object", "properties": properties}
    if draw(st.booleans()):
        params["required"] = sorted(properties)[: draw(st.integers(0, len(properties)))]
    if draw(st.booleans()):
        params["$defs"] = {"Item": draw(SCHEMAS)}
    return params


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_parameters())
def test_generated_schemas_match_sdk(params: dict[str, Any]) -> None:
    assert_matches_sdk(Tool(name="generated", parameters=params))
