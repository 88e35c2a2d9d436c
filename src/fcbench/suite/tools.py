"""Checks on tool definitions, and the field-path findings every suite check reports.

A tool is valid when its name is legal in every wire dialect, its ``parameters`` is a valid
Draft 2020-12 JSON Schema (checked against the meta-schema, formats included) describing an
object, and every ``$ref`` in it points inside the schema itself (suites are self-contained).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from pydantic import ValidationError

from fcbench.contract import Tool
from fcbench.schema.validate import FORMAT_CHECKER, local_ref_target, ref_cycle

TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$")
"""Tool names every supported dialect accepts."""

_META_VALIDATOR = Draft202012Validator(Draft202012Validator.META_SCHEMA, format_checker=FORMAT_CHECKER)
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
"""Keywords whose values are data, not schemas (a ``$ref`` key inside them is not a reference)."""

Key = str | int


@dataclass(frozen=True)
class Finding:
    """One problem at a field path inside a JSON value (a case line or a tool)."""

    keys: tuple[Key, ...]
    """Path to the offending value: object keys and array indexes."""
    message: str

    def field(self) -> str:
        """The path rendered as ``expected.calls[0].name``."""
        return render_path(self.keys)

    def __str__(self) -> str:
        where = self.field()
        return f"{where}: {self.message}" if where else self.message

    def under(self, *prefix: Key) -> Finding:
        """The same finding with ``prefix`` put in front of its path."""
        return Finding((*prefix, *self.keys), self.message)


def render_path(keys: Sequence[Key]) -> str:
    """Render a field path: string keys joined by dots, indexes in brackets."""
    text = ""
    for key in keys:
        if isinstance(key, int):
            text += f"[{key}]"
        else:
            text += f".{key}" if text else key
    return text


_PYDANTIC_TEXT = {
    "extra_forbidden": "unknown key",
    "missing": "required key is missing",
}


def _clean_loc(loc: Sequence[Key], data: Any) -> tuple[tuple[Key, ...], bool]:
    """Drop pydantic's union-member tags from ``loc`` by walking it against the input data.

    Returns the cleaned path and whether the error sits at a node whose tag was dropped
    (a union alternative's complaint).
    """
    cleaned: list[Key] = []
    current = data
    dropped = False
    for position, key in enumerate(loc):
        last = position == len(loc) - 1
        if isinstance(current, dict):
            if key in current:
                cleaned.append(key)
                current = current[key]
            elif last or not isinstance(key, str):
                cleaned.append(key)
                current = None
            else:
                dropped = True
        elif isinstance(current, list) and isinstance(key, int):
            cleaned.append(key)
            current = current[key] if 0 <= key < len(current) else None
        else:
            dropped = True
    return tuple(cleaned), dropped


def pydantic_findings(exc: ValidationError, data: Any) -> list[Finding]:
    """Turn a pydantic error into findings with dotted field paths (union tags removed)."""
    raw: list[tuple[tuple[Key, ...], bool, str, str]] = []
    for error in exc.errors(include_url=False):
        keys, dropped = _clean_loc(tuple(error["loc"]), data)
        kind = error["type"]
        text = _PYDANTIC_TEXT.get(kind, error["msg"])
        ctx = error.get("ctx") or {}
        if kind in {"union_tag_invalid", "union_tag_not_found"}:
            discriminator = str(ctx.get("discriminator", "")).strip("'")
            keys = (*keys, discriminator)
            text = (
                f"{ctx.get('tag')!r} is not one of {ctx.get('expected_tags')}"
                if kind == "union_tag_invalid"
                else "required key is missing"
            )
        raw.append((keys, dropped and kind.endswith("_type"), kind, text))
    deeper = {keys for keys, _, _, _ in raw}
    findings: list[Finding] = []
    seen: set[tuple[tuple[Key, ...], str]] = set()
    for keys, alternative, _, text in raw:
        # A union alternative's type complaint is noise when another alternative went deeper.
        if alternative and any(other[: len(keys)] == keys and len(other) > len(keys) for other in deeper):
            continue
        if (keys, text) not in seen:
            seen.add((keys, text))
            findings.append(Finding(keys, text))
    return findings


def _walk_refs(node: Any, keys: tuple[Key, ...]) -> Iterator[tuple[tuple[Key, ...], str]]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield (*keys, "$ref"), ref
        for key, value in node.items():
            if key not in _DATA_KEYWORDS:
                yield from _walk_refs(value, (*keys, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk_refs(value, (*keys, index))


def _resolves(schema: Any, ref: str) -> bool:
    try:
        local_ref_target(schema, ref)
    except KeyError:
        return False
    return True


def schema_findings(schema: Any) -> list[Finding]:
    """Problems with a tool's ``parameters`` schema (paths relative to the schema)."""
    findings: list[Finding] = []
    seen: set[tuple[tuple[Key, ...], str]] = set()
    for error in _META_VALIDATOR.iter_errors(schema):
        keys = tuple(error.absolute_path)
        if (keys, error.message) not in seen:
            seen.add((keys, error.message))
            findings.append(Finding(keys, f"not valid JSON Schema: {error.message}"))
    if findings:
        return findings
    if not isinstance(schema, dict) or schema.get("type") != "object":
        findings.append(Finding(("type",), 'the parameters schema must have "type": "object"'))
    for keys, ref in _walk_refs(schema, ()):
        if ref.startswith("#") and not ref.startswith("#/") and ref != "#":
            continue  # an $anchor reference; resolved by the validator
        if not ref.startswith("#"):
            findings.append(
                Finding(keys, f"{ref!r} is not a local reference (suites must be self-contained)")
            )
        elif not _resolves(schema, ref):
            findings.append(Finding(keys, f"{ref!r} does not point inside this schema"))
    if not findings:
        cycle = ref_cycle(schema)
        if cycle is not None:
            findings.append(Finding((), f"a reference loop that never ends: {cycle}"))
    return findings


def tool_findings(tools: Sequence[Tool]) -> list[Finding]:
    """Problems with already-parsed tools: names, duplicates and schemas (paths start at the index)."""
    findings: list[Finding] = []
    first_index: dict[str, int] = {}
    for index, tool in enumerate(tools):
        if not TOOL_NAME_PATTERN.fullmatch(tool.name):
            findings.append(
                Finding(
                    (index, "name"),
                    f"{tool.name!r} is not a legal tool name in every dialect (use 1 to 64 letters, "
                    "digits, '_' or '-', starting with a letter or '_')",
                )
            )
        if tool.name in first_index:
            findings.append(
                Finding(
                    (index, "name"),
                    f"duplicate tool name {tool.name!r} (first defined at [{first_index[tool.name]}])",
                )
            )
        else:
            first_index[tool.name] = index
        findings.extend(f.under(index, "parameters") for f in schema_findings(tool.parameters))
    return findings


def parameter_names(tool: Tool) -> set[str]:
    """Names of the tool's declared top-level parameters."""
    properties = tool.parameters.get("properties")
    return set(properties) if isinstance(properties, dict) else set()


def is_closed(tool: Tool) -> bool:
    """True when the tool's schema rejects parameters it does not declare."""
    return tool.parameters.get("additionalProperties") is False


def tools_by_name(tools: Sequence[Tool]) -> Mapping[str, Tool]:
    """Index tools by name (the first definition wins on duplicates)."""
    index: dict[str, Tool] = {}
    for tool in tools:
        index.setdefault(tool.name, tool)
    return index
