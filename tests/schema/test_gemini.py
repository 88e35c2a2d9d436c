"""One conversion of Gemini schemas to JSON Schema, strict for tool import and lenient for readers
of requests (the mock provider, log import)."""

from __future__ import annotations

from typing import Any

from fcbench.schema.gemini import gemini_field, has_gemini_marker, openapi_to_json_schema

GEMINI = {
    "type": "OBJECT",
    "property_ordering": ["b", "a"],
    "properties": {
        "a": {"type": "STRING", "enum": ["x", "y"], "nullable": True, "example": "x"},
        "b": {"type": "ARRAY", "items": {"type": "INTEGER"}, "min_items": "1", "maxItems": "3"},
    },
    "required": ["a"],
}


def test_both_readings_agree_on_what_has_an_equivalent() -> None:
    expected = {
        "type": "object",
        "properties": {
            "b": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3},
            "a": {"type": ["string", "null"], "enum": ["x", "y", None], "examples": ["x"]},
        },
        "required": ["a"],
    }
    problems: list[tuple[Any, str]] = []
    strict = openapi_to_json_schema(GEMINI, lambda path, message: problems.append((path, message)))
    assert strict == openapi_to_json_schema(GEMINI) == expected
    assert list(strict["properties"]) == ["b", "a"]
    assert problems == []
    assert has_gemini_marker(GEMINI) and not has_gemini_marker(expected)


def test_what_has_no_equivalent_is_reported_strictly_and_kept_leniently() -> None:
    odd = {"type": "OBJECT", "properties": {"a": {"type": "STRING", "x-unit": "kg"}}, "nullable": "yes"}
    problems: list[tuple[Any, str]] = []
    strict = openapi_to_json_schema(odd, lambda path, message: problems.append((path, message)))
    assert strict == {"type": "object", "properties": {"a": {"type": "string"}}}
    assert [path for path, _ in problems] == [("properties", "a", "x-unit"), ("nullable",)]
    assert openapi_to_json_schema(odd)["properties"]["a"] == {"type": "string", "x-unit": "kg"}


def test_fields_are_read_in_either_spelling() -> None:
    assert gemini_field({"function_declarations": [1]}, "functionDeclarations") == [1]
    assert gemini_field({"functionDeclarations": [2]}, "functionDeclarations") == [2]
    assert gemini_field({}, "toolConfig", "none") == "none"
