"""Reading a logged ``generateContent`` request back into canonical form.

``systemInstruction``; ``contents`` with ``text``, ``functionCall`` and ``functionResponse``
parts; ``functionDeclarations`` with ``parametersJsonSchema`` or the typed ``parameters`` (turned
into JSON Schema); ``toolConfig.functionCallingConfig``. camelCase and snake_case field names
alike. The model is named in the URL, not the body.
"""

from __future__ import annotations

from typing import Any

from fcbench.adapters import logged
from fcbench.contract import ToolCall, make_call, wire_text
from fcbench.schema.gemini import gemini_field, openapi_to_json_schema


def _gemini_choice(config: Any) -> str:
    calling = gemini_field(config, "functionCallingConfig") if isinstance(config, dict) else None
    if not isinstance(calling, dict):
        return "auto"
    mode = str(calling.get("mode", "AUTO")).upper()
    allowed = gemini_field(calling, "allowedFunctionNames")
    if mode == "ANY":
        return f"tool:{allowed[0]}" if isinstance(allowed, list) and len(allowed) == 1 else "required"
    return "none" if mode == "NONE" else "auto"


def _gemini_result(reply: dict[str, Any], history: logged.History) -> None:
    response = reply.get("response")
    is_error = isinstance(response, dict) and set(response) == {"error"}
    if isinstance(response, dict) and len(response) == 1 and set(response) <= {"output", "error"}:
        content = next(iter(response.values()))
    else:
        content = response
    history.result(reply.get("id"), reply.get("name"), content, is_error)


def _gemini_turn(content: dict[str, Any], history: logged.History, where: str) -> None:
    texts: list[str] = []
    calls: list[ToolCall] = []
    for position, raw in enumerate(logged.json_list(content.get("parts"), f"{where}.parts")):
        part = logged.json_object(raw, f"{where}.parts[{position}]")
        call = gemini_field(part, "functionCall")
        reply = gemini_field(part, "functionResponse")
        if isinstance(call, dict):
            calls.append(
                make_call(call.get("id"), logged.tool_name(call.get("name"), where), call.get("args", {}))
            )
        elif isinstance(reply, dict):
            _gemini_result(reply, history)
        elif isinstance(part.get("text"), str):
            if not part.get("thought"):
                texts.append(part["text"])
        else:
            history.notes.append(f"{where}.parts[{position}]: {', '.join(sorted(part))} part left out")
    history.turn(content.get("role") == "model", texts, calls)


def read_request(body: Any) -> logged.LoggedRequest:
    """Read a ``generateContent`` request body."""
    body = logged.json_object(body, "the request")
    history = logged.History()
    instruction = gemini_field(body, "systemInstruction")
    parts = instruction.get("parts") if isinstance(instruction, dict) else instruction
    history.system_text(wire_text(parts))
    for index, raw in enumerate(logged.json_list(body.get("contents"), "contents")):
        _gemini_turn(logged.json_object(raw, f"contents[{index}]"), history, f"contents[{index}]")
    tools = []
    for index, raw in enumerate(logged.json_list(body.get("tools"), "tools")):
        entry = logged.json_object(raw, f"tools[{index}]")
        declarations = gemini_field(entry, "functionDeclarations")
        if declarations is None:
            history.notes.append(f"tools[{index}]: {', '.join(sorted(entry))} tool left out")
        for position, decl in enumerate(
            logged.json_list(declarations, f"tools[{index}].functionDeclarations")
        ):
            where = f"tools[{index}].functionDeclarations[{position}]"
            decl = logged.json_object(decl, where)
            schema = gemini_field(decl, "parametersJsonSchema")
            if schema is None and decl.get("parameters") is not None:
                schema = openapi_to_json_schema(decl["parameters"])
            tools.append(logged.read_tool(decl.get("name"), decl.get("description"), schema, where))
    return history.done(tools, _gemini_choice(gemini_field(body, "toolConfig")), body.get("model"))


__all__ = ["read_request"]
