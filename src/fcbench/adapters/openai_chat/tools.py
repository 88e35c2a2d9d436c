"""The tools part of an OpenAI request, shared by the Chat Completions and Responses adapters."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fcbench.adapters.base import RequestOptions, ToolChoice
from fcbench.contract import SchemaChange, Tool


def add_tools(
    body: dict[str, Any],
    tools: Sequence[Tool],
    tool_choice: ToolChoice,
    options: RequestOptions,
    wire_tool: Callable[[Tool, bool], tuple[dict[str, Any], list[SchemaChange]]],
    wire_tool_choice: Callable[[ToolChoice, list[str], list[str]], Any],
    notes: list[str],
) -> list[SchemaChange]:
    """Put ``tools``, ``tool_choice`` and ``parallel_tool_calls`` on an OpenAI request body.

    Both OpenAI dialects share these fields and differ only in how one tool and the tool choice
    are spelled (``wire_tool``, ``wire_tool_choice``). Without tools, nothing is sent and each
    setting that had nothing to apply to is noted. Returns the schema changes made.
    """
    changes: list[SchemaChange] = []
    if not tools:
        if tool_choice.mode in ("required", "named"):
            notes.append(f"tool_choice {tool_choice.mode!r} asked with no tools offered; left out")
        if options.parallel_tool_calls is not None:
            notes.append("parallel_tool_calls set with no tools offered; left out")
        if options.strict:
            notes.append("strict mode asked with no tools offered; nothing to apply it to")
        return changes
    wire_tools = []
    for tool in tools:
        wire, tool_changes = wire_tool(tool, options.strict)
        wire_tools.append(wire)
        changes.extend(tool_changes)
    body["tools"] = wire_tools
    body["tool_choice"] = wire_tool_choice(tool_choice, [t.name for t in tools], notes)
    if options.parallel_tool_calls is not None:
        body["parallel_tool_calls"] = options.parallel_tool_calls
    return changes
