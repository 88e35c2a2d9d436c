"""Reading a logged Chat Completions request back into canonical form.

Leading ``system``/``developer`` messages -> system; ``user``, ``assistant`` (``tool_calls``,
arguments as their JSON text) and ``tool`` messages; ``tools[].function``; ``tool_choice``.
"""

from __future__ import annotations

from typing import Any

from fcbench.adapters.logged import (
    History,
    LoggedRequest,
    RequestFormatError,
    json_list,
    json_object,
    read_tool,
    text_parts,
    tool_name,
)
from fcbench.contract import make_call


def read_tool_choice(value: Any) -> str:
    if isinstance(value, str):
        return value if value in ("auto", "required", "none") else "auto"
    if isinstance(value, dict):
        function = value.get("function")
        name = function.get("name") if isinstance(function, dict) else value.get("name")
        if value.get("type") == "function" and isinstance(name, str):
            return f"tool:{name}"
        mode = value.get("mode")
        if mode in ("auto", "required"):
            return str(mode)
    return "auto"


def read_request(body: Any) -> LoggedRequest:
    """Read a Chat Completions request body."""
    body = json_object(body, "the request")
    history = History()
    for index, raw in enumerate(json_list(body.get("messages"), "messages")):
        message = json_object(raw, f"messages[{index}]")
        role, where = message.get("role"), f"messages[{index}]"
        if role in ("system", "developer"):
            history.system_text(text_parts(message.get("content"), history, where))
        elif role == "user":
            history.user(text_parts(message.get("content"), history, where))
        elif role == "assistant":
            calls = []
            for position, item in enumerate(json_list(message.get("tool_calls"), f"{where}.tool_calls")):
                function = json_object(
                    json_object(item, f"{where}.tool_calls[{position}]").get("function"), "function"
                )
                name = tool_name(function.get("name"), f"{where}.tool_calls[{position}]")
                calls.append(make_call(item.get("id"), name, function.get("arguments", "")))
            history.assistant(text_parts(message.get("content"), history, where), calls)
        elif role == "tool":
            history.result(
                message.get("tool_call_id"), None, text_parts(message.get("content"), history, where)
            )
        else:
            raise RequestFormatError(f"{where}: unknown role {role!r}")
    tools = []
    for index, raw in enumerate(json_list(body.get("tools"), "tools")):
        tool = json_object(raw, f"tools[{index}]")
        if tool.get("type", "function") != "function":
            history.notes.append(f"tools[{index}]: {tool.get('type')} tool left out")
            continue
        function = json_object(tool.get("function"), f"tools[{index}].function")
        tools.append(
            read_tool(
                function.get("name"),
                function.get("description"),
                function.get("parameters"),
                f"tools[{index}]",
            )
        )
    return history.done(tools, read_tool_choice(body.get("tool_choice")), body.get("model"))


__all__ = ["read_request", "read_tool_choice"]
