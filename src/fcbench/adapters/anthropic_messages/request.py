"""Build Anthropic Messages requests from canonical ones (protocols.md §3.1, §3.3).

* System text (the ``system`` argument and any system messages) goes in the top-level ``system``;
  the ``messages`` array only has ``user`` and ``assistant`` turns.
* An assistant turn parsed from this dialect is replayed from its ``provider_state`` (the whole
  ``content`` unchanged, thinking blocks included); other assistant turns become an optional text
  block followed by ``tool_use`` blocks.
* Tool results following an assistant turn become **one** ``user`` message whose content starts
  with the ``tool_result`` blocks, in the order of that turn's calls (matched by call id, see
  :func:`fcbench.adapters.common.pair_results`); a user message right after them is appended to
  the same message as a text block, since text may follow the results but not precede them.
* ``tools`` and ``tool_choice`` are sent only when tools are offered (the API rejects a
  ``tool_choice`` without tools); ``temperature`` only when set. Anthropic has no seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fcbench.adapters.anthropic_messages.schema import transform_schema
from fcbench.adapters.base import BuiltRequest, CanonicalRequest, ToolChoice
from fcbench.adapters.blocks import BlockSpelling, block_messages, result_blocks
from fcbench.adapters.common import result_text
from fcbench.contract import (
    Message,
    SchemaChange,
    ToolCall,
    ToolResultMessage,
)

DIALECT = "anthropic-messages"
PATH = "/v1/messages"

_CHOICES: dict[str, Callable[[ToolChoice], dict[str, Any]]] = {
    "auto": lambda choice: {"type": "auto"},
    "required": lambda choice: {"type": "any"},
    "named": lambda choice: {"type": "tool", "name": choice.name},
    "none": lambda choice: {"type": "none"},
}
"""Canonical tool-choice mode -> wire ``tool_choice``."""

_PARALLEL_SWITCH = frozenset({"auto", "required", "named"})
"""Modes whose wire object accepts ``disable_parallel_tool_use``."""


def wire_tool_choice(choice: ToolChoice, parallel_tool_calls: bool | None) -> dict[str, Any]:
    """The ``tool_choice`` object, with ``disable_parallel_tool_use`` when parallel calls are off."""
    wire = _CHOICES[choice.mode](choice)
    if parallel_tool_calls is False and choice.mode in _PARALLEL_SWITCH:
        wire["disable_parallel_tool_use"] = True
    return wire


def result_block(use_id: str, result: ToolResultMessage) -> dict[str, Any]:
    """The ``tool_result`` block answering tool use ``use_id``."""
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": use_id, "content": result_text(result)}
    if result.is_error:
        block["is_error"] = True
    return block


SPELLING = BlockSpelling(
    dialect=DIALECT,
    id_prefix="toolu_",
    id_field="tool_use id",
    text=lambda text: {"type": "text", "text": text},
    tool_use=lambda key, name, arguments: {"type": "tool_use", "id": key, "name": name, "input": arguments},
    result_block=result_block,
    user_content=lambda text: text,
)
"""How Anthropic Messages spells a conversation's blocks."""


def wire_messages(messages: Sequence[Message], notes: list[str]) -> tuple[list[str], list[dict[str, Any]]]:
    """System texts and the ``messages`` array for a canonical history."""
    return block_messages(SPELLING, messages, notes)


def build_request(request: CanonicalRequest) -> BuiltRequest:
    """Translate a canonical request into a ``POST /v1/messages`` request."""
    system, messages, tools, tool_choice, options = request
    notes: list[str] = []
    changes: list[SchemaChange] = []
    extra_system, wire = wire_messages(messages, notes)
    body: dict[str, Any] = {"model": options.model, "max_tokens": options.max_tokens, "messages": wire}
    system_text = "\n\n".join(part for part in [system or "", *extra_system] if part)
    if system_text:
        body["system"] = system_text
    if tools:
        wire_tools: list[dict[str, Any]] = []
        for tool in tools:
            schema, changed = transform_schema(tool, options.strict)
            changes.extend(changed)
            entry: dict[str, Any] = {
                "name": tool.name,
                "description": tool.description,
                "input_schema": schema,
            }
            if options.strict:
                entry["strict"] = True
            wire_tools.append(entry)
        body["tools"] = wire_tools
        body["tool_choice"] = wire_tool_choice(tool_choice, options.parallel_tool_calls)
        if tool_choice.mode == "named" and tool_choice.name not in {t.name for t in tools}:
            notes.append(f"tool_choice names {tool_choice.name!r}, which is not among the offered tools")
    elif tool_choice.mode != "auto":
        notes.append(f"tool_choice {tool_choice.mode!r} not sent: no tools offered")
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.seed is not None:
        notes.append("seed not sent: the Messages API has no seed parameter")
    body["stream"] = options.stream
    return BuiltRequest(path=PATH, body=body, stream=options.stream, schema_changes=changes, notes=notes)


def tool_result_messages(
    calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
) -> list[dict[str, Any]]:
    """One ``user`` message whose content is the ``tool_result`` blocks, in call order."""
    return [{"role": "user", "content": result_blocks(SPELLING, calls, results)}]
