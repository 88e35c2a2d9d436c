"""The OpenAI tool-schema rules, shared by ``openai-chat`` and ``openai-responses``.

:func:`transform_schema` returns the ``parameters`` schema to send and one
:class:`~fcbench.contract.SchemaChange` per edit (machinery in :mod:`fcbench.schema.transform`).

Rules (source: protocols.md §6 keyword table unless noted):

==================  ============================================================  ==============
mode                rule                                                           source
==================  ============================================================  ==============
both                ``$schema`` removed (both strict and non-strict: "strip it")   §6 ``$schema``
strict              ``additionalProperties: false`` added/rewritten on every       §1.1, §6
                    object
strict              every property listed in ``required``; a property that was     §1.1, §6
                    optional becomes nullable (type list ``["T","null"]``, a
                    ``null`` enum member, or an ``anyOf`` null branch)
strict              ``oneOf`` rewritten to ``anyOf``                               §6 ``oneOf``
strict              a one-element ``allOf`` inlined (longer ones are left alone)   §6 ``allOf``
strict              ``$ref`` with sibling keywords inlined (local refs only)       §6 ``$ref``
strict              removed: ``default``, ``not``, ``if/then/else``,               §1.1 errors, §6
                    ``dependentRequired/Schemas``, ``minLength/maxLength``,
                    ``uniqueItems``, ``contains``, ``patternProperties``,
                    ``propertyNames``, ``unevaluated*``, ``min/maxProperties``
strict              ``format`` removed unless one of date-time, time, date,        §6 ``format``
                    duration, email, hostname, ipv4, ipv6, uuid
strict              ``pattern`` removed when it uses lookaround                    §6 ``pattern``
==================  ============================================================  ==============
"""

from __future__ import annotations

from typing import Any

from fcbench.contract import SchemaChange, Tool
from fcbench.schema.transform import (
    Action,
    Visit,
    Walk,
    apply_rules,
    close_object,
    drop,
    has_lookaround,
    inline_ref,
    make_nullable,
    one_of_to_any_of,
    pointer,
)

STRICT_DROPPED = (
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
"""Keywords strict mode rejects, removed from every node."""

STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
"""The ``format`` values strict mode supports; any other is removed."""

_REQUIRE_ALL = "strict mode requires every property in 'required'"
_NULLABLE = f"optional property made nullable: {_REQUIRE_ALL}"


def _visit(strict: bool) -> Visit:
    def visit(walk: Walk, node: dict[str, Any], path: str) -> None:
        if "$schema" in node:
            drop(walk, node, path, "$schema", "OpenAI tool schemas do not take '$schema'")
        if not strict:
            return
        inline_ref(walk, node, path, "strict mode rejects $ref with sibling keywords")
        one_of_to_any_of(walk, node, path, "strict mode does not support oneOf; anyOf is the closest")
        all_of = node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
            inner = node.pop("allOf")[0]
            node.update({k: v for k, v in inner.items() if k not in node})
            walk.record(
                path, "allOf", "rewritten", "strict mode does not support allOf: one-element allOf inlined"
            )
        for keyword in STRICT_DROPPED:
            if keyword in node:
                drop(walk, node, path, keyword, f"strict mode does not permit '{keyword}'")
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in STRICT_FORMATS:
            drop(walk, node, path, "format", f"strict mode does not support format {fmt!r}")
        if has_lookaround(node.get("pattern")):
            drop(walk, node, path, "pattern", "strict mode does not support lookaround in patterns")
        close_object(walk, node, path, "strict mode requires additionalProperties: false on every object")

    return visit


def _require_all(walk: Walk, node: dict[str, Any], path: str) -> None:
    properties = node.get("properties")
    if not isinstance(properties, dict):
        return
    required = node.get("required")
    listed = list(required) if isinstance(required, list) else []
    missing = [name for name in properties if name not in listed]
    for name in missing:
        make_nullable(walk, properties, name, pointer(path, "properties", name), _NULLABLE)
    if missing or not isinstance(required, list):
        action: Action = "rewritten" if "required" in node else "added"
        node["required"] = listed + missing
        walk.record(path, "required", action, f"{_REQUIRE_ALL}: added {missing}")


def rules(tool: Tool, params: dict[str, Any], strict: bool) -> list[SchemaChange]:
    """Apply the OpenAI rules to ``params`` (a copy) in place; the changes made."""
    walk = Walk(tool, params)
    walk.run(_visit(strict))
    # Second pass, once every node is in its final form, so nullable wrappers wrap finished schemas.
    return walk.run(_require_all) if strict else walk.changes


def transform_schema(tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
    """The ``parameters`` schema to send for ``tool``, and every change made to it (cached)."""
    return apply_rules(rules, tool, strict=strict)


__all__ = ["STRICT_DROPPED", "STRICT_FORMATS", "rules", "transform_schema"]
