"""Gemini's OpenAPI-subset schemas (``type: "STRING"``, ``nullable``, ...) as JSON Schema.

One conversion serves everything that reads them: tool import (strict: what has no faithful
JSON Schema equivalent is reported through ``problem`` and left out), and the readers of Gemini
requests, the mock provider and log import (lenient, as the API reads a request: such keys are
kept as they are). Either way, type names are lowercased; ``nullable: true`` adds a ``"null"``
type (to ``type``, or to ``anyOf``) and ``None`` to an ``enum``; ``example`` becomes
``examples``; int64 bounds written as strings (``"minItems": "1"``, the REST encoding) become
integers; ``propertyOrdering`` orders ``properties``; snake_case names (``any_of``) are read as
their camelCase twins, as the API accepts both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

GEMINI_TYPES = frozenset({"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"})
"""The type names of Gemini's ``Schema``."""
GEMINI_KEPT = frozenset(
    {"format", "title", "description", "enum", "required", "minimum", "maximum", "pattern", "default"}
)
"""Keys whose meaning is JSON Schema's: copied unchanged."""
GEMINI_INT64 = frozenset({"minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"})
"""Bounds the REST encoding may write as strings."""
GEMINI_MARKERS = frozenset({"nullable", "propertyOrdering", "example"})
"""Keys only Gemini's spelling of a schema has."""

Path = tuple[str | int, ...]
Problem = Callable[[Path, str], None]
"""Told ``(path below the schema, message)`` of each part with no faithful equivalent."""


def gemini_field(data: Mapping[str, Any], camel: str, default: Any = None) -> Any:
    """A field by its camelCase name or its snake_case twin (the API accepts both)."""
    if camel in data:
        return data[camel]
    snake = "".join("_" + ch.lower() if ch.isupper() else ch for ch in camel)
    return data.get(snake, default)


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def openapi_to_json_schema(node: Any, problem: Problem | None = None, path: Path = ()) -> Any:
    """One Gemini schema as JSON Schema; with ``problem``, strictly (see the module docstring)."""
    if not isinstance(node, Mapping):
        if problem is not None:
            problem(path, "a schema must be an object")
        return node
    out: dict[str, Any] = {}
    for raw_key, value in node.items():
        key = _camel(raw_key) if isinstance(raw_key, str) else raw_key
        where = (*path, raw_key)
        if key == "type":
            if isinstance(value, str) and value.upper() in GEMINI_TYPES:
                out["type"] = value.lower()
            elif problem is not None:
                problem(where, f"{value!r} is not a Gemini type ({', '.join(sorted(GEMINI_TYPES))})")
            else:
                out["type"] = value
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {
                name: openapi_to_json_schema(sub, problem, (*where, name)) for name, sub in value.items()
            }
        elif key == "items":
            out[key] = openapi_to_json_schema(value, problem, where)
        elif key == "anyOf" and isinstance(value, list):
            out[key] = [openapi_to_json_schema(sub, problem, (*where, i)) for i, sub in enumerate(value)]
        elif key in ("properties", "anyOf") and problem is not None:
            problem(where, "must be an object" if key == "properties" else "must be a list of schemas")
        elif key in GEMINI_INT64:
            out[key] = int(value) if isinstance(value, str) and value.isdigit() else value
        elif key == "example":
            out["examples"] = [value]
        elif key in GEMINI_KEPT or key in ("nullable", "propertyOrdering") or problem is None:
            out[key] = value
        else:
            problem(where, "not a field of a Gemini schema (no faithful JSON Schema equivalent)")
    return _finish(out, path, problem)


def _finish(out: dict[str, Any], path: Path, problem: Problem | None) -> dict[str, Any]:
    order = out.pop("propertyOrdering", None)
    if order is not None:
        properties = out.get("properties", {})
        if (
            isinstance(order, list)
            and isinstance(properties, dict)
            and sorted(map(str, order)) == sorted(properties)
        ):
            out["properties"] = {name: properties[name] for name in order}
        elif problem is not None:
            problem((*path, "propertyOrdering"), "must list exactly the names in properties")
    nullable = out.pop("nullable", None)
    if nullable is True:
        if "type" in out:
            out["type"] = [out["type"], "null"]
        elif "anyOf" in out:
            out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        elif problem is not None:
            problem((*path, "nullable"), "needs a type or anyOf to make nullable")
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    elif nullable not in (None, False) and problem is not None:
        problem((*path, "nullable"), "must be true or false")
    return out


def has_gemini_marker(node: Any) -> bool:
    """Whether a schema uses Gemini's spelling anywhere (an uppercase type, ``nullable``, ...)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            kind = item.get("type")
            if (isinstance(kind, str) and kind in GEMINI_TYPES) or GEMINI_MARKERS & set(item):
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


__all__ = ["GEMINI_TYPES", "gemini_field", "has_gemini_marker", "openapi_to_json_schema"]
