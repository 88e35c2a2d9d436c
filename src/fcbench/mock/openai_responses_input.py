"""Request decoding for the mock's OpenAI Responses dialect: tools, tool choice and input items.

Tool results (``function_call_output``) must answer a ``function_call`` earlier in the input or
in the stored conversation, and every call must be answered (protocols.md section 2.3).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from fcbench.contract import wire_text
from fcbench.mock.acceptance import check_openai_function
from fcbench.mock.common import MockError, decode_result
from fcbench.mock.sim.base import SimCall, SimTool, SimTurn

_IGNORED_ITEMS = ("reasoning", "item_reference", "web_search_call", "file_search_call")


def _bad(message: str, param: str | None = None, code: str | None = None) -> MockError:
    return MockError("invalid_request", message, param=param, code=code)


def text_echo(raw: Any) -> dict[str, Any]:
    """The ``text`` settings as the response repeats them (defaults filled in)."""
    settings = dict(raw) if isinstance(raw, dict) else {}
    fmt = settings.get("format")
    fmt = dict(fmt) if isinstance(fmt, dict) else {"type": "text"}
    if fmt.get("type") == "json_schema":
        fmt.setdefault("description", None)
        fmt.setdefault("strict", False)
    return {**settings, "format": fmt, "verbosity": settings.get("verbosity", "medium")}


def decode_tools(raw: Any) -> tuple[tuple[SimTool, ...], list[dict[str, Any]]]:
    """Offered function tools, and the tool list as the response object repeats it."""
    if raw is None:
        return (), []
    if not isinstance(raw, list):
        raise _bad("Invalid type for 'tools': expected an array.", "tools", "invalid_type")
    tools: list[SimTool] = []
    echoed: list[dict[str, Any]] = []
    for index, tool in enumerate(raw):
        if not isinstance(tool, dict):
            raise _bad(
                f"Invalid type for 'tools[{index}]': expected an object.", f"tools[{index}]", "invalid_type"
            )
        if tool.get("type") != "function":
            echoed.append(tool)
            continue
        parameters = tool.get("parameters")
        check_openai_function(tool.get("name"), parameters, tool.get("strict") is True, f"tools[{index}]")
        schema = parameters if isinstance(parameters, dict) else {"type": "object", "properties": {}}
        tools.append(SimTool(tool["name"], str(tool.get("description") or ""), schema))
        echoed.append(
            {
                "type": "function",
                "description": tool.get("description"),
                "name": tool["name"],
                "parameters": parameters,
                "strict": tool.get("strict", True),
            }
        )
    return tuple(tools), echoed


def decode_choice(raw: Any, tools: tuple[SimTool, ...]) -> tuple[str, tuple[SimTool, ...]]:
    """(sim tool choice, tools the model may use) from ``tool_choice``."""
    if raw is None or raw == "auto":
        return ("auto" if tools else "none"), tools
    if raw in ("none", "required"):
        return str(raw), tools
    if isinstance(raw, dict) and raw.get("type") == "function":
        name = raw.get("name")
        if not any(tool.name == name for tool in tools):
            raise _bad(f"Tool choice '{name}' not found in 'tools' parameter.", "tool_choice")
        return f"tool:{name}", tools
    if isinstance(raw, dict) and raw.get("type") == "allowed_tools":
        names = {item.get("name") for item in raw.get("tools") or [] if isinstance(item, dict)}
        mode = "required" if raw.get("mode") == "required" else "auto"
        return mode, tuple(tool for tool in tools if tool.name in names)
    if isinstance(raw, dict):
        return "auto", tools
    raise _bad(f"Invalid value for 'tool_choice': {raw!r}.", "tool_choice", "invalid_value")


def decode_input(raw: Any, prior: tuple[SimTurn, ...]) -> tuple[str, tuple[SimTurn, ...]]:
    """(system text, turns) from ``input``, continuing the ``prior`` stored turns."""
    if raw is None:
        raw = []
    if isinstance(raw, str):
        raw = [{"role": "user", "content": raw}]
    if not isinstance(raw, list):
        raise _bad("Invalid type for 'input': expected a string or an array.", "input", "invalid_type")
    system: list[str] = []
    turns: list[SimTurn] = list(prior)
    known: dict[str, str] = {call.id: call.name for turn in prior for call in turn.calls if call.id}
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise _bad(
                f"Invalid type for 'input[{index}]': expected an object.", f"input[{index}]", "invalid_type"
            )
        kind = item.get("type") or ("message" if "role" in item else None)
        if kind == "message":
            role = item.get("role")
            text = wire_text(item.get("content"))
            if role in ("system", "developer"):
                system.append(text)
            elif role == "assistant":
                turns.append(SimTurn("assistant", text))
            elif role == "user":
                turns.append(SimTurn("user", text))
            else:
                raise _bad(
                    f"Invalid value: '{role}'. Supported values are: 'assistant', 'system', 'developer', "
                    "and 'user'.",
                    f"input[{index}].role",
                    "invalid_value",
                )
        elif kind == "function_call":
            call_id = item.get("call_id")
            if not isinstance(call_id, str):
                raise _bad(
                    f"Missing required parameter: 'input[{index}].call_id'.",
                    f"input[{index}].call_id",
                    "missing_required_parameter",
                )
            call = SimCall(str(item.get("name", "")), str(item.get("arguments", "")), call_id)
            known[call_id] = call.name
            last = turns[-1] if turns else None
            if last is not None and last.role == "assistant" and _previous_is_assistant(raw, index):
                turns[-1] = dataclasses.replace(last, calls=(*last.calls, call))
            else:
                turns.append(SimTurn("assistant", calls=(call,)))
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            if call_id not in known:
                raise _bad(f"No tool call found for function call output with call_id {call_id}.", "input")
            output = item.get("output")
            result = decode_result(output if isinstance(output, str) else wire_text(output))
            turns.append(SimTurn("tool", call_id=call_id, tool_name=known[call_id], result=result))
        elif kind in _IGNORED_ITEMS:
            continue
        else:
            raise _bad(f"Invalid value: '{kind}'.", f"input[{index}].type", "invalid_value")
    answered = {turn.call_id for turn in turns if turn.role == "tool"}
    for turn in turns:
        for call in turn.calls:
            if call.id not in answered:
                raise _bad(f"No tool output found for function call {call.id}.", "input")
    return "\n\n".join(part for part in system if part), tuple(turns)


def _previous_is_assistant(items: list[Any], index: int) -> bool:
    """Whether the input item before ``index`` belongs to the same assistant turn."""
    if index == 0:
        return False
    before = items[index - 1]
    if not isinstance(before, dict):
        return False
    kind = before.get("type") or ("message" if "role" in before else None)
    return (
        kind == "function_call"
        or (kind == "message" and before.get("role") == "assistant")
        or kind == "reasoning"
    )
