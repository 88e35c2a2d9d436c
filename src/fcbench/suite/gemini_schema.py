"""Tool import of Gemini's OpenAPI-subset schemas: the strict conversion of
:mod:`fcbench.schema.gemini`, its problems reported as findings at the schema's place in the file."""

from __future__ import annotations

from typing import Any

from fcbench.schema.gemini import GEMINI_TYPES, has_gemini_marker, openapi_to_json_schema
from fcbench.suite.tools import Finding, Key


def gemini_schema(node: Any, keys: tuple[Key, ...], findings: list[Finding]) -> Any:
    """One Gemini (OpenAPI-subset) schema as JSON Schema; problems go to ``findings``."""
    return openapi_to_json_schema(
        node, lambda path, message: findings.append(Finding((*keys, *path), message))
    )


__all__ = ["GEMINI_TYPES", "gemini_schema", "has_gemini_marker"]
