"""Chat messages as tracing tools record them, read into canonical requests and answers.

Tracing tools do not keep the wire body: they record the conversation as a list of chat messages.
Two shapes are read, message by message:

* the OpenTelemetry GenAI ``parts`` shape (``gen_ai.input.messages``, ``gen_ai.output.messages``):
  ``{"role", "parts": [{"type": "text", "content"}, {"type": "tool_call", "id", "name",
  "arguments"}, {"type": "tool_call_response", "id", "response"}], "finish_reason"}``;
* the chat-completions shape the GenAI events and Langfuse use: ``{"role", "content",
  "tool_calls": [{"id", "function": {"name", "arguments"}}], "tool_call_id"}`` (an event's
  ``id`` names the call a tool message answers).

Roles ``system`` and ``developer`` are system text, ``user`` a user turn, ``assistant`` a model
turn with its calls, ``tool`` a tool result. Parts the canonical contract cannot carry (images,
reasoning) are noted as left out, never guessed. Tools come in any published tool-list format
(:func:`fcbench.suite.imports.import_tool_list`). A value that cannot be read raises
:class:`~fcbench.adapters.logged.RequestFormatError` with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.logged import History, LoggedRequest, RequestFormatError, json_list, json_object
from fcbench.contract import (
    AssistantMessage,
    Outcome,
    RefusalOutcome,
    TextOutcome,
    Tool,
    ToolCall,
    ToolCallsOutcome,
    Usage,
    make_call,
    wire_text,
)
from fcbench.suite.imports import build_tools, import_tool_list

SYSTEM_ROLES = frozenset({"system", "developer"})
"""Roles read as system text."""


@dataclass(frozen=True)
class Answer:
    """A recorded model answer, before it becomes a parsed turn."""

    message: Any
    """The answer message (either shape), a plain string, or None when nothing was recorded."""
    usage: Usage
    """Token usage as recorded."""
    finish_reason: str | None = None
    """The recorded finish reason, verbatim."""


def decoded(value: Any) -> Any:
    """``value``, or the JSON it holds when it is a string of a JSON object or list (a list's
    items too: OTLP arrays hold only scalars, so some instrumentations store each item as JSON)."""
    if isinstance(value, list):
        return [decoded(item) if isinstance(item, str) else item for item in value]
    if isinstance(value, str) and value.lstrip().startswith(("{", "[")):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _call(raw: Any, where: str) -> ToolCall:
    item = json_object(raw, where)
    nested = item.get("function")
    function: dict[str, Any] = nested if isinstance(nested, dict) else item
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise RequestFormatError(f"{where} has no tool name")
    call_id = item.get("id") if isinstance(item.get("id"), str) else None
    return make_call(call_id, name, function.get("arguments", {}))


def _parts(message: dict[str, Any], history: History, where: str) -> tuple[str, list[ToolCall]]:
    """Text and calls of a ``parts`` message; tool results go straight into ``history``."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    for index, raw in enumerate(json_list(message.get("parts"), f"{where}.parts")):
        part, at = json_object(raw, f"{where}.parts[{index}]"), f"{where}.parts[{index}]"
        kind = part.get("type")
        if kind == "text":
            texts.append(str(part.get("content") or ""))
        elif kind == "tool_call":
            calls.append(_call(part, at))
        elif kind == "tool_call_response":
            call_id = part.get("id") if isinstance(part.get("id"), str) else None
            history.result(call_id, None, decoded(part.get("response")))
        else:
            history.notes.append(f"{at}: {kind} part left out")
    return "".join(texts), calls


def _content(message: dict[str, Any], history: History, where: str) -> tuple[str, list[ToolCall]]:
    """Text and calls of a chat-completions message."""
    content = decoded(message.get("content"))
    if isinstance(content, list):
        other = sorted({str(p.get("type")) for p in content if isinstance(p, dict) and "text" not in p})
        if other:
            history.notes.append(f"{where}: content parts left out ({', '.join(other)})")
    text = content if isinstance(content, str) else wire_text(content) if content is not None else ""
    raw_calls = json_list(decoded(message.get("tool_calls")), f"{where}.tool_calls")
    return text, [_call(raw, f"{where}.tool_calls[{i}]") for i, raw in enumerate(raw_calls)]


def add_message(history: History, raw: Any, where: str, role: str | None = None) -> None:
    """One recorded message (either shape) into ``history``; ``role`` when the message has none."""
    message = json_object(decoded(raw), where)
    role = str(message.get("role") or role or "")
    if role == "tool" and "parts" not in message:
        call_id = message.get("tool_call_id") or message.get("id")
        content = decoded(message.get("content"))
        history.result(call_id if isinstance(call_id, str) else None, message.get("name"), content)
        return
    text, calls = (_parts if "parts" in message else _content)(message, history, where)
    if role in SYSTEM_ROLES:
        history.system_text(text)
    elif role == "user":
        if text:
            history.user(text)
    elif role == "assistant":
        history.assistant(text, calls)
    elif role != "tool":
        raise RequestFormatError(f"{where} has an unknown role {role!r}")


def read_tools(value: Any, where: str) -> list[Tool]:
    """Tool definitions in any published tool-list format, canonical."""
    value = decoded(value)
    if value is None or value == []:
        return []
    tools, findings = build_tools(import_tool_list(value))
    if tools is None:
        raise RequestFormatError(f"{where}: " + "; ".join(str(f) for f in findings))
    return tools


def request_of(history: History, tools: Sequence[Tool], model: Any) -> LoggedRequest:
    """The request read so far; a conversation must hold at least one message."""
    if not history.messages:
        raise RequestFormatError("the recorded input holds no user, assistant or tool message")
    return history.done(list(tools), "auto", model)


def _outcome(text: str, calls: list[ToolCall], refusal: Any, finish: str | None) -> Outcome:
    if calls:
        return ToolCallsOutcome(calls=calls, text=text or None)
    if isinstance(refusal, str) and refusal:
        return RefusalOutcome(text=refusal)
    if finish == "content_filter":
        return RefusalOutcome(text=text or None)
    return TextOutcome(text=text)


def answer_turn(answer: Answer, where: str) -> ParsedTurn:
    """The canonical turn of a recorded answer (a tool call, text or refusal)."""
    message: Any = decoded(answer.message)
    if message is None:
        raise RequestFormatError(f"{where}: no answer was recorded")
    if isinstance(message, str):
        message = {"role": "assistant", "content": message}
    message = json_object(message, where)
    scratch = History()
    text, calls = (_parts if "parts" in message else _content)(message, scratch, where)
    finish = answer.finish_reason or message.get("finish_reason")
    outcome = _outcome(text, calls, message.get("refusal"), finish if isinstance(finish, str) else None)
    return ParsedTurn(
        outcome=outcome,
        usage=answer.usage,
        finish_reason=finish if isinstance(finish, str) else None,
        assistant=AssistantMessage(content=text or None, calls=calls),
    )


def token_count(value: Any) -> int | None:
    """A recorded token count (OTLP sends integers as strings), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


__all__ = [
    "SYSTEM_ROLES",
    "Answer",
    "add_message",
    "answer_turn",
    "decoded",
    "read_tools",
    "request_of",
    "token_count",
]
