"""A Chat Completions tool list: ``{"type": "function", "function": {name, description,
parameters, strict}}`` per item (``strict`` is accepted and not carried over)."""

from __future__ import annotations

from collections.abc import Mapping

from fcbench.adapters.tool_lists import ToolListFormat, renaming

FORMAT = ToolListFormat(
    name="openai-chat",
    detect=lambda item: item.get("type") == "function" and isinstance(item.get("function"), Mapping),
    convert=renaming(("function",), "parameters", frozenset({"name", "description", "parameters", "strict"})),
)
"""Detected by ``type: "function"`` with a ``function`` object."""

__all__ = ["FORMAT"]
