"""Reading a logged wire request back into canonical form: what every dialect's reader reads a
request into, and the parts the readers share (checked JSON values, tools, and the
:class:`History` that ties tool results to the calls they answer).

The adapters build wire requests from canonical ones; a reader goes the other way, for requests
somebody else built (production traffic). Each dialect's reader is ``read_request`` in its
package's ``logged`` module (:attr:`fcbench.adapters.base.PackageAdapter.read_request`). A
reader keeps what the canonical contract can say and notes what it had to leave out (images,
hosted tools, reasoning items) in :attr:`LoggedRequest.notes`; it never guesses. A body it cannot
read raises :class:`RequestFormatError` with the reason (the caller adds file and line).
"""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass, field
from typing import Any

from fcbench.contract import (
    AssistantMessage,
    Message,
    SystemMessage,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    wire_text,
)


class RequestFormatError(ValueError):
    """A logged request body that its dialect's reader cannot read (the message says why)."""


@dataclass(frozen=True)
class LoggedRequest:
    """A logged wire request in canonical form."""

    system: str | None
    """The system prompt (leading system messages joined by a blank line), or None."""
    messages: list[Message]
    """The conversation as sent, in order (system messages after the first turn stay here)."""
    tools: list[Tool]
    """The function tools offered, canonical (every one ``side_effect: read``: a log cannot tell)."""
    tool_choice: str = "auto"
    """``auto``, ``required``, ``none`` or ``tool:NAME`` (read by ``ToolChoice.parse``)."""
    model: str | None = None
    """The model named in the body, if any (Gemini names it in the URL instead)."""
    notes: list[str] = field(default_factory=list)
    """What the canonical form could not carry and was left out."""


RequestReader = Callable[[Any], LoggedRequest]
"""Reads one decoded request body; raises :class:`RequestFormatError` when it cannot."""


def json_object(value: Any, what: str) -> dict[str, Any]:
    """``value`` when it is a JSON object; else a :class:`RequestFormatError` naming ``what``."""
    if not isinstance(value, dict):
        raise RequestFormatError(f"{what} must be a JSON object, not {type(value).__name__}")
    return value


def json_list(value: Any, what: str) -> list[Any]:
    """``value`` when it is a list (``[]`` when absent); else a :class:`RequestFormatError`."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise RequestFormatError(f"{what} must be a list, not {type(value).__name__}")
    return value


def tool_name(value: Any, what: str) -> str:
    """``value`` when it is a non-empty string; else a :class:`RequestFormatError` (``what`` has no name)."""
    if not isinstance(value, str) or not value:
        raise RequestFormatError(f"{what} has no name")
    return value


def parameter_schema(value: Any) -> dict[str, Any]:
    """A tool's parameter schema as logged, or an empty object schema when it has none."""
    return value if isinstance(value, dict) else {"type": "object", "properties": {}}


def read_tool(name: Any, description: Any, parameters: Any, what: str) -> Tool:
    """One logged function tool in canonical form."""
    return Tool(
        name=tool_name(name, what),
        description=str(description or ""),
        parameters=parameter_schema(parameters),
    )


class History:
    """Builds the canonical message list, tying tool results to the calls they answer."""

    def __init__(self) -> None:
        self.system: list[str] = []
        """Leading system texts (joined into the system prompt)."""
        self.messages: list[Message] = []
        """The conversation read so far."""
        self.notes: list[str] = []
        """What was left out, and where."""
        self._called: dict[str, str] = {}

    def system_text(self, text: str) -> None:
        """A system text: part of the system prompt before the first turn, a message after it."""
        if not text:
            return
        if self.messages:
            self.messages.append(SystemMessage(content=text))
        else:
            self.system.append(text)

    def user(self, text: str) -> None:
        """A user turn."""
        self.messages.append(UserMessage(content=text))

    def assistant(self, text: str | None, calls: list[ToolCall]) -> None:
        """An assistant turn, with the calls it made."""
        for call in calls:
            if call.id is not None:
                self._called[call.id] = call.name
        self.messages.append(AssistantMessage(content=text or None, calls=calls))

    def turn(self, assistant: bool, texts: list[str], calls: list[ToolCall]) -> None:
        """A turn read block by block: the assistant's (with its calls), or a user's when it holds
        text (the tool results it carried were read as they came)."""
        if assistant:
            self.assistant("".join(texts), calls)
        elif texts:
            self.user("".join(texts))

    def add_calls(self, calls: list[ToolCall]) -> None:
        """Calls that belong to the assistant turn just read (a separate wire item each)."""
        last = self.messages[-1] if self.messages else None
        if isinstance(last, AssistantMessage):
            self.messages[-1] = last.model_copy(update={"calls": [*last.calls, *calls]})
            self._called.update({c.id: c.name for c in calls if c.id is not None})
        else:
            self.assistant(None, calls)

    def result(self, call_id: str | None, name: str | None, content: Any, is_error: bool = False) -> None:
        """A tool result; without a name, it takes the name of the call it answers."""
        known = self._called.get(call_id or "")
        self.messages.append(
            ToolResultMessage(call_id=call_id, name=name or known or "", content=content, is_error=is_error)
        )

    def done(self, tools: list[Tool], tool_choice: str, model: Any) -> LoggedRequest:
        """The request read, with its tools, tool choice and model."""
        return LoggedRequest(
            system="\n\n".join(self.system) or None,
            messages=self.messages,
            tools=tools,
            tool_choice=tool_choice,
            model=model if isinstance(model, str) and model else None,
            notes=self.notes,
        )


def flat_tools(value: Any, history: History, schema_key: str, kinds: Container[Any]) -> list[Tool]:
    """The function tools of a ``tools`` list whose items hold name, description and the schema
    at ``schema_key`` themselves; an item whose ``type`` is not one of ``kinds`` is noted as left out."""
    tools = []
    for index, raw in enumerate(json_list(value, "tools")):
        tool, where = json_object(raw, f"tools[{index}]"), f"tools[{index}]"
        if tool.get("type") not in kinds:
            history.notes.append(f"{where}: {tool.get('type')} tool left out")
            continue
        tools.append(read_tool(tool.get("name"), tool.get("description"), tool.get(schema_key), where))
    return tools


def text_parts(content: Any, history: History, where: str) -> str:
    """The text of a message's content (a string or parts); parts without text are noted as left out."""
    if isinstance(content, list):
        other = sorted({str(p.get("type")) for p in content if isinstance(p, dict) and "text" not in p})
        if other:
            history.notes.append(f"{where}: content parts left out ({', '.join(other)})")
    return wire_text(content)


__all__ = [
    "History",
    "LoggedRequest",
    "RequestFormatError",
    "RequestReader",
    "flat_tools",
    "json_list",
    "json_object",
    "parameter_schema",
    "read_tool",
    "text_parts",
    "tool_name",
]
