"""Build Chat Completions requests from the canonical contract (pure; no I/O).

Wire choices, each deliberate:

* the system prompt is the first ``role: system`` message;
* the token limit goes in ``max_completion_tokens`` (``max_tokens`` is deprecated and rejected
  by reasoning models; Ollama ignores the new name, which only lifts the limit);
* ``tool_choice`` is always sent explicitly when tools are offered, so what was asked is on the
  wire; ``tools``, ``tool_choice`` and ``parallel_tool_calls`` are left out when no tool is
  offered (OpenAI rejects them without tools), with a note when that drops a request;
* ``strict: true`` appears only in strict mode (Chat Completions treats an absent flag as false);
* history calls replay their ``raw_arguments`` byte for byte, even when they never parsed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from fcbench.adapters.base import BuiltRequest, CanonicalRequest, ToolChoice
from fcbench.adapters.common import order_results_by_calls, result_text
from fcbench.adapters.openai_chat.schema import transform_schema
from fcbench.adapters.openai_chat.tools import add_tools
from fcbench.contract import (
    AssistantMessage,
    Message,
    SchemaChange,
    SystemMessage,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

DIALECT = "openai-chat"
PATH = "/chat/completions"

_PLAIN_CHOICES: dict[str, str] = {"auto": "auto", "required": "required", "none": "none"}


def wire_arguments(call: ToolCall) -> str:
    """The argument text to replay for a history call: the raw text as produced, else compact JSON."""
    if call.raw_arguments is not None:
        return call.raw_arguments
    return json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))


def wire_tool(tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
    """One ``{"type": "function", "function": {...}}`` tool and the schema changes it needed."""
    parameters, changes = transform_schema(tool, strict)
    function: dict[str, Any] = {"name": tool.name, "description": tool.description, "parameters": parameters}
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}, changes


def wire_tool_choice(choice: ToolChoice, offered: Sequence[str], notes: list[str]) -> str | dict[str, Any]:
    """The ``tool_choice`` value for a canonical choice (see the package docstring table)."""
    if choice.mode != "named":
        return _PLAIN_CHOICES[choice.mode]
    if not choice.name:
        raise ValueError("a named tool_choice needs a tool name")
    if choice.name not in offered:
        notes.append(f"tool_choice names {choice.name!r}, which is not among the offered tools; sent as is")
    return {"type": "function", "function": {"name": choice.name}}


def tool_result_messages(
    calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
) -> list[dict[str, Any]]:
    """One ``role: tool`` message per result, in call order."""
    return [tool_message(r) for r in order_results_by_calls(calls, results)]


def tool_message(result: ToolResultMessage) -> dict[str, Any]:
    """One ``role: tool`` message answering one call (``tool_call_id`` left out when the id is null)."""
    message: dict[str, Any] = {"role": "tool", "content": result_text(result)}
    if result.call_id is not None:
        message["tool_call_id"] = result.call_id
    return message


def _assistant(message: AssistantMessage, notes: list[str]) -> dict[str, Any]:
    wire: dict[str, Any] = {"role": "assistant", "content": message.content}
    if not message.calls:
        if message.content is None:
            wire["content"] = ""
        return wire
    calls: list[dict[str, Any]] = []
    for call in message.calls:
        item: dict[str, Any] = {
            "type": "function",
            "function": {"name": call.name, "arguments": wire_arguments(call)},
        }
        if call.id is None:
            notes.append(f"history call to {call.name!r} has no id; sent without one")
        else:
            item["id"] = call.id
        calls.append(item)
    wire["tool_calls"] = calls
    return wire


def wire_messages(system: str | None, messages: Sequence[Message], notes: list[str]) -> list[dict[str, Any]]:
    """The ``messages`` array: system prompt first, then the history in order."""
    wire: list[dict[str, Any]] = []
    if system:
        wire.append({"role": "system", "content": system})
    error_results = 0
    for message in messages:
        if isinstance(message, SystemMessage | UserMessage):
            wire.append({"role": message.role, "content": message.content})
        elif isinstance(message, AssistantMessage):
            wire.append(_assistant(message, notes))
        elif isinstance(message, ToolResultMessage):
            error_results += message.is_error
            wire.append(tool_message(message))
    if error_results:
        notes.append(
            f"{error_results} tool result(s) flagged is_error: Chat Completions has no error flag, "
            "the failure travels in the content text only"
        )
    return wire


def build_request(request: CanonicalRequest) -> BuiltRequest:
    """Translate a canonical request into a ``POST /chat/completions`` body."""
    system, messages, tools, tool_choice, options = request
    notes: list[str] = []
    changes: list[SchemaChange] = []
    body: dict[str, Any] = {
        "model": options.model,
        "messages": wire_messages(system, messages, notes),
        "max_completion_tokens": options.max_tokens,
    }
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.seed is not None:
        body["seed"] = options.seed
    changes.extend(add_tools(body, tools, tool_choice, options, wire_tool, wire_tool_choice, notes))
    if options.stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return BuiltRequest(path=PATH, body=body, stream=options.stream, schema_changes=changes, notes=notes)
