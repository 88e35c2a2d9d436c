"""Reading a logged Messages API request back into canonical form.

``system`` (string or text blocks); ``messages`` with ``text``, ``tool_use`` and ``tool_result``
blocks; ``tools[].input_schema``; ``tool_choice``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fcbench.adapters import logged
from fcbench.contract import ToolCall, make_call, wire_text

_ANTHROPIC_CHOICES: Mapping[str, str] = {"auto": "auto", "any": "required", "none": "none"}


def _anthropic_choice(value: Any) -> str:
    if not isinstance(value, dict):
        return "auto"
    if value.get("type") == "tool" and isinstance(value.get("name"), str):
        return f"tool:{value['name']}"
    return _ANTHROPIC_CHOICES.get(str(value.get("type")), "auto")


def _anthropic_user(content: Any, history: logged.History, where: str) -> None:
    if not isinstance(content, list):
        history.user(wire_text(content))
        return
    texts: list[str] = []
    for position, raw in enumerate(content):
        block = logged.json_object(raw, f"{where}.content[{position}]")
        if block.get("type") == "tool_result":
            result = block.get("content")
            text = result if isinstance(result, str) else logged.text_parts(result, history, where)
            history.result(block.get("tool_use_id"), None, text, block.get("is_error") is True)
        elif block.get("type") == "text":
            texts.append(str(block.get("text", "")))
        else:
            history.notes.append(f"{where}.content[{position}]: {block.get('type')} block left out")
    if texts:
        history.user("".join(texts))


def _anthropic_assistant(content: Any, history: logged.History, where: str) -> None:
    if not isinstance(content, list):
        history.assistant(wire_text(content), [])
        return
    texts: list[str] = []
    calls: list[ToolCall] = []
    for position, raw in enumerate(content):
        block = logged.json_object(raw, f"{where}.content[{position}]")
        if block.get("type") == "tool_use":
            name = logged.tool_name(block.get("name"), f"{where}.content[{position}]")
            calls.append(make_call(block.get("id"), name, block.get("input", {})))
        elif block.get("type") == "text":
            texts.append(str(block.get("text", "")))
        else:
            history.notes.append(f"{where}.content[{position}]: {block.get('type')} block left out")
    history.assistant("".join(texts), calls)


def read_request(body: Any) -> logged.LoggedRequest:
    """Read a Messages API request body."""
    body = logged.json_object(body, "the request")
    history = logged.History()
    history.system_text(wire_text(body.get("system")))
    for index, raw in enumerate(logged.json_list(body.get("messages"), "messages")):
        message = logged.json_object(raw, f"messages[{index}]")
        role, where = message.get("role"), f"messages[{index}]"
        if role == "user":
            _anthropic_user(message.get("content"), history, where)
        elif role == "assistant":
            _anthropic_assistant(message.get("content"), history, where)
        else:
            raise logged.RequestFormatError(f"{where}: unknown role {role!r}")
    tools = logged.flat_tools(body.get("tools"), history, "input_schema", (None, "custom"))
    return history.done(tools, _anthropic_choice(body.get("tool_choice")), body.get("model"))


__all__ = ["read_request"]
