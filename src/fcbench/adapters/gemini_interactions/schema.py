"""The ``gemini-interactions`` tool-schema rules.

:func:`transform_schema` returns the schema to put in ``tools[].parameters`` and the changes made.

Rules (source: protocols.md §4.6 and the §6 keyword table, column ``parametersJsonSchema``):

==========  ===========================================================  ==============
mode        rule                                                          source
==========  ===========================================================  ==============
both        the whole schema is sent as ``parameters``: this API takes     §4.6
            ordinary JSON Schema there (the typed OpenAPI subset of
            ``generateContent`` is not used), so no keyword is touched
strict      ``oneOf`` rewritten to ``anyOf``: Gemini's JSON Schema path    §6
            reads ``oneOf`` as ``anyOf``, and with ``validated`` decoding
            the schema sent should say what is enforced
==========  ===========================================================  ==============
"""

from __future__ import annotations

from typing import Any

from fcbench.contract import SchemaChange, Tool
from fcbench.schema.transform import Walk, apply_rules, one_of_to_any_of

_ONE_OF_REASON = (
    "validated decoding reads oneOf as anyOf (Gemini JSON Schema support); sent as anyOf so the "
    "schema shown is the one enforced"
)


def _strict_visit(walk: Walk, node: dict[str, Any], path: str) -> None:
    one_of_to_any_of(walk, node, path, _ONE_OF_REASON)


def rules(tool: Tool, params: dict[str, Any], strict: bool) -> list[SchemaChange]:
    """Nothing outside strict mode; in strict mode every ``oneOf`` becomes ``anyOf``."""
    if not strict:
        return []
    return Walk(tool, params).run(_strict_visit)


def transform_schema(tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
    """The ``parameters`` schema for ``tool`` and the changes recorded (cached)."""
    return apply_rules(rules, tool, strict=strict)


__all__ = ["rules", "transform_schema"]
