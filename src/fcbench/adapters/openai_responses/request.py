"""Build Responses API requests from the canonical contract (pure; no I/O).

Wire choices, each deliberate:

* the system prompt goes in ``instructions``; system messages inside the history become
  ``role: system`` input messages;
* every function tool carries an explicit ``strict`` flag: the API treats an absent flag as
  **true** and silently rewrites the schema, so non-strict runs send ``"strict": false``;
* the conversation is replayed statelessly by default: an assistant turn read
  by this adapter replays its original output items (reasoning, messages, ``function_call`` items
  with their ``fc_`` ids) from ``provider_state``; any other assistant turn becomes an assistant
  message plus one ``function_call`` item per call, arguments replayed byte for byte;
* stateful continuation (``RequestOptions.previous_response_id``) sends ``previous_response_id``
  and only the items after the last assistant turn; ``instructions`` and ``tools`` are sent again
  on every request, because the API does not carry them over from the stored response;
* there is no ``seed`` on this API: a requested seed is noted, not sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fcbench.adapters.base import BuiltRequest, CanonicalRequest, ToolChoice
from fcbench.adapters.common import continued_messages, order_results_by_calls, result_text
from fcbench.adapters.openai_chat.request import wire_arguments
from fcbench.adapters.openai_chat.tools import add_tools
from fcbench.adapters.openai_responses.schema import transform_schema
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

DIALECT = "openai-responses"
PATH = "/responses"
STATE_KEY = "responses_output"
"""``AssistantMessage.provider_state`` key holding the raw ``output`` items of a turn, for replay."""

_PLAIN_CHOICES: dict[str, str] = {"auto": "auto", "required": "required", "none": "none"}


def wire_tool(tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
    """One flat ``{"type": "function", "name", ...}`` tool and the schema changes it needed."""
    parameters, changes = transform_schema(tool, strict)
    wire = {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": parameters,
        "strict": strict,
    }
    return wire, changes


def wire_tool_choice(choice: ToolChoice, offered: Sequence[str], notes: list[str]) -> str | dict[str, Any]:
    """The ``tool_choice`` value for a canonical choice (see the package docstring table)."""
    if choice.mode != "named":
        return _PLAIN_CHOICES[choice.mode]
    if not choice.name:
        raise ValueError("a named tool_choice needs a tool name")
    if choice.name not in offered:
        notes.append(f"tool_choice names {choice.name!r}, which is not among the offered tools; sent as is")
    return {"type": "function", "name": choice.name}


def tool_result_messages(
    calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
) -> list[dict[str, Any]]:
    """One ``function_call_output`` item per result, in call order."""
    return [output_item(r) for r in order_results_by_calls(calls, results)]


def output_item(result: ToolResultMessage) -> dict[str, Any]:
    """One ``function_call_output`` item answering one call (``call_id`` left out when null)."""
    item: dict[str, Any] = {"type": "function_call_output", "output": result_text(result)}
    if result.call_id is not None:
        item["call_id"] = result.call_id
    return item


def _replayed(message: AssistantMessage) -> list[dict[str, Any]] | None:
    state = message.provider_state or {}
    items = state.get(STATE_KEY)
    if isinstance(items, list) and items and all(isinstance(i, dict) for i in items):
        return [dict(i) for i in items]
    return None


def assistant_message(text: str) -> dict[str, Any]:
    """An assistant text item of the history, with its type written out (``"type": "message"``):
    the OpenAI API infers it, other implementations (llama.cpp's server) answer HTTP 400 without it."""
    return {"type": "message", "role": "assistant", "content": text}


def _assistant(message: AssistantMessage, notes: list[str]) -> list[dict[str, Any]]:
    replay = _replayed(message)
    if replay is not None:
        return replay
    items: list[dict[str, Any]] = []
    if message.content:
        items.append(assistant_message(message.content))
    for call in message.calls:
        item: dict[str, Any] = {"type": "function_call", "name": call.name, "arguments": wire_arguments(call)}
        if call.id is None:
            notes.append(f"history call to {call.name!r} has no id; sent without a call_id")
        else:
            item["call_id"] = call.id
        items.append(item)
    if not items:
        items.append(assistant_message(""))
    return items


def wire_input(messages: Sequence[Message], notes: list[str]) -> list[dict[str, Any]]:
    """The ``input`` item list for the history, in order."""
    items: list[dict[str, Any]] = []
    error_results = 0
    for message in messages:
        if isinstance(message, SystemMessage | UserMessage):
            items.append({"role": message.role, "content": message.content})
        elif isinstance(message, AssistantMessage):
            items.extend(_assistant(message, notes))
        elif isinstance(message, ToolResultMessage):
            error_results += message.is_error
            items.append(output_item(message))
    if error_results:
        notes.append(
            f"{error_results} tool result(s) flagged is_error: the Responses API has no error flag, "
            "the failure travels in the output text only"
        )
    return items


def build_request(request: CanonicalRequest) -> BuiltRequest:
    """Translate a canonical request into a ``POST /responses`` body."""
    system, messages, tools, tool_choice, options = request
    notes: list[str] = []
    changes: list[SchemaChange] = []
    body: dict[str, Any] = {"model": options.model}
    if system:
        body["instructions"] = system
    if options.previous_response_id is not None:
        body["previous_response_id"] = options.previous_response_id
    body["input"] = wire_input(continued_messages(messages, options), notes)
    body["max_output_tokens"] = options.max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.seed is not None:
        notes.append(f"seed {options.seed} not sent: the Responses API has no seed parameter")
    changes.extend(add_tools(body, tools, tool_choice, options, wire_tool, wire_tool_choice, notes))
    if options.stream:
        body["stream"] = True
    return BuiltRequest(path=PATH, body=body, stream=options.stream, schema_changes=changes, notes=notes)
