"""Dialect-free machinery for transforming a tool's parameters schema, every edit recorded.

A dialect's schema rules (:data:`Rules`) edit a deep copy of the parameters and return one
:class:`~fcbench.contract.SchemaChange` per edit, so a report can say exactly what a provider was
shown. :func:`apply_rules` runs a rule set on a copy and caches the result per (rules, tool,
strict). The canonical schema is never modified, and the grader always validates against the
canonical schema, never the transformed one. Rules do only what their dialect requires; a schema
the provider would still reject is sent as it is, so the rejection shows up as a
``schema_rejected`` provider error instead of being hidden.

This module knows no dialect. Each dialect's rules, with the table of what they do and why, live
in its adapter package: ``fcbench.adapters.<dialect>.schema`` (the two OpenAI dialects share
``fcbench.adapters.openai_chat.schema``).

The building blocks:

* :class:`Walk`: one pass over a schema copy, parents before children, recording changes;
* edits that record themselves: :func:`drop`, :func:`close_object`, :func:`one_of_to_any_of`,
  :func:`make_nullable`, :func:`inline_ref` (local refs with siblings, never recursive ones);
* predicates: :func:`is_object`, :func:`is_nullable`, :func:`has_lookaround`;
* :func:`pointer` and :func:`children` to address subschemas.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any, Literal

from fcbench.contract import SchemaChange, Tool
from fcbench.contract.json_text import parse_json

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
_LOOKAROUND = re.compile(r"\(\?<?[=!]")

Action = Literal["removed", "added", "rewritten", "moved"]

Rules = Callable[[Tool, dict[str, Any], bool], list[SchemaChange]]
"""A dialect's rule set: edits a deep copy of ``tool``'s parameters in place (strict or not) and
returns the changes it made. Must be a module-level function: it is part of the cache key."""

Visit = Callable[["Walk", dict[str, Any], str], None]
"""Edits one node (at a JSON pointer) during a :class:`Walk`."""


def pointer(path: str, *tokens: str | int) -> str:
    """Extend a JSON pointer with escaped tokens."""
    for token in tokens:
        path += "/" + str(token).replace("~", "~0").replace("/", "~1")
    return path


def children(node: dict[str, Any], path: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Every subschema (dict) directly inside ``node``, with its pointer."""
    for key in _SINGLE:
        value = node.get(key)
        if isinstance(value, dict):
            yield value, pointer(path, key)
    for key in _LISTS:
        value = node.get(key)
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, dict):
                    yield item, pointer(path, key, index)
    for key in _MAPS:
        value = node.get(key)
        if isinstance(value, dict):
            for name, item in value.items():
                if isinstance(item, dict):
                    yield item, pointer(path, key, name)


def is_object(node: dict[str, Any]) -> bool:
    """True when ``node`` describes an object (by ``type`` or by having ``properties``)."""
    kind = node.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in node


def is_nullable(node: dict[str, Any]) -> bool:
    """True when ``node`` already accepts ``null`` (type, enum, const or an ``anyOf`` branch)."""
    kind = node.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if isinstance(node.get("enum"), list) and None in node["enum"]:
        return True
    if "const" in node and node["const"] is None:
        return True
    branches = node.get("anyOf")
    return isinstance(branches, list) and any(isinstance(b, dict) and is_nullable(b) for b in branches)


def has_lookaround(pattern: Any) -> bool:
    """True when ``pattern`` is a regex string using lookahead or lookbehind."""
    return isinstance(pattern, str) and _LOOKAROUND.search(pattern) is not None


class Walk:
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

    def run(self, visit: Visit) -> list[SchemaChange]:
        """Visit every node of the root, parents first; returns every change recorded so far."""
        pending: list[tuple[dict[str, Any], str]] = [(self.root, "")]
        while pending:
            node, path = pending.pop()
            visit(self, node, path)
            pending.extend(reversed(list(children(node, path))))
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


def drop(walk: Walk, node: dict[str, Any], path: str, keyword: str, reason: str) -> None:
    """Remove ``keyword`` from ``node``."""
    del node[keyword]
    walk.record(path, keyword, "removed", reason)


