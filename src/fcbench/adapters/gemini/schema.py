"""The ``gemini`` tool-schema rules.

:func:`transform_schema` returns the schema to put in ``functionDeclarations[].``
:data:`SCHEMA_FIELD` and the one :class:`~fcbench.contract.SchemaChange` that records the move.

Rules (source: protocols.md §6 keyword table unless noted):

==================  ============================================================  ==============
mode                rule                                                           source
==================  ============================================================  ==============
both                whole schema sent as ``parametersJsonSchema`` (full JSON       §4.1, §6
                    Schema) instead of the OpenAPI-subset ``parameters``; one
                    ``moved`` change records it; no keyword is touched
==================  ============================================================  ==============

Why ``parametersJsonSchema``: the OpenAPI-subset ``parameters`` rejects ``const``,
``$ref``/``$defs``, ``oneOf``, type lists and ``$schema`` (§4.1, §6), so using it would mean
rewriting or dropping constraints of ordinary schemas; ``parametersJsonSchema`` takes them as
they are and is what current SDKs send (§7.3).
"""

from __future__ import annotations

from typing import Any

from fcbench.contract import SchemaChange, Tool
from fcbench.schema.transform import apply_rules

SCHEMA_FIELD = "parametersJsonSchema"
"""The ``functionDeclarations[]`` field the Gemini adapter puts the transformed schema in."""

_REASON = (
    f"sent as functionDeclarations[].{SCHEMA_FIELD} (full JSON Schema) instead of the "
    "OpenAPI-subset 'parameters', which rejects const, $ref, oneOf and type lists"
)


def rules(tool: Tool, params: dict[str, Any], strict: bool) -> list[SchemaChange]:
    """Leave ``params`` as they are; one change records where they go (strict or not)."""
    return [SchemaChange(tool=tool.name, path="", keyword="parameters", action="moved", reason=_REASON)]


def transform_schema(tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
    """The schema to send for ``tool`` in :data:`SCHEMA_FIELD`, and the change recorded (cached)."""
    return apply_rules(rules, tool, strict=strict)


__all__ = ["SCHEMA_FIELD", "rules", "transform_schema"]
