"""Gemini's OpenAPI-subset schemas (``type: "STRING"``, ``nullable``, ...) as JSON Schema, faithfully.

Type names are lowercased; ``nullable: true`` adds a ``"null"`` type (and ``None`` to an
``enum``); ``example`` becomes ``examples``; int64 bounds written as strings (``"minItems": "1"``,
the REST encoding) become integers; ``propertyOrdering`` is applied to the order of
``properties``. Any other key has no faithful equivalent and is reported, never dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fcbench.suite.tools import Finding, Key

GEMINI_TYPES = frozenset({"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"})
GEMINI_KEPT = frozenset(
    {"format", "title", "description", "enum", "required", "minimum", "maximum", "pattern", "default"}
)
GEMINI_INT64 = frozenset({"minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"})
GEMINI_MARKERS = frozenset({"nullable", "propertyOrdering", "example"})


def gemini_schema(node: Any, keys: tuple[Key, ...], findings: list[Finding]) -> Any:
    """One Gemini (OpenAPI-subset) schema as JSON Schema; problems go to ``findings``."""
    if not isinstance(node, Mapping):
        findings.append(Finding(keys, "a schema must be an object"))
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        where = (*keys, key)
        if key == "type":
            if not isinstance(value, str) or value.upper() not in GEMINI_TYPES:
                findings.append(
                    Finding(where, f"{value!r} is not a Gemini type ({', '.join(sorted(GEMINI_TYPES))})")
                )
            else:
                out["type"] = value.lower()
        elif key in ("properties",):
            if not isinstance(value, Mapping):
                findings.append(Finding(where, "must be an object"))
            else:
                out[key] = {name: gemini_schema(sub, (*where, name), findings) for name, sub in value.items()}
        elif key == "items":
            out[key] = gemini_schema(value, where, findings)
        elif key == "anyOf":
            if not isinstance(value, list):
                findings.append(Finding(where, "must be a list of schemas"))
            else:
                out[key] = [gemini_schema(sub, (*where, i), findings) for i, sub in enumerate(value)]
        elif key in GEMINI_INT64:
            out[key] = int(value) if isinstance(value, str) and value.isdigit() else value
        elif key == "example":
            out["examples"] = [value]
        elif key in GEMINI_KEPT or key in ("nullable", "propertyOrdering"):
            out[key] = value
        else:
            findings.append(
                Finding(where, "not a field of a Gemini schema (no faithful JSON Schema equivalent)")
            )
    return _finish(out, keys, findings)


def _finish(out: dict[str, Any], keys: tuple[Key, ...], findings: list[Finding]) -> dict[str, Any]:
    order = out.pop("propertyOrdering", None)
    if order is not None:
        properties = out.get("properties", {})
        if not isinstance(order, list) or sorted(map(str, order)) != sorted(properties):
            findings.append(Finding((*keys, "propertyOrdering"), "must list exactly the names in properties"))
        else:
            out["properties"] = {name: properties[name] for name in order}
    nullable = out.pop("nullable", None)
    if nullable is True:
        if "type" in out:
            out["type"] = [out["type"], "null"]
        elif "anyOf" in out:
            out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        else:
            findings.append(Finding((*keys, "nullable"), "needs a type or anyOf to make nullable"))
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    elif nullable not in (None, False):
        findings.append(Finding((*keys, "nullable"), "must be true or false"))
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


__all__ = ["GEMINI_TYPES", "gemini_schema", "has_gemini_marker"]