def close_object(walk: Walk, node: dict[str, Any], path: str, reason: str) -> None:
    """Set ``additionalProperties: false`` on an object node that is not closed yet."""
    if not is_object(node) or node.get("additionalProperties") is False:
        return
    action: Action = "rewritten" if "additionalProperties" in node else "added"
    node["additionalProperties"] = False
    walk.record(path, "additionalProperties", action, reason)


def one_of_to_any_of(walk: Walk, node: dict[str, Any], path: str, reason: str) -> None:
    """Rename ``oneOf`` to ``anyOf`` (when the node has no ``anyOf`` already)."""
    if "oneOf" in node and "anyOf" not in node:
        node["anyOf"] = node.pop("oneOf")
        walk.record(path, "oneOf", "rewritten", reason)


def make_nullable(walk: Walk, parent: dict[str, Any], name: str, path: str, reason: str) -> None:
    """Let ``parent[name]`` also be null, in the least intrusive form its schema allows.

    A ``type`` gains ``"null"`` (and an ``enum`` a ``None`` member); a lone ``anyOf`` gains a null
    branch; anything else is wrapped in ``{"anyOf": [schema, {"type": "null"}]}``.
    """
    node = parent[name]
    if not isinstance(node, dict) or is_nullable(node):
        return
    kind = node.get("type")
    if isinstance(kind, str | list) and "const" not in node and "anyOf" not in node:
        node["type"] = [kind, "null"] if isinstance(kind, str) else [*kind, "null"]
        if isinstance(node.get("enum"), list):
            node["enum"] = [*node["enum"], None]
        walk.record(path, "type", "rewritten", reason)
    elif isinstance(node.get("anyOf"), list) and len(node) == 1:
        node["anyOf"] = [*node["anyOf"], {"type": "null"}]
        walk.record(path, "anyOf", "rewritten", reason)
    else:
        parent[name] = {"anyOf": [node, {"type": "null"}]}
        walk.record(path, "anyOf", "added", reason)


def inline_ref(walk: Walk, node: dict[str, Any], path: str, reason: str) -> None:
    """Replace a local ``$ref`` that has sibling keywords by a copy of its target (siblings win).

    A bare ``$ref``, a non-local or unresolvable one, and one whose target leads back to itself
    (inlining would never end) are left alone. The change's reason is ``reason`` plus the ref.
    """
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
    walk.record(path, "$ref", "rewritten", f"{reason}: inlined {ref}")


def _refs_in(node: dict[str, Any]) -> Iterator[str]:
    if isinstance(node.get("$ref"), str):
        yield node["$ref"]
    for child, _ in children(node, ""):
        yield from _refs_in(child)


def _is_recursive(walk: Walk, ref: str, target: dict[str, Any]) -> bool:
    """True when ``target`` leads back to ``ref`` through references."""
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


def apply_rules(
    rules: Rules, tool: Tool, *, strict: bool = False
) -> tuple[dict[str, Any], list[SchemaChange]]:
    """The parameters schema ``rules`` make of ``tool``'s, and every change made to it.

    ``tool.parameters`` is never modified. Each distinct (rules, tool, strict) is transformed
    once; every call gets its own copy of the result.
    """
    params_json, changes = _apply_once(rules, tool.model_dump_json(), strict)
    return parse_json(params_json), list(changes)


@lru_cache(maxsize=4096)
def _apply_once(rules: Rules, tool_json: str, strict: bool) -> tuple[bytes, tuple[SchemaChange, ...]]:
    """The transformed schema as JSON text (copied cheaply by parsing) and the changes made."""
    tool = Tool.model_validate_json(tool_json)
    params = copy.deepcopy(tool.parameters)
    changes = rules(tool, params, strict)
    return json.dumps(params).encode(), tuple(changes)


__all__ = [
    "Action",
    "Rules",
    "Visit",
    "Walk",
    "apply_rules",
    "children",
    "close_object",
    "drop",
    "has_lookaround",
    "inline_ref",
    "is_nullable",
    "is_object",
    "make_nullable",
    "one_of_to_any_of",
    "pointer",
]
