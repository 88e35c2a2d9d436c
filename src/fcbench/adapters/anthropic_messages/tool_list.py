"""A Messages API tool list: ``{name, description, input_schema}`` per item (``type: "custom"``
and ``cache_control`` accepted; ``cache_control`` is not carried over)."""

from __future__ import annotations

from fcbench.adapters.tool_lists import ToolListFormat, renaming

FORMAT = ToolListFormat(
    name="anthropic",
    detect=lambda item: "input_schema" in item,
    convert=renaming(
        (), "input_schema", frozenset({"type", "name", "description", "input_schema", "cache_control"})
    ),
)
"""Detected by ``input_schema``."""

__all__ = ["FORMAT"]
