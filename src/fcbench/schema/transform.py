"""Per-dialect transforms of a tool's parameters schema, every change recorded.

:func:`apply` returns the schema to put on the wire for one dialect and one
:class:`~fcbench.adapters.base.SchemaChange` per edit, so a report can say exactly what a provider
was shown. The canonical schema is never modified (the transform works on a deep copy), and the
grader always validates against the canonical schema, never the transformed one. A transform does
only what the dialect requires; a schema the provider would still reject is sent as it is, so the
rejection shows up as a ``schema_rejected`` provider error instead of being hidden.

Rules (source: protocols.md §6 keyword table unless noted):

==================  ============================================================  ==============
dialect             rule                                                           source
==================  ============================================================  ==============
openai-*            ``$schema`` removed (both strict and non-strict: "strip it")   §6 ``$schema``
openai-*, strict    ``additionalProperties: false`` added/rewritten on every       §1.1, §6
                    object
openai-*, strict    every property listed in ``required``; a property that was     §1.1, §6
                    optional becomes nullable (type list ``["T","null"]``, a
                    ``null`` enum member, or an ``anyOf`` null branch)
openai-*, strict    ``oneOf`` rewritten to ``anyOf``                               §6 ``oneOf``
openai-*, strict    a one-element ``allOf`` inlined (longer ones are left alone)   §6 ``allOf``
openai-*, strict    ``$ref`` with sibling keywords inlined (local refs only)       §6 ``$ref``
openai-*, strict    removed: ``default``, ``not``, ``if/then/else``,               §1.1 errors, §6
                    ``dependentRequired/Schemas``, ``minLength/maxLength``,
                    ``uniqueItems``, ``contains``, ``patternProperties``,
                    ``propertyNames``, ``unevaluated*``, ``min/maxProperties``
openai-*, strict    ``format`` removed unless one of date-time, time, date,        §6 ``format``
                    duration, email, hostname, ipv4, ipv6, uuid
openai-*, strict    ``pattern`` removed when it uses lookaround                    §6 ``pattern``
anthropic-messages  unchanged (root ``anyOf/oneOf/allOf`` is rejected by the API   §3.1, §6
                    even without strict; it is sent as it is)
anthropic, strict   ``additionalProperties: false`` on every object                §6 (SDK forces)
anthropic, strict   ``oneOf`` rewritten to ``anyOf``                               §6 ``oneOf``
anthropic, strict   moved into the description: numeric bounds, ``multipleOf``,    §6 (SDK moves
                    ``min/maxLength``, ``maxItems``, ``minItems`` > 1,             them there)
                    ``uniqueItems``, ``contains``, ``patternProperties``,
                    ``propertyNames``, ``unevaluated*``, ``min/maxProperties``,
                    ``not``, ``if/then/else``, ``dependent*``, a ``format``
                    outside the OpenAI list plus ``uri``, a lookaround ``pattern``
gemini              whole schema sent as ``parametersJsonSchema`` (full JSON       §4.1, §6
                    Schema) instead of the OpenAPI-subset ``parameters``; one
                    ``moved`` change records it; no keyword is touched
==================  ============================================================  ==============

Why ``parametersJsonSchema`` for Gemini: the OpenAPI-subset ``parameters`` rejects ``const``,
``$ref``/``$defs``, ``oneOf``, type lists and ``$schema`` (§4.1, §6), so using it would mean
rewriting or dropping constraints of ordinary schemas; ``parametersJsonSchema`` takes them as
they are and is what current SDKs send (§7.3).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any, Literal

from fcbench.adapters.base import SchemaChange
from fcbench.contract import Tool
from fcbench.errors import TargetError

GEMINI_SCHEMA_FIELD = "parametersJsonSchema"
"""The ``functionDeclarations[]`` field the Gemini adapter puts the transformed schema in."""

_SINGLE = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
)
_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")
_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")

_OPENAI_STRICT_DROPPED = (
    "default",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "minLength",
    "maxLength",
    "uniqueItems",
    "contains",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "minProperties",
    "maxProperties",
)
_OPENAI_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
_ANTHROPIC_STRICT_MOVED = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "uniqueItems",
    "contains",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "minProperties",
    "maxProperties",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
)
_ANTHROPIC_STRICT_FORMATS = _OPENAI_STRICT_FORMATS | {"uri"}
_LOOKAROUND = re.compile(r"\(\?<?[=!]")

Action = Literal["removed", "added", "rewritten", "moved"]

Transform = Callable[[Tool, dict[str, Any], bool], list[SchemaChange]]
"""Edits a deep copy of the parameters in place and returns the changes it made."""


def _ptr(path: str, *tokens: str | int) -> str:
    """Extend a JSON pointer with escaped tokens."""
    for token in tokens:
        path += "/" + str(token).replace("~", "~0").replace("/", "~1")
    return path


def _children(node: dict[str, Any], path: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Every subschema (dict) directly inside ``node``, with its pointer."""
    for key in _SINGLE:
        value = node.get(key)
        if isinstance(value, dict):
            yield value, _ptr(path, key)
    for key in _LISTS:
        value = node.get(key)
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, dict):
                    yield item, _ptr(path, key, index)
    for key in _MAPS:
        value = node.get(key)
        if isinstance(value, dict):
            for name, item in value.items():
                if isinstance(item, dict):
                    yield item, _ptr(path, key, name)


