"""Reading a logged Chat Completions request back into canonical form.

Leading ``system``/``developer`` messages -> system; ``user``, ``assistant`` (``tool_calls``,
arguments as their JSON text) and ``tool`` messages; ``tools[].function``; ``tool_choice``.
"""

from __future__ import annotations

from typing import Any

from fcbench.adapters import logged
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


def read_request(body: Any) -> logged.LoggedRequest:
    """Read a Chat Completions request body."""
    body = logged.json_object(body, "the request")
    history = logged.History()
    for index, raw in enumerate(logged.json_list(body.get("messages"), "messages")):
        message = logged.json_object(raw, f"messages[{index}]")
        role, where = message.get("role"), f"messages[{index}]"
        if role in ("system", "developer"):
            history.system_text(logged.text_parts(message.get("content"), history, where))
        elif role == "user":
            history.user(logged.text_parts(message.get("content"), history, where))
        elif role == "assistant":
            calls = []
            for position, item in enumerate(
                logged.json_list(message.get("tool_calls"), f"{where}.tool_calls")
            ):
                function = logged.json_object(
                    logged.json_object(item, f"{where}.tool_calls[{position}]").get("function"), "function"
                )
                name = logged.tool_name(function.get("name"), f"{where}.tool_calls[{position}]")
                calls.append(make_call(item.get("id"), name, function.get("arguments", "")))
            history.assistant(logged.text_parts(message.get("content"), history, where), calls)
        elif role == "tool":
            history.result(
                message.get("tool_call_id"), None, logged.text_parts(message.get("content"), history, where)
            )
        else:
            raise logged.RequestFormatError(f"{where}: unknown role {role!r}")
    tools = []
    for index, raw in enumerate(logged.json_list(body.get("tools"), "tools")):
        tool = logged.json_object(raw, f"tools[{index}]")
        if tool.get("type", "function") != "function":
            history.notes.append(f"tools[{index}]: {tool.get('type')} tool left out")
            continue
        function = logged.json_object(tool.get("function"), f"tools[{index}].function")
        tools.append(
            logged.read_tool(
                function.get("name"),
                function.get("description"),
                function.get("parameters"),
                f"tools[{index}]",
            )
        )
    return history.done(tools, read_tool_choice(body.get("tool_choice")), body.get("model"))


__all__ = ["read_request", "read_tool_choice"]
