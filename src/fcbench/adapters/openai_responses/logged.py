"""Reading a logged Responses API request back into canonical form.

``instructions`` (and leading system/developer items) -> system; ``input`` as a string or items
(messages, ``function_call``, ``function_call_output``); flat function tools; ``tool_choice``.
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
from fcbench.adapters.openai_chat.logged import read_tool_choice
from fcbench.contract import make_call


def read_request(body: Any) -> LoggedRequest:
    """Read a Responses API request body."""
    body = json_object(body, "the request")
    history = History()
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        history.system_text(instructions)
    raw_input = body.get("input")
    items = [{"role": "user", "content": raw_input}] if isinstance(raw_input, str) else raw_input
    for index, raw in enumerate(json_list(items, "input")):
        item = json_object(raw, f"input[{index}]")
        kind, where = item.get("type", "message"), f"input[{index}]"
        if kind == "function_call":
            name = tool_name(item.get("name"), where)
            history.add_calls([make_call(item.get("call_id"), name, item.get("arguments", ""))])
        elif kind == "function_call_output":
            output = item.get("output")
            history.result(item.get("call_id"), None, text_parts(output, history, where))
        elif kind == "message":
            role, text = item.get("role"), text_parts(item.get("content"), history, where)
            if role in ("system", "developer"):
                history.system_text(text)
            elif role == "user":
                history.user(text)
            elif role == "assistant":
                history.assistant(text, [])
            else:
                raise RequestFormatError(f"{where}: unknown role {role!r}")
        else:
            history.notes.append(f"{where}: {kind} item left out")
    tools = []
    for index, raw in enumerate(json_list(body.get("tools"), "tools")):
        tool = json_object(raw, f"tools[{index}]")
        if tool.get("type") != "function":
            history.notes.append(f"tools[{index}]: {tool.get('type')} tool left out")
            continue
        tools.append(
            read_tool(tool.get("name"), tool.get("description"), tool.get("parameters"), f"tools[{index}]")
        )
    return history.done(tools, read_tool_choice(body.get("tool_choice")), body.get("model"))


__all__ = ["read_request"]
