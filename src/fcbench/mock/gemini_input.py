"""Request decoding for the mock's Gemini dialect: function declarations, tool config, contents.

Fields are read under their camelCase or snake_case names. A user turn of ``functionResponse``
parts must follow a model turn of ``functionCall`` parts and answer each of them, by ``id`` when
given, otherwise by name (protocols.md section 4.3).
"""

from __future__ import annotations

import json
from typing import Any

from fcbench.mock.acceptance import check_gemini_declaration
from fcbench.mock.common import MockError
from fcbench.mock.sim.base import SimCall, SimTool, SimTurn
from fcbench.schema.gemini import gemini_field as field
from fcbench.schema.gemini import openapi_to_json_schema


def _bad(message: str) -> MockError:
    return MockError("invalid_request", message)


def text_of_parts(parts: Any) -> str:
    """Joined text of a list of parts."""
    if isinstance(parts, str):
        return parts
    if not isinstance(parts, list):
        return ""
    return "".join(str(part.get("text", "")) for part in parts if isinstance(part, dict))


def decode_tools(raw: Any) -> tuple[SimTool, ...]:
    """Offered functions, each checked and with its schema as JSON Schema."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise _bad("Invalid JSON payload received. 'tools' must be a list.")
    tools: list[SimTool] = []
    for tool_index, tool in enumerate(raw):
        declarations = field(tool, "functionDeclarations") if isinstance(tool, dict) else None
        for decl_index, decl in enumerate(declarations or []):
            check_gemini_declaration(tool_index, decl_index, decl)
            typed = decl.get("parameters")
            schema = field(decl, "parametersJsonSchema")
            if schema is None:
                schema = (
                    openapi_to_json_schema(typed)
                    if typed is not None
                    else {"type": "object", "properties": {}}
                )
            tools.append(SimTool(decl["name"], str(decl.get("description") or ""), schema))
    return tuple(tools)


def decode_choice(config: Any, tools: tuple[SimTool, ...]) -> tuple[str, tuple[SimTool, ...]]:
    """(sim tool choice, tools the model may use) from ``toolConfig``."""
    calling = field(config, "functionCallingConfig") if isinstance(config, dict) else None
    if not isinstance(calling, dict):
        return ("auto" if tools else "none"), tools
    mode = str(calling.get("mode", "AUTO")).upper()
    allowed = field(calling, "allowedFunctionNames")
    offered = tuple(t for t in tools if t.name in allowed) if isinstance(allowed, list) and allowed else tools
    if mode == "NONE":
        return "none", tools
    if mode == "ANY":
        if len(offered) == 1:
            return f"tool:{offered[0].name}", offered
        return "required", offered
    if mode in ("AUTO", "VALIDATED", "MODE_UNSPECIFIED"):
        return ("auto" if tools else "none"), offered
    raise _bad(
        f"Invalid value at 'tool_config.function_calling_config.mode' "
        f'(type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "{mode}"'
    )


def decode_contents(contents: list[Any]) -> tuple[SimTurn, ...]:
    """Turns from ``contents``, with tool results matched to the calls before them."""
    turns: list[SimTurn] = []
    previous_calls: list[SimCall] = []
    for index, content in enumerate(contents):
        if not isinstance(content, dict):
            raise _bad(f"Invalid JSON payload received. Expected an object at 'contents[{index}]'.")
        role = content.get("role") or "user"
        parts = content.get("parts") or []
        texts: list[str] = []
        calls: list[SimCall] = []
        responses: list[dict[str, Any]] = []
        for part in parts if isinstance(parts, list) else []:
            if not isinstance(part, dict):
                continue
            if isinstance(part.get("text"), str) and not part.get("thought"):
                texts.append(part["text"])
            call = field(part, "functionCall")
            if isinstance(call, dict):
                calls.append(
                    SimCall(str(call.get("name", "")), json.dumps(call.get("args", {})), call.get("id"))
                )
            answer = field(part, "functionResponse")
            if isinstance(answer, dict):
                responses.append(answer)
        if role == "model":
            turns.append(SimTurn("assistant", "".join(texts), calls=tuple(calls)))
        elif role == "user":
            if responses:
                turns.extend(_tool_turns(responses, previous_calls))
            if texts:
                turns.append(SimTurn("user", "".join(texts)))
        else:
            raise _bad(f"Please use a valid role: user, model. Got role '{role}' at contents[{index}].")
        previous_calls = calls if role == "model" else []
    return tuple(turns)


def _tool_turns(responses: list[dict[str, Any]], calls: list[SimCall]) -> list[SimTurn]:
    if not calls:
        raise _bad("Please ensure that function response turn comes immediately after a function call turn.")
    if len(responses) != len(calls):
        raise _bad(
            "Please ensure that the number of function response parts is equal to the number of function "
            "call parts of the function call turn."
        )
    turns: list[SimTurn] = []
    open_calls = list(calls)
    for answer in responses:
        answer_id = answer.get("id")
        name = answer.get("name")
        if answer_id:
            match = next((call for call in open_calls if call.id == answer_id), None)
        else:
            match = next((call for call in open_calls if call.name == name), None)
        if match is None:
            wanted = f"id '{answer_id}'" if answer_id else f"name '{name}'"
            raise _bad(
                f"Function response with {wanted} does not match any function call of the preceding "
                "function call turn."
            )
        open_calls.remove(match)
        result, is_error = _response_value(answer.get("response"))
        turns.append(
            SimTurn("tool", call_id=match.id, tool_name=match.name, result=result, is_error=is_error)
        )
    return turns


def _response_value(response: Any) -> tuple[Any, bool]:
    """Result value and error flag from a ``functionResponse.response`` object."""
    if isinstance(response, dict) and set(response) == {"output"}:
        return response["output"], False
    if isinstance(response, dict) and set(response) == {"error"}:
        return response["error"], True
    return response, False
