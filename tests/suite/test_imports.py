"""Tool lists in provider and MCP formats convert to the canonical tools, or fail naming file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fcbench.contract import Tool
from fcbench.errors import CaseError
from fcbench.suite.imports import import_tool_list, read_tool_list
from fcbench.suite.loader import load_suite
from fcbench.suite.reading import SuiteError

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "City name"}},
    "required": ["city"],
}
WEATHER = Tool(name="get_weather", description="Current weather.", parameters=SCHEMA)
TICKET = Tool(
    name="create_ticket",
    description="Open a ticket.",
    parameters={"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
    side_effect="write",
)

FORMATS: dict[str, tuple[Any, list[Tool]]] = {
    "openai-chat": (
        [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Current weather.",
                    "parameters": SCHEMA,
                    "strict": False,
                },
            }
        ],
        [WEATHER],
    ),
    "openai-responses": (
        [
            {
                "type": "function",
                "name": "get_weather",
                "description": "Current weather.",
                "parameters": SCHEMA,
                "strict": True,
            }
        ],
        [WEATHER],
    ),
    "anthropic": (
        {"tools": [{"name": "get_weather", "description": "Current weather.", "input_schema": SCHEMA}]},
        [WEATHER],
    ),
    "gemini": (
        {
            "tools": [
                {
                    "functionDeclarations": [
                        {
                            "name": "get_weather",
                            "description": "Current weather.",
                            "parameters": {
                                "type": "OBJECT",
                                "properties": {"city": {"type": "STRING", "description": "City name"}},
                                "required": ["city"],
                            },
                        }
                    ]
                }
            ]
        },
        [WEATHER],
    ),
    "mcp": (
        {
            "tools": [
                {
                    "name": "get_weather",
                    "title": "Weather",
                    "description": "Current weather.",
                    "inputSchema": SCHEMA,
                    "outputSchema": {"type": "object"},
                    "annotations": {"readOnlyHint": True},
                },
                {
                    "name": "create_ticket",
                    "description": "Open a ticket.",
                    "inputSchema": TICKET.parameters,
                    "annotations": {"destructiveHint": True},
                },
            ],
            "nextCursor": None,
        },
        [WEATHER, TICKET],
    ),
    "canonical": (
        {"tools": [WEATHER.model_dump(), TICKET.model_dump()]},
        [WEATHER, TICKET],
    ),
}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_each_format_converts_to_the_expected_canonical_tools(name: str) -> None:
    value, expected = FORMATS[name]
    tools, findings, record = read_tool_list(value, original="x", source="f.json", tool_set="core")
    assert findings == []
    assert tools == expected
    assert import_tool_list(value).format == name
    if name == "canonical":
        assert record is None
    else:
        assert record is not None and record.format == name and record.tools == len(expected)


def test_gemini_bare_declarations_and_function_declarations_wrapper() -> None:
    declaration = {"name": "get_weather", "parametersJsonSchema": SCHEMA, "description": "Current weather."}
    for value in ([declaration], {"functionDeclarations": [declaration]}):
        tools, findings, _ = read_tool_list(value, original="", source="f", tool_set="core")
        assert findings == [] and tools == [WEATHER]


def test_gemini_openapi_schema_becomes_json_schema_faithfully() -> None:
    declaration = {
        "name": "book",
        "parameters": {
            "type": "OBJECT",
            "properties": {
                "nights": {"type": "INTEGER", "format": "int32", "minimum": 1},
                "note": {"type": "STRING", "nullable": True, "maxLength": "200", "example": "late"},
                "tier": {"type": "STRING", "enum": ["a", "b"], "nullable": True},
                "rooms": {"type": "ARRAY", "items": {"type": "STRING"}, "minItems": "1"},
            },
            "propertyOrdering": ["tier", "nights", "note", "rooms"],
            "required": ["nights"],
        },
    }
    tools, findings, _ = read_tool_list(
        {"functionDeclarations": [declaration]}, original="", source="f", tool_set="core"
    )
    assert findings == [] and tools is not None
    assert tools[0].parameters == {
        "type": "object",
        "properties": {
            "tier": {"type": ["string", "null"], "enum": ["a", "b", None]},
            "nights": {"type": "integer", "format": "int32", "minimum": 1},
            "note": {"type": ["string", "null"], "maxLength": 200, "examples": ["late"]},
            "rooms": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        },
        "required": ["nights"],
    }
    assert list(tools[0].parameters["properties"]) == ["tier", "nights", "note", "rooms"]


@pytest.mark.parametrize(
    ("schema", "path", "message"),
    [
        (
            {"type": "OBJECT", "properties": {"x": {"type": "STRING", "oneOf": []}}},
            "x.oneOf",
            "not a field of a Gemini schema",
        ),
        (
            {"type": "OBJECT", "properties": {"x": {"type": "TYPE_UNSPECIFIED"}}},
            "x.type",
            "is not a Gemini type",
        ),
        (
            {"type": "OBJECT", "properties": {"x": {"type": "STRING"}}, "propertyOrdering": ["y"]},
            "propertyOrdering",
            "exactly the names",
        ),
    ],
)
def test_gemini_keywords_without_an_equivalent_are_rejected(
    schema: dict[str, Any], path: str, message: str
) -> None:
    _, findings, _ = read_tool_list(
        [{"name": "t", "parameters": schema}], original="", source="f", tool_set="core"
    )
    assert any(message in str(f) and path in str(f) for f in findings), findings


def test_mcp_annotations_decide_the_side_effect() -> None:
    def side(annotations: Any) -> str:
        item = {"name": "t", "inputSchema": {"type": "object"}}
        if annotations is not None:
            item["annotations"] = annotations
        tools, findings, _ = read_tool_list({"tools": [item]}, original="", source="f", tool_set="core")
        assert findings == [] and tools is not None
        return tools[0].side_effect

    assert side(None) == "read"
    assert side({"readOnlyHint": True, "destructiveHint": True}) == "read"
    assert side({"readOnlyHint": False}) == "write"
    assert side({"destructiveHint": True}) == "write"
    assert side({"destructiveHint": False, "idempotentHint": True}) == "read"


def test_a_jsonrpc_tools_list_response_is_accepted() -> None:
    value = {"jsonrpc": "2.0", "id": 1, "result": FORMATS["mcp"][0]}
    tools, findings, record = read_tool_list(value, original="", source="f", tool_set="core")
    assert findings == [] and tools == [WEATHER, TICKET] and record is not None and record.format == "mcp"


def test_server_tools_and_unknown_shapes_are_rejected() -> None:
    _, findings, _ = read_tool_list(
        [{"type": "web_search_preview"}], original="", source="f", tool_set="core"
    )
    assert any("not a tool in any known format" in str(f) for f in findings)
    _, findings, _ = read_tool_list({"tool": []}, original="", source="f", tool_set="core")
    assert any('must be {"tools": [ ... ]}' in str(f) for f in findings)


def _folder_suite(tmp_path: Path, tools_text: str) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "suite.json").write_text('{"name": "s", "dataset_version": "1"}\n', encoding="utf-8")
    (folder / "tools.core.json").write_text(tools_text, encoding="utf-8")
    case = {"id": "w", "prompt": "Weather in Paris?", "expected": {"kind": "tool", "name": "get_weather"}}
    (folder / "cases.jsonl").write_text(json.dumps(case) + "\n", encoding="utf-8")
    return folder


def test_a_folder_tool_file_in_openai_format_is_imported_and_recorded(tmp_path: Path) -> None:
    text = json.dumps(FORMATS["openai-chat"][0], indent=2) + "\n"
    suite = load_suite(_folder_suite(tmp_path, text))
    assert suite.tool_sets["core"] == [WEATHER]
    (record,) = suite.tool_imports
    assert (record.source, record.tool_set, record.format, record.tools) == (
        "tools.core.json",
        "core",
        "openai-chat",
        1,
    )
    import hashlib

    assert record.sha256 == hashlib.sha256(text.encode()).hexdigest()


def test_a_mixed_list_names_file_line_and_item_in_json(tmp_path: Path) -> None:
    items = [FORMATS["openai-chat"][0][0], {"name": "t2", "input_schema": {"type": "object"}}]
    text = json.dumps(items, indent=2) + "\n"
    with pytest.raises(CaseError) as info:
        load_suite(_folder_suite(tmp_path, text))
    assert isinstance(info.value, SuiteError)
    (problem,) = info.value.problems
    second = text.split("\n").index("  {", 2) + 1
    assert problem.path.endswith("tools.core.json") and problem.line == second
    assert "[1]: a mixed list: this item is anthropic, item [0] is openai-chat" in problem.message


def test_an_error_inside_a_converted_tool_names_the_original_key_line(tmp_path: Path) -> None:
    items = [
        {
            "type": "function",
            "function": {"name": "get_weather", "parameters": {"type": "object", "required": "city"}},
        }
    ]
    text = json.dumps(items, indent=2) + "\n"
    with pytest.raises(SuiteError) as info:
        load_suite(_folder_suite(tmp_path, text))
    problem = info.value.problems[0]
    assert problem.line == text.split("\n").index('        "required": "city"') + 1
    assert problem.message.startswith("[0].function.parameters.required: not valid JSON Schema")


def test_a_mixed_list_and_a_bad_gemini_schema_name_the_line_in_yaml(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "dataset_version: '1'\n"
        "tools:\n"
        "  lookups:\n"
        "    - name: a\n"
        "      input_schema: {type: object}\n"
        "    - inputSchema: {type: object}\n"  # line 6
        "      name: b\n"
        "  gem:\n"
        "    functionDeclarations:\n"
        "      - name: g\n"
        "        parameters:\n"
        "          type: OBJECT\n"
        "          properties:\n"
        "            x: {type: STRING, oneOf: []}\n"  # line 14
        "cases:\n"
        "  - {id: c, prompt: hi, expected: {kind: text}}\n",
        encoding="utf-8",
    )
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    found = {(p.line, p.message.split(":")[0]) for p in info.value.problems}
    assert (6, "tools.lookups[1]") in found, info.value
    assert (14, "tools.gem.functionDeclarations[0].parameters.properties.x.oneOf") in found, info.value
