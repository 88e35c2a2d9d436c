"""A Responses API tool list: ``{"type": "function", name, description, parameters, strict}``
per item (``strict`` is accepted and not carried over)."""

from __future__ import annotations

from fcbench.adapters.tool_lists import ToolListFormat, renaming

FORMAT = ToolListFormat(
    name="openai-responses",
    detect=lambda item: item.get("type") == "function" and "function" not in item,
    convert=renaming((), "parameters", frozenset({"type", "name", "description", "parameters", "strict"})),
)
"""Detected by ``type: "function"`` without a ``function`` object."""

__all__ = ["FORMAT"]
