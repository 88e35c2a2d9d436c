"""Which tool schemas each dialect accepts, and the error each real provider gives otherwise.

Every rule below raises :class:`~fcbench.mock.common.MockError` (HTTP 400 in the dialect's error
shape). "Section" refers to the wire-protocol reference (``protocols.md``) the rule comes from;
messages marked *real* repeat the provider's recorded wording, *approx.* ones are written in the
provider's style where no real wording was recorded.

==========================  ======================================================  ========  =======
dialect                     rule                                                    section   message
==========================  ======================================================  ========  =======
openai (chat + responses)   function name matches ``^[a-zA-Z0-9_-]{1,64}$``         1.1       approx.
openai                      parameters are a valid JSON Schema (draft 2020-12)      1.1, 6    approx.
openai                      root schema is ``type: "object"``                       6         approx.
openai strict               every object has ``additionalProperties: false``        1.1, 6    real
openai strict               ``required`` lists every key of ``properties``          1.1, 6    real
openai strict               no ``default``, ``uniqueItems``, ``minLength``,          6         real
                            ``maxLength``, ``oneOf``, ``allOf``, ``not``,
                            ``if/then/else``, ``patternProperties``, ...
openai strict               at most 10 levels of nesting                            6         approx.
anthropic                   tool name matches ``^[a-zA-Z0-9_-]{1,128}$``            3.1       approx.
anthropic                   ``input_schema`` present, valid draft 2020-12           3.1       real
anthropic                   root ``type`` is ``object``                             3.1, 6    approx.
anthropic                   no ``oneOf``/``allOf``/``anyOf`` at the root            3.1, 6    real
anthropic strict            every object has ``additionalProperties: false``        6         approx.
anthropic strict            no numeric bounds, string lengths, ``minItems`` > 1,     6         approx.
                            ``maxItems``, ``uniqueItems``, ``oneOf``, ``not``, ...
gemini                      function name: letter or ``_`` first, then              4.1       approx.
                            ``[a-zA-Z0-9_.:-]``, at most 128 characters
gemini                      only known fields in a function declaration             4.1       real
gemini                      ``parameters`` and ``parametersJsonSchema`` exclusive   4.1       approx.
gemini ``parameters``       only OpenAPI-subset keywords (``const``, ``oneOf``,      4.1, 6    real
                            ``$ref``, ``exclusiveMinimum``, ... are unknown names)
gemini ``parameters``       ``type`` is one name, not a list                        4.1, 6    real
gemini ``parameters``       ``type`` is one of the Schema type names                4.1       approx.
gemini ``parameters``       ``enum`` values are strings                             6         approx.
gemini ``parametersJson``   a valid JSON Schema                                     4.1, 6    approx.
==========================  ======================================================  ========  =======

Rules are applied only to tools the request offers; a schema that passes is given to the
simulated model unchanged (Gemini ``parameters`` are first converted to JSON Schema).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import jsonschema

from fcbench.mock.common import MockError
from fcbench.mock.sim.schemas import schema_key

OPENAI_STRICT_FORBIDDEN: tuple[str, ...] = (
    "default", "uniqueItems", "minLength", "maxLength", "oneOf", "allOf", "not", "if", "then", "else",
    "dependentRequired", "dependentSchemas", "patternProperties", "propertyNames", "contains",
    "unevaluatedProperties", "unevaluatedItems", "minProperties", "maxProperties",
)  # fmt: skip
"""Keywords OpenAI strict mode rejects with ``'<keyword>' is not permitted`` (section 6)."""

ANTHROPIC_STRICT_FORBIDDEN: tuple[str, ...] = (
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
    "maxItems", "uniqueItems", "contains", "patternProperties", "propertyNames", "unevaluatedProperties",
    "unevaluatedItems", "minProperties", "maxProperties", "not", "if", "then", "else", "oneOf",
    "dependentRequired", "dependentSchemas",
)  # fmt: skip
"""Keywords Anthropic strict tool use does not support (section 6)."""

GEMINI_SCHEMA_FIELDS: frozenset[str] = frozenset(
    {
        "type", "format", "title", "description", "nullable", "enum", "items", "properties", "required",
        "default", "example", "pattern", "minimum", "maximum", "ref", "defs",
        "minItems", "min_items", "maxItems", "max_items", "minLength", "min_length", "maxLength",
        "max_length", "minProperties", "min_properties", "maxProperties", "max_properties", "anyOf",
        "any_of", "propertyOrdering", "property_ordering", "additionalProperties", "additional_properties",
    }
)  # fmt: skip
"""Field names of Gemini's typed ``Schema`` (OpenAPI 3.0 subset), camelCase and snake_case (4.1)."""

GEMINI_TYPES: frozenset[str] = frozenset(
    {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}
)

GEMINI_DECLARATION_FIELDS: frozenset[str] = frozenset(
    {
        "name", "description", "parameters", "parametersJsonSchema", "parameters_json_schema", "response",
        "responseJsonSchema", "response_json_schema", "behavior",
    }
)  # fmt: skip

_OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
_ANTHROPIC_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
_GEMINI_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$")
_MAX_OPENAI_DEPTH = 10
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_SINGLE = ("items", "additionalProperties", "not", "if", "then", "else", "contains")


def _bad(message: str, param: str | None = None, code: str | None = None) -> MockError:
    return MockError("invalid_request", message, param=param, code=code)


def _walk(schema: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """Every subschema (dict) with its path of keys from the root, root first."""
    if not isinstance(schema, dict):
        return
    yield path, schema
    for key in _SUBSCHEMA_MAPS:
        children = schema.get(key)
        if isinstance(children, dict):
            for name, child in children.items():
                yield from _walk(child, (*path, key, str(name)))
    for key in _SUBSCHEMA_LISTS:
        children = schema.get(key)
        if isinstance(children, list):
            for index, child in enumerate(children):
                yield from _walk(child, (*path, key, str(index)))
    for key in _SUBSCHEMA_SINGLE:
        yield from _walk(schema.get(key), (*path, key))


def _is_object_schema(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in schema


def _metaschema_error(schema: Any) -> str | None:
    """The first reason ``schema`` is not a valid draft 2020-12 JSON Schema, or None.

    Checking against the meta-schema costs milliseconds and every request repeats its tools, so
    the answer is kept per schema text. The key (:func:`~fcbench.mock.sim.schemas.schema_key`)
    keeps the keys in the order the request gave them (not sorted): which error comes first
    follows that order.
    """
    return _metaschema_error_of(schema_key(schema))


@lru_cache(maxsize=1024)
def _metaschema_error_of(key: bytes | str) -> str | None:
    try:
        jsonschema.Draft202012Validator.check_schema(json.loads(key))
    except jsonschema.SchemaError as exc:
        return str(exc.message)
    return None


def _nesting(path: tuple[str, ...]) -> int:
    return sum(1 for key in path if key in ("properties", "items", "anyOf", "additionalProperties"))


def check_openai_function(name: Any, parameters: Any, strict: bool, where: str) -> None:
    """OpenAI Chat/Responses function rules; ``where`` is the tool's param path (``tools[0].function``)."""
    if not isinstance(name, str) or not name:
        raise _bad(
            f"Missing required parameter: '{where}.name'.", f"{where}.name", "missing_required_parameter"
        )
    if len(name) > 64:
        raise _bad(
            f"Invalid '{where}.name': string too long. Expected a string with maximum length 64, "
            f"but got a string with length {len(name)} instead.",
            f"{where}.name",
            "string_above_max_length",
        )
    if not _OPENAI_NAME.match(name):
        raise _bad(
            f"Invalid '{where}.name': string does not match pattern. Expected a string that matches the "
            "pattern '^[a-zA-Z0-9_-]+$'.",
            f"{where}.name",
            "invalid_value",
        )
    if parameters is None:
        return
    param = f"{where}.parameters"
    prefix = f"Invalid schema for function '{name}':"
    if not isinstance(parameters, dict):
        raise _bad(f"{prefix} schema must be a JSON Schema object.", param, "invalid_function_parameters")
    problem = _metaschema_error(parameters)
    if problem is not None:
        raise _bad(f"{prefix} {problem}", param, "invalid_function_parameters")
    if parameters.get("type") != "object":
        got = parameters.get("type")
        raise _bad(
            f"{prefix} schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{got}\"'.",
            param,
            "invalid_function_parameters",
        )
    if strict:
        _check_openai_strict(parameters, prefix, param)


def _check_openai_strict(schema: dict[str, Any], prefix: str, param: str) -> None:
    for path, sub in _walk(schema):
        context = repr(path)
        for keyword in OPENAI_STRICT_FORBIDDEN:
            if keyword in sub:
                raise _bad(
                    f"{prefix} In context={context}, '{keyword}' is not permitted.",
                    param,
                    "invalid_function_parameters",
                )
        if _nesting(path) > _MAX_OPENAI_DEPTH:
            raise _bad(
                f"{prefix} In context={context}, schema exceeds the maximum nesting depth of "
                f"{_MAX_OPENAI_DEPTH}.",
                param,
                "invalid_function_parameters",
            )
        if not _is_object_schema(sub):
            continue
        if sub.get("additionalProperties") is not False:
            raise _bad(
                f"{prefix} In context={context}, 'additionalProperties' is required to be supplied "
                "and to be false.",
                param,
                "invalid_function_parameters",
            )
        properties = sub.get("properties") or {}
        required = sub.get("required")
        listed = set(required) if isinstance(required, list) else set()
        missing = [key for key in properties if key not in listed]
        if not isinstance(required, list) or missing:
            detail = f" Missing '{missing[0]}'." if missing else ""
            raise _bad(
                f"{prefix} In context={context}, 'required' is required to be supplied and to be an "
                f"array including every key in properties.{detail}",
                param,
                "invalid_function_parameters",
            )


def check_anthropic_tool(index: int, name: Any, schema: Any, strict: bool) -> None:
    """Anthropic custom-tool rules; ``index`` is the tool's position in ``tools``."""
    where = f"tools.{index}.custom"
    if not isinstance(name, str) or not _ANTHROPIC_NAME.match(name):
        raise _bad(f"{where}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'")
    if schema is None:
        raise _bad(f"{where}.input_schema: Field required")
    if not isinstance(schema, dict):
        raise _bad(f"{where}.input_schema: Input should be a valid dictionary")
    if any(key in schema for key in ("oneOf", "allOf", "anyOf")):
        raise _bad(
            f"{where}.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level"
        )
    if schema.get("type") != "object":
        raise _bad(f"{where}.input_schema.type: Input should be 'object'")
    if _metaschema_error(schema) is not None:
        raise _bad(
            f"{where}.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 "
            "(https://json-schema.org/draft/2020-12). Learn more about tool use at "
            "https://docs.claude.com/en/docs/tool-use."
        )
    if strict:
        for path, sub in _walk(schema):
            pointer = "/" + "/".join(path)
            for keyword in ANTHROPIC_STRICT_FORBIDDEN:
                if keyword in sub:
                    raise _bad(
                        f"{where}.input_schema: '{keyword}' is not supported for strict tool use "
                        f"(at {pointer})"
                    )
            min_items = sub.get("minItems")
            if isinstance(min_items, int) and min_items > 1:
                raise _bad(
                    f"{where}.input_schema: 'minItems' values other than 0 or 1 are not supported "
                    f"for strict tool use (at {pointer})"
                )
            if _is_object_schema(sub) and sub.get("additionalProperties") is not False:
                raise _bad(
                    f"{where}.input_schema: 'additionalProperties' must be set to false for strict "
                    f"tool use (at {pointer})"
                )


def check_gemini_declaration(tool_index: int, decl_index: int, decl: Any) -> None:
    """Gemini function-declaration rules (``tools[t].functionDeclarations[d]``)."""
    at = f"tools[{tool_index}].function_declarations[{decl_index}]"
    if not isinstance(decl, dict):
        raise _bad(f"Invalid JSON payload received. Expected an object at '{at}'.")
    for key in decl:
        if key not in GEMINI_DECLARATION_FIELDS:
            raise _bad(f"Invalid JSON payload received. Unknown name \"{key}\" at '{at}': Cannot find field.")
    name = decl.get("name")
    if not isinstance(name, str) or not _GEMINI_NAME.match(name):
        raise _bad(
            f"* GenerateContentRequest.{at}.name: Invalid function name. Must start with a letter or an "
            "underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or "
            "dashes (-), with a maximum length of 128.\n"
        )
    typed = decl.get("parameters")
    raw = decl.get("parametersJsonSchema", decl.get("parameters_json_schema"))
    if typed is not None and raw is not None:
        raise _bad(
            f"* GenerateContentRequest.{at}.parameters: parameters and parameters_json_schema "
            "cannot both be set.\n"
        )
    if typed is not None:
        _check_gemini_schema(typed, f"{at}.parameters")
    if raw is not None:
        problem = _metaschema_error(raw) if isinstance(raw, dict) else "the schema must be an object"
        if problem is not None:
            raise _bad(
                f"* GenerateContentRequest.{at}.parameters_json_schema: invalid JSON Schema: {problem}\n"
            )


def _check_gemini_schema(schema: Any, at: str) -> None:
    if not isinstance(schema, dict):
        raise _bad(f"Invalid JSON payload received. Expected an object at '{at}'.")
    for key, value in schema.items():
        if key not in GEMINI_SCHEMA_FIELDS:
            raise _bad(f"Invalid JSON payload received. Unknown name \"{key}\" at '{at}': Cannot find field.")
        if key == "type":
            if isinstance(value, list):
                raise _bad(
                    f"Invalid JSON payload received. Unknown name \"type\" at '{at}': Proto field is "
                    "not repeating, cannot start list."
                )
            if not isinstance(value, str) or value.upper() not in GEMINI_TYPES:
                raise _bad(
                    f"Invalid value at '{at}.type' (type.googleapis.com/google.ai.generativelanguage."
                    f"v1beta.Type), {value!r}"
                )
        if key == "enum" and isinstance(value, list):
            for position, item in enumerate(value):
                if not isinstance(item, str):
                    raise _bad(f"Invalid value at '{at}.enum[{position}]' (TYPE_STRING), {item!r}")
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for position, child in enumerate(properties.values()):
            _check_gemini_schema(child, f"{at}.properties[{position}].value")
    if "items" in schema:
        _check_gemini_schema(schema["items"], f"{at}.items")
    for key in ("anyOf", "any_of"):
        options = schema.get(key)
        if isinstance(options, list):
            for position, child in enumerate(options):
                _check_gemini_schema(child, f"{at}.any_of[{position}]")
