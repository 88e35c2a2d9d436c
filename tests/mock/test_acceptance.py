"""Schema acceptance: each dialect rejects what its real provider rejects, in the provider's words."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from fcbench.mock.acceptance import check_anthropic_tool, check_gemini_declaration, check_openai_function
from fcbench.mock.common import MockError

CITY = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


def _with(**changes: Any) -> dict[str, Any]:
    schema = json.loads(json.dumps(CITY))
    for key, value in changes.items():
        if value is None:
            schema.pop(key, None)
        else:
            schema[key] = value
    return schema


# ------------------------------------------------------------------ OpenAI
def test_openai_strict_accepts_a_compliant_schema() -> None:
    nested = _with(
        properties={
            "city": {"type": ["string", "null"]},
            "where": {
                "type": "object",
                "properties": {"zip": {"type": "string"}},
                "required": ["zip"],
                "additionalProperties": False,
            },
        },
        required=["city", "where"],
    )
    check_openai_function("get_weather", nested, True, "tools[0].function")


@pytest.mark.parametrize(
    ("schema", "fragment"),
    [
        (
            _with(additionalProperties=None),
            "In context=(), 'additionalProperties' is required to be supplied and to be false.",
        ),
        (
            _with(additionalProperties=True),
            "'additionalProperties' is required to be supplied and to be false.",
        ),
        (
            _with(properties={"city": {"type": "string"}, "unit": {"type": "string"}}),
            "'required' is required to be supplied and to be an array including every key in properties. "
            "Missing 'unit'.",
        ),
        (
            _with(properties={"city": {"type": "string", "default": "Paris"}}),
            "In context=('properties', 'city'), 'default' is not permitted.",
        ),
        (
            _with(properties={"city": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}}),
            "'uniqueItems' is not permitted.",
        ),
        (_with(properties={"city": {"type": "string", "minLength": 2}}), "'minLength' is not permitted."),
        (
            _with(properties={"city": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}),
            "'oneOf' is not permitted.",
        ),
        (
            _with(
                properties={
                    "city": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
                }
            ),
            "In context=('properties', 'city'), 'additionalProperties' is required",
        ),
    ],
)
def test_openai_strict_rejections(schema: dict[str, Any], fragment: str) -> None:
    with pytest.raises(MockError) as info:
        check_openai_function("get_weather", schema, True, "tools[0].function")
    assert info.value.message.startswith("Invalid schema for function 'get_weather': ")
    assert fragment in info.value.message
    assert info.value.param == "tools[0].function.parameters"
    assert info.value.code == "invalid_function_parameters"


def test_openai_non_strict_is_lenient_but_checks_basics() -> None:
    check_openai_function(
        "f",
        _with(additionalProperties=None, properties={"a": {"type": "string", "default": "x"}}),
        False,
        "tools[0].function",
    )
    with pytest.raises(MockError, match="got 'type: \"array\"'"):
        check_openai_function("f", {"type": "array"}, False, "tools[0].function")
    with pytest.raises(MockError, match="is not valid under any of the given schemas"):
        check_openai_function(
            "f", {"type": "object", "properties": {"a": {"type": "strin"}}}, False, "tools[0]"
        )
    with pytest.raises(MockError, match="does not match pattern") as info:
        check_openai_function("get weather", CITY, False, "tools[1]")
    assert info.value.param == "tools[1].name"
    with pytest.raises(MockError, match="string too long"):
        check_openai_function("f" * 65, CITY, False, "tools[0].function")


# ------------------------------------------------------------------ Anthropic
@pytest.mark.parametrize(
    ("schema", "strict", "fragment"),
    [
        (
            {"anyOf": [CITY]},
            False,
            "tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top "
            "level",
        ),
        ({"type": "string"}, False, "tools.0.custom.input_schema.type: Input should be 'object'"),
        (
            {"type": "object", "properties": {"a": {"type": 5}}},
            False,
            "JSON schema is invalid. It must match JSON Schema draft 2020-12",
        ),
        (None, False, "tools.0.custom.input_schema: Field required"),
        (_with(additionalProperties=None), True, "'additionalProperties' must be set to false"),
        (_with(properties={"city": {"type": "integer", "minimum": 1}}), True, "'minimum' is not supported"),
        (
            _with(properties={"city": {"type": "array", "minItems": 2}}),
            True,
            "'minItems' values other than 0 or 1",
        ),
    ],
)
def test_anthropic_rejections(schema: Any, strict: bool, fragment: str) -> None:
    with pytest.raises(MockError) as info:
        check_anthropic_tool(0, "get_weather", schema, strict)
    assert fragment in info.value.message


def test_anthropic_accepts_what_it_should() -> None:
    lenient = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "required": []}
    check_anthropic_tool(0, "get_weather", lenient, False)
    check_anthropic_tool(
        0, "get_weather", _with(properties={"city": {"type": "string"}, "x": {"type": "string"}}), True
    )
    with pytest.raises(MockError, match="String should match pattern"):
        check_anthropic_tool(3, "bad name!", CITY, False)


# ------------------------------------------------------------------ Gemini
@pytest.mark.parametrize(
    ("decl", "fragment"),
    [
        (
            {"name": "f", "parameters": {"type": "OBJECT", "properties": {"a": {"const": "x"}}}},
            "Unknown name \"const\" at 'tools[0].function_declarations[0].parameters.properties[0].value': "
            "Cannot find field.",
        ),
        (
            {
                "name": "f",
                "parameters": {
                    "type": "object",
                    "properties": {"a": {"anyOf": [{"type": "string"}, {"oneOf": []}]}},
                },
            },
            'Unknown name "oneOf" at '
            "'tools[0].function_declarations[0].parameters.properties[0].value.any_of[1]'",
        ),
        (
            {
                "name": "f",
                "parameters": {"type": "object", "properties": {"a": {"type": ["string", "null"]}}},
            },
            "Proto field is not repeating, cannot start list.",
        ),
        ({"name": "f", "parameters": {"$schema": "x", "type": "object"}}, 'Unknown name "$schema"'),
        (
            {"name": "f", "parameters": {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}}},
            'Unknown name "$ref"',
        ),
        (
            {
                "name": "f",
                "parameters": {
                    "type": "object",
                    "properties": {"n": {"type": "integer", "exclusiveMinimum": 0}},
                },
            },
            'Unknown name "exclusiveMinimum"',
        ),
        ({"name": "f", "parameters": {"type": "STRANGE"}}, "Invalid value at"),
        ({"name": "f", "parameters": {"type": "integer", "enum": [1, 2]}}, "(TYPE_STRING), 1"),
        ({"name": "f", "strict": True}, 'Unknown name "strict"'),
        ({"name": "9lives"}, "Invalid function name"),
        (
            {"name": "f", "parameters": {"type": "object"}, "parametersJsonSchema": {"type": "object"}},
            "cannot both be set",
        ),
        ({"name": "f", "parameters_json_schema": {"type": "object", "properties": 3}}, "invalid JSON Schema"),
    ],
)
def test_gemini_rejections(decl: dict[str, Any], fragment: str) -> None:
    with pytest.raises(MockError) as info:
        check_gemini_declaration(0, 0, decl)
    assert fragment in info.value.message


def test_gemini_json_schema_takes_full_json_schema() -> None:
    full = {
        "type": "object",
        "properties": {
            "a": {"const": "x"},
            "b": {"oneOf": [{"type": "string"}]},
            "c": {"type": ["string", "null"]},
        },
        "$defs": {},
    }
    check_gemini_declaration(0, 0, {"name": "f", "parametersJsonSchema": full})
    typed = {
        "type": "OBJECT",
        "properties": {
            "a": {"type": "STRING", "nullable": True, "enum": ["x"]},
            "b": {"type": "ARRAY", "items": {"type": "INTEGER"}, "max_items": 3},
        },
        "required": ["a"],
        "propertyOrdering": ["a", "b"],
    }
    check_gemini_declaration(0, 0, {"name": "ns.f-1", "description": "d", "parameters": typed})


# ------------------------------------------------------------------ over HTTP
def test_rejections_over_http(mock_server: str) -> None:
    loose = _with(additionalProperties=None)
    chat = httpx.post(
        mock_server + "/v1/chat/completions",
        headers={"authorization": "Bearer k"},
        json={
            "model": "sim-scripted",
            "messages": [{"role": "user", "content": "x"}],
            "tools": [{"type": "function", "function": {"name": "f", "parameters": loose, "strict": True}}],
        },
        trust_env=False,
    )
    assert chat.status_code == 400
    assert chat.json()["error"]["param"] == "tools[0].function.parameters"
    responses_body = {
        "model": "sim-scripted",
        "input": "x",
        "tools": [{"type": "function", "name": "f", "parameters": loose}],
    }
    lenient = httpx.post(
        mock_server + "/v1/responses",
        headers={"authorization": "Bearer k"},
        json=responses_body,
        trust_env=False,
    )
    assert lenient.status_code == 200, "Responses without 'strict' normalises instead of rejecting"
    responses_body["tools"][0]["strict"] = True
    strict = httpx.post(
        mock_server + "/v1/responses",
        headers={"authorization": "Bearer k"},
        json=responses_body,
        trust_env=False,
    )
    assert strict.status_code == 400 and strict.json()["error"]["param"] == "tools[0].parameters"
    anthropic = httpx.post(
        mock_server + "/v1/messages",
        headers={"x-api-key": "k", "anthropic-version": "2023-06-01"},
        json={
            "model": "sim-scripted",
            "max_tokens": 5,
            "messages": [{"role": "user", "content": "x"}],
            "tools": [{"name": "f", "input_schema": {"oneOf": [CITY]}}],
        },
        trust_env=False,
    )
    assert anthropic.status_code == 400 and anthropic.json()["error"]["type"] == "invalid_request_error"
    gemini = httpx.post(
        mock_server + "/v1beta/models/sim-scripted:generateContent",
        headers={"x-goog-api-key": "k"},
        json={
            "contents": [{"parts": [{"text": "x"}]}],
            "tools": [
                {
                    "functionDeclarations": [
                        {"name": "f", "parameters": {"type": "object", "properties": {"a": {"const": 1}}}}
                    ]
                }
            ],
        },
        trust_env=False,
    )
    assert gemini.status_code == 400 and gemini.json()["error"]["status"] == "INVALID_ARGUMENT"
