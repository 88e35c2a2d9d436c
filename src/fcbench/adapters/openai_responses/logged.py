"""Reading a logged Responses API request back into canonical form.

``instructions`` (and leading system/developer items) -> system; ``input`` as a string or items
(messages, ``function_call``, ``function_call_output``); flat function tools; ``tool_choice``.
"""

from __future__ import annotations

from typing import Any

from fcbench.adapters import logged
from fcbench.adapters.openai_chat.logged import read_tool_choice
from fcbench.contract import make_call


def read_request(body: Any) -> logged.LoggedRequest:
    """Read a Responses API request body."""
    body = logged.json_object(body, "the request")
    history = logged.History()
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        history.system_text(instructions)
    raw_input = body.get("input")
    items = [{"role": "user", "content": raw_input}] if isinstance(raw_input, str) else raw_input
    for index, raw in enumerate(logged.json_list(items, "input")):
        item = logged.json_object(raw, f"input[{index}]")
        kind, where = item.get("type", "message"), f"input[{index}]"
        if kind == "function_call":
            name = logged.tool_name(item.get("name"), where)
            history.add_calls([make_call(item.get("call_id"), name, item.get("arguments", ""))])
        elif kind == "function_call_output":
            output = item.get("output")
            history.result(item.get("call_id"), None, logged.text_parts(output, history, where))
        elif kind == "message":
            role, text = item.get("role"), logged.text_parts(item.get("content"), history, where)
            if role in ("system", "developer"):
                history.system_text(text)
            elif role == "user":
                history.user(text)
            elif role == "assistant":
                history.assistant(text, [])
            else:
                raise logged.RequestFormatError(f"{where}: unknown role {role!r}")
        else:
            history.notes.append(f"{where}: {kind} item left out")
    tools = logged.flat_tools(body.get("tools"), history, "parameters", ("function",))
    return history.done(tools, read_tool_choice(body.get("tool_choice")), body.get("model"))


__all__ = ["read_request"]