def _is_object(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in node


def _is_nullable(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if isinstance(node.get("enum"), list) and None in node["enum"]:
        return True
    if "const" in node and node["const"] is None:
        return True
    branches = node.get("anyOf")
    return isinstance(branches, list) and any(isinstance(b, dict) and _is_nullable(b) for b in branches)


class _Walk:
    """One pass over a schema copy; ``visit`` edits each node before its children are walked."""

    def __init__(self, tool: Tool, root: dict[str, Any]) -> None:
        self.tool = tool
        self.root = root
        self.changes: list[SchemaChange] = []

    def record(self, path: str, keyword: str, action: Action, reason: str) -> None:
        """Append one change for this tool."""
        self.changes.append(
            SchemaChange(tool=self.tool.name, path=path, keyword=keyword, action=action, reason=reason)
        )

    def run(self, visit: Callable[[_Walk, dict[str, Any], str], None]) -> list[SchemaChange]:
        """Visit every node of the root, parents first."""
        pending: list[tuple[dict[str, Any], str]] = [(self.root, "")]
        while pending:
            node, path = pending.pop()
            visit(self, node, path)
            pending.extend(reversed(list(_children(node, path))))
        return self.changes

    def resolve(self, ref: str) -> dict[str, Any] | None:
        """Resolve a local ``#/...`` reference against the root, or None."""
        if ref != "#" and not ref.startswith("#/"):
            return None
        target: Any = self.root
        for raw in ref[2:].split("/") if ref != "#" else []:
            token = raw.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or token not in target:
                return None
            target = target[token]
        return target if isinstance(target, dict) else None


def _drop(walk: _Walk, node: dict[str, Any], path: str, keyword: str, reason: str) -> None:
    del node[keyword]
    walk.record(path, keyword, "removed", reason)


def _close_object(walk: _Walk, node: dict[str, Any], path: str, reason: str) -> None:
    if not _is_object(node) or node.get("additionalProperties") is False:
        return
    action: Action = "rewritten" if "additionalProperties" in node else "added"
    node["additionalProperties"] = False
    walk.record(path, "additionalProperties", action, reason)


def _one_of_to_any_of(walk: _Walk, node: dict[str, Any], path: str, reason: str) -> None:
    if "oneOf" in node and "anyOf" not in node:
        node["anyOf"] = node.pop("oneOf")
        walk.record(path, "oneOf", "rewritten", reason)


def _make_nullable(walk: _Walk, parent: dict[str, Any], name: str, path: str) -> None:
    """Let an optional property also be null, in the least intrusive form its schema allows."""
    node = parent[name]
    if not isinstance(node, dict) or _is_nullable(node):
        return
    reason = "optional property made nullable: strict mode requires every property in 'required'"
    kind = node.get("type")
    if isinstance(kind, str) and "const" not in node and "anyOf" not in node:
        node["type"] = [kind, "null"]
        if isinstance(node.get("enum"), list):
            node["enum"] = [*node["enum"], None]
        walk.record(path, "type", "rewritten", reason)
    elif isinstance(kind, list) and "const" not in node and "anyOf" not in node:
        node["type"] = [*kind, "null"]
        if isinstance(node.get("enum"), list):
            node["enum"] = [*node["enum"], None]
        walk.record(path, "type", "rewritten", reason)
    elif isinstance(node.get("anyOf"), list) and len(node) == 1:
        node["anyOf"] = [*node["anyOf"], {"type": "null"}]
        walk.record(path, "anyOf", "rewritten", reason)
    else:
        parent[name] = {"anyOf": [node, {"type": "null"}]}
        walk.record(path, "anyOf", "added", reason)


def _require_all(walk: _Walk, node: dict[str, Any], path: str) -> None:
    properties = node.get("properties")
    if not isinstance(properties, dict):
        return
    required = node.get("required")
    listed = list(required) if isinstance(required, list) else []
    missing = [name for name in properties if name not in listed]
    for name in missing:
        _make_nullable(walk, properties, name, _ptr(path, "properties", name))
    if missing or not isinstance(required, list):
        action: Action = "rewritten" if "required" in node else "added"
        node["required"] = listed + missing
        walk.record(
            path, "required", action, f"strict mode requires every property in 'required': added {missing}"
        )


def _inline_ref(walk: _Walk, node: dict[str, Any], path: str) -> None:
    ref = node.get("$ref")
    if not isinstance(ref, str) or len(node) == 1:
        return
    target = walk.resolve(ref)
    if target is None or _is_recursive(walk, ref, target):
        return
    siblings = {k: v for k, v in node.items() if k != "$ref"}
    node.clear()
    node.update(copy.deepcopy(target))
    node.update(siblings)
    walk.record(path, "$ref", "rewritten", f"strict mode rejects $ref with sibling keywords: inlined {ref}")


def _refs_in(node: dict[str, Any]) -> Iterator[str]:
    if isinstance(node.get("$ref"), str):
        yield node["$ref"]
    for child, _ in _children(node, ""):
        yield from _refs_in(child)


def _is_recursive(walk: _Walk, ref: str, target: dict[str, Any]) -> bool:
    """True when ``target`` leads back to ``ref`` through references (inlining would never end)."""
    seen: set[str] = set()
    pending = list(_refs_in(target))
    while pending:
        current = pending.pop()
        if current == ref or current == "#":
            return True
        if current in seen:
            continue
        seen.add(current)
        resolved = walk.resolve(current)
        if resolved is not None:
            pending.extend(_refs_in(resolved))
    return False


def _openai_visit(strict: bool) -> Callable[[_Walk, dict[str, Any], str], None]:
    def visit(walk: _Walk, node: dict[str, Any], path: str) -> None:
        if "$schema" in node:
            _drop(walk, node, path, "$schema", "OpenAI tool schemas do not take '$schema'")
        if not strict:
            return
        _inline_ref(walk, node, path)
        _one_of_to_any_of(walk, node, path, "strict mode does not support oneOf; anyOf is the closest")
        all_of = node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
            inner = node.pop("allOf")[0]
            node.update({k: v for k, v in inner.items() if k not in node})
            walk.record(
                path, "allOf", "rewritten", "strict mode does not support allOf: one-element allOf inlined"
            )
        for keyword in _OPENAI_STRICT_DROPPED:
            if keyword in node:
                _drop(walk, node, path, keyword, f"strict mode does not permit '{keyword}'")
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in _OPENAI_STRICT_FORMATS:
            _drop(walk, node, path, "format", f"strict mode does not support format {fmt!r}")
        pattern = node.get("pattern")
        if isinstance(pattern, str) and _LOOKAROUND.search(pattern):
            _drop(walk, node, path, "pattern", "strict mode does not support lookaround in patterns")
        _close_object(walk, node, path, "strict mode requires additionalProperties: false on every object")

    return visit


def _move_to_description(walk: _Walk, node: dict[str, Any], path: str, keywords: list[str]) -> None:
    moved = {k: node.pop(k) for k in keywords}
    note = "; ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in moved.items())
    description = node.get("description")
    prefix = f"{description}\n\n" if isinstance(description, str) and description else ""
    node["description"] = f"{prefix}(constraints: {note})"
    for keyword in moved:
        walk.record(path, keyword, "moved", "strict tool use does not support it: moved into the description")


def _anthropic_visit(strict: bool) -> Callable[[_Walk, dict[str, Any], str], None]:
    def visit(walk: _Walk, node: dict[str, Any], path: str) -> None:
        if not strict:
            return
        _one_of_to_any_of(walk, node, path, "strict tool use does not support oneOf; anyOf is the closest")
        unsupported = [k for k in _ANTHROPIC_STRICT_MOVED if k in node]
        min_items = node.get("minItems")
        if isinstance(min_items, int) and min_items > 1:
            unsupported.append("minItems")
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in _ANTHROPIC_STRICT_FORMATS:
            unsupported.append("format")
        pattern = node.get("pattern")
        if isinstance(pattern, str) and _LOOKAROUND.search(pattern):
            unsupported.append("pattern")
        if unsupported:
            _move_to_description(walk, node, path, unsupported)
        _close_object(
            walk, node, path, "strict tool use requires additionalProperties: false on every object"
        )

    return visit


def _openai(tool: Tool, params: dict[str, Any], strict: bool) -> list[SchemaChange]:
    walk = _Walk(tool, params)
    walk.run(_openai_visit(strict))
    # Second pass, once every node is in its final form, so nullable wrappers wrap finished schemas.
    return walk.run(_require_all) if strict else walk.changes


def _anthropic(tool: Tool, params: dict[str, Any], strict: bool) -> list[SchemaChange]:
    return _Walk(tool, params).run(_anthropic_visit(strict))


def _gemini(tool: Tool, params: dict[str, Any], strict: bool) -> list[SchemaChange]:
    reason = (
        f"sent as functionDeclarations[].{GEMINI_SCHEMA_FIELD} (full JSON Schema) instead of the "
        "OpenAPI-subset 'parameters', which rejects const, $ref, oneOf and type lists"
    )
    return [SchemaChange(tool=tool.name, path="", keyword="parameters", action="moved", reason=reason)]


TRANSFORMS: dict[str, Transform] = {
    "openai-chat": _openai,
    "openai-responses": _openai,
    "anthropic-messages": _anthropic,
    "gemini": _gemini,
}
"""Dialect -> transform. A dialect added through an entry point registers no transform by default."""


def apply(dialect: str, tool: Tool, *, strict: bool = False) -> tuple[dict[str, Any], list[SchemaChange]]:
    """The parameters schema to send for ``tool`` in ``dialect``, and every change made to it.

    ``tool.parameters`` is never modified. Raises :class:`~fcbench.errors.TargetError` for a
    dialect without a registered transform. Each distinct (dialect, tool, strict) is transformed
    once; every call gets its own copy of the result.
    """
    if dialect not in TRANSFORMS:
        raise TargetError(
            f"no schema transform for dialect {dialect!r}; known: {', '.join(sorted(TRANSFORMS))}"
        )
    params_json, changes = _apply_once(dialect, tool.model_dump_json(), strict)
    return json.loads(params_json), list(changes)


@lru_cache(maxsize=4096)
def _apply_once(dialect: str, tool_json: str, strict: bool) -> tuple[str, tuple[SchemaChange, ...]]:
    """The transformed schema as JSON text (copied cheaply by parsing) and the changes made."""
    tool = Tool.model_validate_json(tool_json)
    params = copy.deepcopy(tool.parameters)
    changes = TRANSFORMS[dialect](tool, params, strict)
    return json.dumps(params), tuple(changes)


__all__ = ["GEMINI_SCHEMA_FIELD", "TRANSFORMS", "Transform", "apply"]
