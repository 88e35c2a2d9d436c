"""Build Bedrock Converse requests from canonical ones.

* Path ``/model/{modelId}/converse``, or ``/converse-stream`` for a stream, with the model id
  percent-encoded as one path segment (``:`` of versioned ids and ``/`` of ARNs included). The
  body never names the model and has no stream flag.
* System text (the ``system`` argument and any system messages) is one ``system`` text block;
  ``messages`` only has ``user`` and ``assistant`` turns, each a list of content blocks.
* An assistant turn parsed from this dialect is replayed from its ``provider_state`` (the
  ``content`` blocks unchanged, reasoning blocks included); other assistant turns become an
  optional ``text`` block followed by ``toolUse`` blocks.
* Tool results after an assistant turn become **one** ``user`` message of ``toolResult`` blocks,
  in the order of that turn's calls (matched by call id, :func:`fcbench.adapters.common.pair_results`);
  a user message right after them is appended to it as a ``text`` block (roles must alternate).
  An object result is sent as ``{"json": ...}``, anything else as ``{"text": ...}``;
  ``status`` is ``error`` or ``success``.
* ``toolConfig`` is sent whenever tools are offered, and also whenever the conversation holds
  ``toolUse``/``toolResult`` blocks (Bedrock rejects those without it); see the tool-choice table
  in :mod:`fcbench.adapters.bedrock_converse` for ``none``.
* ``inferenceConfig`` carries ``maxTokens`` and ``temperature`` (when set). Other settings
  (``topP``, ``stopSequences``, ``additionalModelRequestFields`` for model-specific fields) come
  from a target's ``params``, merged into the body key by key.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import quote

from fcbench.adapters.base import BuiltRequest, CanonicalRequest, RequestOptions, ToolChoice
from fcbench.adapters.bedrock_converse.schema import transform_schema
from fcbench.adapters.blocks import BlockSpelling, block_messages, result_blocks
from fcbench.adapters.common import result_text
from fcbench.contract import (
    Message,
    SchemaChange,
    Tool,
    ToolCall,
    ToolResultMessage,
)

DIALECT = "bedrock-converse"

_CHOICES: dict[str, Callable[[ToolChoice], dict[str, Any] | None]] = {
    "auto": lambda choice: {"auto": {}},
    "required": lambda choice: {"any": {}},
    "named": lambda choice: {"tool": {"name": choice.name}},
    "none": lambda choice: None,
}
"""Canonical tool-choice mode -> wire ``toolChoice`` (None: not sent; Converse has no ``none``)."""

NONE_WITHOUT_TOOLS = "tool_choice 'none': Converse has no 'none' choice; tools not sent"
NONE_WITH_HISTORY = (
    "tool_choice 'none': Converse has no 'none' choice and the conversation holds toolUse/toolResult "
    "blocks, which need toolConfig; tools sent with the default (auto) choice"
)


def path(model: str, stream: bool) -> str:
    """``/model/{modelId}/converse`` or ``/converse-stream``, the model id as one encoded segment."""
    return f"/model/{quote(model, safe='')}/{'converse-stream' if stream else 'converse'}"


def _result_content(result: ToolResultMessage) -> list[dict[str, Any]]:
    if isinstance(result.content, dict):
        return [{"json": result.content}]
    return [{"text": result_text(result)}]


def result_block(use_id: str, result: ToolResultMessage) -> dict[str, Any]:
    """The ``toolResult`` block answering tool use ``use_id``."""
    status = "error" if result.is_error else "success"
    return {"toolResult": {"toolUseId": use_id, "content": _result_content(result), "status": status}}


SPELLING = BlockSpelling(
    dialect=DIALECT,
    id_prefix="tooluse_",
    id_field="toolUseId",
    text=lambda text: {"text": text},
    tool_use=lambda key, name, arguments: {"toolUse": {"toolUseId": key, "name": name, "input": arguments}},
    result_block=result_block,
    user_content=lambda text: [{"text": text}],
)
"""How Bedrock Converse spells a conversation's blocks."""


def wire_messages(messages: Sequence[Message], notes: list[str]) -> tuple[list[str], list[dict[str, Any]]]:
    """System texts and the ``messages`` array for a canonical history."""
    return block_messages(SPELLING, messages, notes)


def has_tool_blocks(wire: Sequence[dict[str, Any]]) -> bool:
    """Whether any message holds a ``toolUse`` or ``toolResult`` block."""
    return any(
        isinstance(block, dict) and ("toolUse" in block or "toolResult" in block)
        for message in wire
        for block in message.get("content") or []
    )


def _tool_config(
    tools: Sequence[Tool], choice: ToolChoice, options: RequestOptions, changes: list[SchemaChange]
) -> dict[str, Any]:
    specs: list[dict[str, Any]] = []
    for tool in tools:
        schema, changed = transform_schema(tool, options.strict)
        changes.extend(changed)
        specs.append(
            {
                "toolSpec": {
                    "name": tool.name,
                    "description": tool.description,
                    "inputSchema": {"json": schema},
                }
            }
        )
    config: dict[str, Any] = {"tools": specs}
    wire_choice = _CHOICES[choice.mode](choice)
    if wire_choice is not None:
        config["toolChoice"] = wire_choice
    return config


def build_request(request: CanonicalRequest) -> BuiltRequest:
    """Translate a canonical request into a ``Converse`` (or ``ConverseStream``) request."""
    system, messages, tools, tool_choice, options = request
    notes: list[str] = []
    changes: list[SchemaChange] = []
    extra_system, wire = wire_messages(messages, notes)
    body: dict[str, Any] = {"messages": wire}
    system_text = "\n\n".join(part for part in [system or "", *extra_system] if part)
    if system_text:
        body["system"] = [{"text": system_text}]
    inference: dict[str, Any] = {"maxTokens": options.max_tokens}
    if options.temperature is not None:
        inference["temperature"] = options.temperature
    body["inferenceConfig"] = inference
    history_needs_tools = has_tool_blocks(wire)
    if tools and (tool_choice.mode != "none" or history_needs_tools):
        body["toolConfig"] = _tool_config(tools, tool_choice, options, changes)
        if tool_choice.mode == "none":
            notes.append(NONE_WITH_HISTORY)
        if tool_choice.mode == "named" and tool_choice.name not in {t.name for t in tools}:
            notes.append(f"tool_choice names {tool_choice.name!r}, which is not among the offered tools")
    elif tools:
        notes.append(NONE_WITHOUT_TOOLS)
    elif tool_choice.mode != "auto":
        notes.append(f"tool_choice {tool_choice.mode!r} not sent: no tools offered")
    if not tools and history_needs_tools:
        notes.append(
            "the conversation holds toolUse/toolResult blocks but no tools are offered: no toolConfig"
        )
    if options.strict:
        notes.append("strict not sent: Converse has no strict tool-argument switch")
    if options.parallel_tool_calls is False:
        notes.append("parallel_tool_calls=False not sent: Converse has no parallel-call switch")
    if options.seed is not None:
        notes.append("seed not sent: Converse has no seed parameter")
    if options.previous_response_id is not None:
        notes.append(
            "previous_response_id not sent: Converse keeps no conversation state; the whole history is sent"
        )
    return BuiltRequest(
        path=path(options.model, options.stream),
        body=body,
        stream=options.stream,
        schema_changes=changes,
        notes=notes,
    )


def tool_result_messages(
    calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
) -> list[dict[str, Any]]:
    """One ``user`` message whose content is the ``toolResult`` blocks, in call order."""
    return [{"role": "user", "content": result_blocks(SPELLING, calls, results)}]
