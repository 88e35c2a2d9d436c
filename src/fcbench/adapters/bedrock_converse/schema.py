"""The ``bedrock-converse`` tool-schema rules.

:func:`transform_schema` returns the schema to put in ``toolSpec.inputSchema.json`` and the one
:class:`~fcbench.contract.SchemaChange` that records the move.

==================  ============================================================  ==============
mode                rule                                                           source
==================  ============================================================  ==============
both                whole schema sent as ``toolSpec.inputSchema.json`` (a JSON     Converse API
                    Schema document inside the ``inputSchema`` union); one         reference
                    ``moved`` change records it; no keyword is touched
==================  ============================================================  ==============

Bedrock hands the schema to the model provider behind the model id, so which keywords are
honoured depends on that model; there is no strict mode to restrict them for (``strict`` changes
nothing here, and the request builder notes that it was not sent).
"""

from __future__ import annotations

from typing import Any

from fcbench.contract import SchemaChange, Tool
from fcbench.schema.transform import apply_rules

_REASON = "sent as toolSpec.inputSchema.json (the JSON Schema member of the inputSchema union)"


def rules(tool: Tool, params: dict[str, Any], strict: bool) -> list[SchemaChange]:
    """Leave ``params`` as they are; one change records where they go (strict or not)."""
    return [SchemaChange(tool=tool.name, path="", keyword="parameters", action="moved", reason=_REASON)]


def transform_schema(tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
    """The schema to send for ``tool`` in ``toolSpec.inputSchema.json``, and the change recorded (cached)."""
    return apply_rules(rules, tool, strict=strict)


__all__ = ["rules", "transform_schema"]
