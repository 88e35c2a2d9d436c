"""A Gemini tool list: ``functionDeclarations`` of ``{name, description, parameters |
parametersJsonSchema}``.

Gemini's OpenAPI-subset ``parameters`` become JSON Schema by :mod:`fcbench.schema.gemini`,
strictly: what has no faithful equivalent is a problem at its place, never dropped. A list is
``{"functionDeclarations": [...]}`` or ``{"tools": [{"functionDeclarations": [...]}, ...]}`` (every
item is then read as Gemini), or a bare list of declarations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fcbench.adapters.tool_lists import ConvertedTool, Problem, ToolListFormat, schema_or_empty, unknown_keys
from fcbench.schema.gemini import Path, has_gemini_marker, openapi_to_json_schema

KNOWN = frozenset(
    {
        "name",
        "description",
        "parameters",
        "parametersJsonSchema",
        "response",
        "responseJsonSchema",
        "behavior",
    }
)
"""The keys of a ``FunctionDeclaration``."""


def convert(item: Mapping[str, Any]) -> ConvertedTool:
    """One function declaration as a canonical tool dict."""
    problems = unknown_keys(item, KNOWN)
    tool: dict[str, Any] = {key: item[key] for key in ("name", "description") if key in item}
    origin: dict[str, Path] = {"name": ("name",), "description": ("description",)}
    if "parameters" in item and "parametersJsonSchema" in item:
        problems.append((("parametersJsonSchema",), "give parameters or parametersJsonSchema, not both"))
    if "parametersJsonSchema" in item:
        tool["parameters"] = item["parametersJsonSchema"]
        origin["parameters"] = ("parametersJsonSchema",)
    else:
        schema = item.get("parameters")
        tool["parameters"] = schema_or_empty(None) if schema is None else _strict(schema, problems)
        origin["parameters"] = ("parameters",)
    return ConvertedTool(tool, origin, tuple(problems))


def _strict(schema: Any, problems: list[Problem]) -> Any:
    return openapi_to_json_schema(
        schema, lambda path, message: problems.append((("parameters", *path), message))
    )


FORMAT = ToolListFormat(
    name="gemini",
    detect=lambda item: "parametersJsonSchema" in item or has_gemini_marker(item.get("parameters")),
    convert=convert,
    list_key="functionDeclarations",
    takes_canonical=True,
)
"""Detected by ``parametersJsonSchema`` or a schema only Gemini spells (uppercase types,
``nullable``, ...)."""

__all__ = ["FORMAT", "KNOWN", "convert"]
