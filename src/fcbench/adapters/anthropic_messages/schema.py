"""The ``anthropic-messages`` tool-schema rules.

:func:`transform_schema` returns the ``input_schema`` to send and one
:class:`~fcbench.contract.SchemaChange` per edit (machinery in :mod:`fcbench.schema.transform`).

Rules (source: protocols.md §6 keyword table unless noted):

==================  ============================================================  ==============
mode                rule                                                           source
==================  ============================================================  ==============
non-strict          unchanged (root ``anyOf/oneOf/allOf`` is rejected by the API   §3.1, §6
                    even without strict; it is sent as it is)
strict              ``additionalProperties: false`` on every object                §6 (SDK forces)
strict              ``oneOf`` rewritten to ``anyOf``                               §6 ``oneOf``
strict              moved into the description: numeric bounds, ``multipleOf``,    §6 (SDK moves
                    ``min/maxLength``, ``maxItems``, ``minItems`` > 1,             them there)
                    ``uniqueItems``, ``contains``, ``patternProperties``,
                    ``propertyNames``, ``unevaluated*``, ``min/maxProperties``,
                    ``not``, ``if/then/else``, ``dependent*``, a ``format``
                    outside the OpenAI list plus ``uri``, a lookaround ``pattern``
==================  ============================================================  ==============
"""

from __future__ import annotations

from typing import Any

from fcbench.adapters.openai_chat.schema import STRICT_FORMATS as OPENAI_STRICT_FORMATS
from fcbench.contract import SchemaChange, Tool
from fcbench.schema.transform import (
    Walk,
    apply_rules,
    close_object,
    has_lookaround,
    move_to_description,
    one_of_to_any_of,
)

STRICT_MOVED = (
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
"""Keywords strict tool use does not support, moved into the node's description."""

STRICT_FORMATS = OPENAI_STRICT_FORMATS | {"uri"}
"""The ``format`` values strict tool use supports; any other is moved into the description."""


def _visit_strict(walk: Walk, node: dict[str, Any], path: str) -> None:
    one_of_to_any_of(walk, node, path, "strict tool use does not support oneOf; anyOf is the closest")
    unsupported = [k for k in STRICT_MOVED if k in node]
    min_items = node.get("minItems")
    if isinstance(min_items, int) and min_items > 1:
        unsupported.append("minItems")
    fmt = node.get("format")
    if isinstance(fmt, str) and fmt not in STRICT_FORMATS:
        unsupported.append("format")
    if has_lookaround(node.get("pattern")):
        unsupported.append("pattern")
    if unsupported:
        move_to_description(
            walk, node, path, unsupported, "strict tool use does not support it: moved into the description"
        )
    close_object(walk, node, path, "strict tool use requires additionalProperties: false on every object")


def rules(tool: Tool, params: dict[str, Any], strict: bool) -> list[SchemaChange]:
    """Apply the Anthropic rules to ``params`` (a copy) in place; the changes made (none unless strict)."""
    return Walk(tool, params).run(_visit_strict) if strict else []


def transform_schema(tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
    """The ``input_schema`` to send for ``tool``, and every change made to it (cached)."""
    return apply_rules(rules, tool, strict=strict)


__all__ = ["STRICT_FORMATS", "STRICT_MOVED", "rules", "transform_schema"]
