"""BFCL function definitions to canonical tools: parameter types and wire-legal names.

BFCL writes parameter schemas with its own type names. They map to JSON Schema as follows
(:data:`TYPE_NAMES`): ``dict`` -> ``object``, ``float`` -> ``number``, ``tuple`` -> ``array``,
``any`` -> no ``type`` keyword at all; ``integer``, ``string``, ``boolean`` and ``array`` are kept
(as are the JSON Schema names ``object`` and ``number`` that some BFCL files already use).
``properties`` and ``items`` are converted recursively and ``required`` is kept. BFCL's
non-standard ``optional`` flag on a parameter becomes an "(optional)" note in its description;
``default`` is kept as the JSON Schema annotation of the same name. Standard validation keywords
(:data:`KEPT_KEYWORDS`) are kept; anything else is dropped and counted, never silently.

Function names may contain characters provider APIs reject (``math.factorial``). Each case's
tools get names matching :data:`~fcbench.suite.tools.TOOL_NAME_PATTERN` (see :func:`legal_names`);
the case's ``name_map`` records wire-legal name -> original name.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fcbench.suite.tools import TOOL_NAME_PATTERN

TYPE_NAMES: Mapping[str, str | None] = {
    "dict": "object",
    "object": "object",
    "float": "number",
    "number": "number",
    "tuple": "array",
    "array": "array",
    "integer": "integer",
    "string": "string",
    "boolean": "boolean",
    "any": None,
}
"""BFCL type name -> JSON Schema type (None: no type constraint)."""

KEPT_KEYWORDS = frozenset(
    {
        "enum",
        "default",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minLength",
        "maxLength",
        "pattern",
        "examples",
        "title",
    }
)
"""Standard JSON Schema keywords copied unchanged from a BFCL parameter."""

_TRUTHY = frozenset({"true", "yes", "1"})
_ILLEGAL = re.compile(r"[^a-zA-Z0-9_-]")
_MAX_NAME = 64


class UnsupportedSchema(ValueError):
    """A BFCL function definition that cannot be converted (the entry is skipped with this reason)."""


@dataclass
class SchemaNotes:
    """What the conversion had to leave out, counted per keyword (for the import report)."""

    dropped: Counter[str] = field(default_factory=Counter)
    """Keyword -> how many times it was dropped (``(top level) default`` for root-level keys)."""


def _is_truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in _TRUTHY
    return value is True


def _convert_type(node: Mapping[str, Any], where: str) -> str | None:
    raw = node.get("type")
    if raw is None:
        return None
    if not isinstance(raw, str) or raw not in TYPE_NAMES:
        known = ", ".join(sorted(TYPE_NAMES))
        raise UnsupportedSchema(f"{where}: parameter type {raw!r} is not a BFCL Python type ({known})")
    return TYPE_NAMES[raw]


def _description(node: Mapping[str, Any]) -> str | None:
    text = node.get("description")
    description = text if isinstance(text, str) else None
    if _is_truthy(node.get("optional")):
        description = f"{description} (optional)" if description else "(optional)"
    return description


def convert_parameter(node: Any, where: str, notes: SchemaNotes) -> dict[str, Any]:
    """Convert one BFCL parameter schema (and everything below it) to JSON Schema."""
    if not isinstance(node, Mapping):
        raise UnsupportedSchema(f"{where}: a parameter schema must be an object, not {type(node).__name__}")
    out: dict[str, Any] = {}
    json_type = _convert_type(node, where)
    if json_type is not None:
        out["type"] = json_type
    description = _description(node)
    if description is not None:
        out["description"] = description
    for key, value in node.items():
        if key in ("type", "description", "optional"):
            continue
        if key == "properties":
            if not isinstance(value, Mapping):
                raise UnsupportedSchema(f"{where}: properties must be an object")
            out["properties"] = {
                str(name): convert_parameter(child, f"{where}.{name}", notes) for name, child in value.items()
            }
        elif key == "items":
            if not isinstance(value, Mapping):
                raise UnsupportedSchema(f"{where}: items must be one schema (tuple forms are not supported)")
            out["items"] = convert_parameter(value, f"{where}[]", notes)
        elif key == "required" and isinstance(value, list):
            out["required"] = _required(value, where)
        elif key in KEPT_KEYWORDS:
            out[key] = value
        else:
            notes.dropped[key] += 1
    return out


def _required(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise UnsupportedSchema(f"{where}: required must be a list of parameter names")
    return list(dict.fromkeys(value))


def convert_parameters(schema: Any, function: str, notes: SchemaNotes) -> dict[str, Any]:
    """Convert a BFCL function's ``parameters`` to a JSON Schema object with properties and required.

    Only ``type``, ``properties``, ``required`` and ``description`` are meaningful at the top level;
    other top-level keys (BFCL's informational ``optional`` list, a stray ``default``) are dropped
    and counted.
    """
    if schema is None:
        return {"type": "object", "properties": {}}
    if not isinstance(schema, Mapping):
        raise UnsupportedSchema(f"{function}: parameters must be an object")
    if schema.get("type", "dict") not in ("dict", "object"):
        raise UnsupportedSchema(f"{function}: parameters must have type dict, not {schema.get('type')!r}")
    out: dict[str, Any] = {"type": "object"}
    if isinstance(schema.get("description"), str):
        out["description"] = schema["description"]
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        raise UnsupportedSchema(f"{function}: properties must be an object")
    out["properties"] = {
        str(name): convert_parameter(child, f"{function}.{name}", notes) for name, child in properties.items()
    }
    if "required" in schema:
        out["required"] = _required(schema["required"], function)
    for key in schema:
        if key not in ("type", "description", "properties", "required"):
            notes.dropped[f"(top level) {key}"] += 1
    return out


def _shorten(base: str, suffix: str) -> str:
    return base[: _MAX_NAME - len(suffix)] + suffix


def _legal_form(name: str) -> str:
    legal = _ILLEGAL.sub("_", name)
    if not legal or not (legal[0].isascii() and (legal[0].isalpha() or legal[0] == "_")):
        legal = "_" + legal
    return legal[:_MAX_NAME]


def legal_names(names: Sequence[str]) -> dict[str, str]:
    """Original name -> a wire-legal name, unique within ``names``, chosen deterministically.

    Names that are already legal keep their spelling and are reserved first. Every other name
    has each illegal character replaced by ``_`` (``math.factorial`` -> ``math_factorial``), a
    leading ``_`` added when it would not start with a letter or ``_``, and is cut to 64
    characters; when that name is taken, ``_2``, ``_3``, ... is appended (in list order).
    Raises :class:`UnsupportedSchema` for duplicate original names.
    """
    duplicates = sorted(name for name, count in Counter(names).items() if count > 1)
    if duplicates:
        raise UnsupportedSchema(f"function name(s) defined twice: {', '.join(duplicates)}")
    chosen: dict[str, str] = {name: name for name in names if TOOL_NAME_PATTERN.fullmatch(name)}
    taken = set(chosen.values())
    for name in names:
        if name in chosen:
            continue
        base = _legal_form(name)
        candidate = base
        counter = 2
        while candidate in taken:
            candidate = _shorten(base, f"_{counter}")
            counter += 1
        chosen[name] = candidate
        taken.add(candidate)
    return {name: chosen[name] for name in names}


__all__ = [
    "KEPT_KEYWORDS",
    "TYPE_NAMES",
    "SchemaNotes",
    "UnsupportedSchema",
    "convert_parameter",
    "convert_parameters",
    "legal_names",
]
