"""Request readers: a logged wire request of one dialect -> canonical system, messages and tools.

The adapters translate canonical requests into wire requests; these readers go the other way, for
requests somebody else built (production traffic). One reader per dialect, in :data:`READERS`,
keyed by the adapter registry's dialect names. A reader keeps what the canonical contract can say
and notes what it had to leave out (images, hosted tools, reasoning items) in
:attr:`~fcbench.logs.request_parts.LoggedRequest.notes`; it never guesses. A body it cannot read
raises :class:`~fcbench.logs.request_parts.RequestFormatError` with the reason (the caller adds
file and line).

What each reader takes from the body:

* ``openai-chat``: leading ``system``/``developer`` messages -> system; ``user``, ``assistant``
  (``tool_calls``, arguments as their JSON text) and ``tool`` messages; ``tools[].function``;
  ``tool_choice``.
* ``openai-responses``: ``instructions`` (and leading system/developer items) -> system; ``input``
  as a string or items (messages, ``function_call``, ``function_call_output``); flat function
  tools; ``tool_choice``.
* ``anthropic-messages``: ``system`` (string or text blocks); ``messages`` with ``text``,
  ``tool_use`` and ``tool_result`` blocks; ``tools[].input_schema``; ``tool_choice``.
* ``gemini``: ``systemInstruction``; ``contents`` with ``text``, ``functionCall`` and
  ``functionResponse`` parts; ``functionDeclarations`` with ``parametersJsonSchema`` or the typed
  ``parameters`` (turned into JSON Schema); ``toolConfig.functionCallingConfig``. camelCase and
  snake_case field names alike.
* ``bedrock-converse``: ``system`` text blocks; ``messages`` with ``text``, ``toolUse`` and
  ``toolResult`` blocks (a ``json`` result as its value); ``toolConfig.tools[].toolSpec`` with
  ``inputSchema.json``; ``toolConfig.toolChoice``. The model id is in the URL, not the body.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from fcbench.contract import (
    ToolCall,
    make_call,
    wire_text,
)
from fcbench.logs.request_parts import (
    History,
    LoggedRequest,
    RequestFormatError,
    json_list,
    json_object,
    read_tool,
    text_parts,
    tool_name,
)
from fcbench.schema.gemini import gemini_field, openapi_to_json_schema


def _openai_choice(value: Any) -> str:
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


def read_openai_chat(body: Any) -> LoggedRequest:
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
    return history.done(tools, _openai_choice(body.get("tool_choice")), body.get("model"))


def read_openai_responses(body: Any) -> LoggedRequest:
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
    return history.done(tools, _openai_choice(body.get("tool_choice")), body.get("model"))


_ANTHROPIC_CHOICES: Mapping[str, str] = {"auto": "auto", "any": "required", "none": "none"}


def _anthropic_choice(value: Any) -> str:
    if not isinstance(value, dict):
        return "auto"
    if value.get("type") == "tool" and isinstance(value.get("name"), str):
        return f"tool:{value['name']}"
    return _ANTHROPIC_CHOICES.get(str(value.get("type")), "auto")


def _anthropic_user(content: Any, history: History, where: str) -> None:
    if not isinstance(content, list):
        history.user(wire_text(content))
        return
    texts: list[str] = []
    for position, raw in enumerate(content):
        block = json_object(raw, f"{where}.content[{position}]")
        if block.get("type") == "tool_result":
            result = block.get("content")
            text = result if isinstance(result, str) else text_parts(result, history, where)
            history.result(block.get("tool_use_id"), None, text, block.get("is_error") is True)
        elif block.get("type") == "text":
            texts.append(str(block.get("text", "")))
        else:
            history.notes.append(f"{where}.content[{position}]: {block.get('type')} block left out")
    if texts:
        history.user("".join(texts))


def _anthropic_assistant(content: Any, history: History, where: str) -> None:
    if not isinstance(content, list):
        history.assistant(wire_text(content), [])
        return
    texts: list[str] = []
    calls: list[ToolCall] = []
    for position, raw in enumerate(content):
        block = json_object(raw, f"{where}.content[{position}]")
        if block.get("type") == "tool_use":
            name = tool_name(block.get("name"), f"{where}.content[{position}]")
            calls.append(make_call(block.get("id"), name, block.get("input", {})))
        elif block.get("type") == "text":
            texts.append(str(block.get("text", "")))
        else:
            history.notes.append(f"{where}.content[{position}]: {block.get('type')} block left out")
    history.assistant("".join(texts), calls)


def read_anthropic_messages(body: Any) -> LoggedRequest:
    """Read a Messages API request body."""
    body = json_object(body, "the request")
    history = History()
    history.system_text(wire_text(body.get("system")))
    for index, raw in enumerate(json_list(body.get("messages"), "messages")):
        message = json_object(raw, f"messages[{index}]")
        role, where = message.get("role"), f"messages[{index}]"
        if role == "user":
            _anthropic_user(message.get("content"), history, where)
        elif role == "assistant":
            _anthropic_assistant(message.get("content"), history, where)
        else:
            raise RequestFormatError(f"{where}: unknown role {role!r}")
    tools = []
    for index, raw in enumerate(json_list(body.get("tools"), "tools")):
        tool = json_object(raw, f"tools[{index}]")
        if tool.get("type") not in (None, "custom"):
            history.notes.append(f"tools[{index}]: {tool.get('type')} tool left out")
            continue
        tools.append(
            read_tool(tool.get("name"), tool.get("description"), tool.get("input_schema"), f"tools[{index}]")
        )
    return history.done(tools, _anthropic_choice(body.get("tool_choice")), body.get("model"))


def _gemini_choice(config: Any) -> str:
    calling = gemini_field(config, "functionCallingConfig") if isinstance(config, dict) else None
    if not isinstance(calling, dict):
        return "auto"
    mode = str(calling.get("mode", "AUTO")).upper()
    allowed = gemini_field(calling, "allowedFunctionNames")
    if mode == "ANY":
        return f"tool:{allowed[0]}" if isinstance(allowed, list) and len(allowed) == 1 else "required"
    return "none" if mode == "NONE" else "auto"


def _gemini_result(reply: dict[str, Any], history: History) -> None:
    response = reply.get("response")
    is_error = isinstance(response, dict) and set(response) == {"error"}
    if isinstance(response, dict) and len(response) == 1 and set(response) <= {"output", "error"}:
        content = next(iter(response.values()))
    else:
        content = response
    history.result(reply.get("id"), reply.get("name"), content, is_error)


def _gemini_turn(content: dict[str, Any], history: History, where: str) -> None:
    texts: list[str] = []
    calls: list[ToolCall] = []
    for position, raw in enumerate(json_list(content.get("parts"), f"{where}.parts")):
        part = json_object(raw, f"{where}.parts[{position}]")
        call = gemini_field(part, "functionCall")
        reply = gemini_field(part, "functionResponse")
        if isinstance(call, dict):
            calls.append(make_call(call.get("id"), tool_name(call.get("name"), where), call.get("args", {})))
        elif isinstance(reply, dict):
            _gemini_result(reply, history)
        elif isinstance(part.get("text"), str):
            if not part.get("thought"):
                texts.append(part["text"])
        else:
            history.notes.append(f"{where}.parts[{position}]: {', '.join(sorted(part))} part left out")
    if content.get("role") == "model":
        history.assistant("".join(texts), calls)
    elif texts:
        history.user("".join(texts))


def read_gemini(body: Any) -> LoggedRequest:
    """Read a ``generateContent`` request body."""
    body = json_object(body, "the request")
    history = History()
    instruction = gemini_field(body, "systemInstruction")
    parts = instruction.get("parts") if isinstance(instruction, dict) else instruction
    history.system_text(wire_text(parts))
    for index, raw in enumerate(json_list(body.get("contents"), "contents")):
        _gemini_turn(json_object(raw, f"contents[{index}]"), history, f"contents[{index}]")
    tools = []
    for index, raw in enumerate(json_list(body.get("tools"), "tools")):
        entry = json_object(raw, f"tools[{index}]")
        declarations = gemini_field(entry, "functionDeclarations")
        if declarations is None:
            history.notes.append(f"tools[{index}]: {', '.join(sorted(entry))} tool left out")
        for position, decl in enumerate(json_list(declarations, f"tools[{index}].functionDeclarations")):
            where = f"tools[{index}].functionDeclarations[{position}]"
            decl = json_object(decl, where)
            schema = gemini_field(decl, "parametersJsonSchema")
            if schema is None and decl.get("parameters") is not None:
                schema = openapi_to_json_schema(decl["parameters"])
            tools.append(read_tool(decl.get("name"), decl.get("description"), schema, where))
    return history.done(tools, _gemini_choice(gemini_field(body, "toolConfig")), body.get("model"))


_BEDROCK_CHOICES: Mapping[str, str] = {"auto": "auto", "any": "required"}


def _bedrock_choice(config: Any) -> str:
    choice = config.get("toolChoice") if isinstance(config, dict) else None
    if not isinstance(choice, dict):
        return "auto"
    named = choice.get("tool")
    if isinstance(named, dict) and isinstance(named.get("name"), str):
        return f"tool:{named['name']}"
    return next((_BEDROCK_CHOICES[k] for k in choice if k in _BEDROCK_CHOICES), "auto")


def _bedrock_result(result: dict[str, Any]) -> Any:
    parts = [p for p in json_list(result.get("content"), "toolResult.content") if isinstance(p, dict)]
    values = [p["json"] if "json" in p else p.get("text", "") for p in parts if "json" in p or "text" in p]
    if len(values) == 1:
        return values[0]
    return "".join(v if isinstance(v, str) else json.dumps(v) for v in values)


def _bedrock_turn(role: Any, content: list[Any], history: History, where: str) -> None:
    texts: list[str] = []
    calls: list[ToolCall] = []
    for position, raw in enumerate(content):
        block, at = json_object(raw, f"{where}.content[{position}]"), f"{where}.content[{position}]"
        if isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif role == "assistant" and isinstance(block.get("toolUse"), dict):
            use = block["toolUse"]
            calls.append(
                make_call(use.get("toolUseId"), tool_name(use.get("name"), at), use.get("input", {}))
            )
        elif role == "user" and isinstance(block.get("toolResult"), dict):
            result = block["toolResult"]
            history.result(
                result.get("toolUseId"), None, _bedrock_result(result), result.get("status") == "error"
            )
        else:
            history.notes.append(f"{at}: {', '.join(sorted(block)) or 'empty'} block left out")
    if role == "assistant":
        history.assistant("".join(texts), calls)
    elif texts:
        history.user("".join(texts))


def read_bedrock_converse(body: Any) -> LoggedRequest:
    """Read a Bedrock Converse (or ConverseStream) request body (the model id is in the URL)."""
    body = json_object(body, "the request")
    history = History()
    history.system_text(wire_text(body.get("system")))
    for index, raw in enumerate(json_list(body.get("messages"), "messages")):
        message, where = json_object(raw, f"messages[{index}]"), f"messages[{index}]"
        if message.get("role") not in ("user", "assistant"):
            raise RequestFormatError(f"{where}: unknown role {message.get('role')!r}")
        _bedrock_turn(message["role"], json_list(message.get("content"), f"{where}.content"), history, where)
    config = body.get("toolConfig")
    tools = []
    for index, raw in enumerate(
        json_list(config.get("tools") if isinstance(config, dict) else None, "tools")
    ):
        spec = json_object(raw, f"toolConfig.tools[{index}]").get("toolSpec")
        if not isinstance(spec, dict):
            history.notes.append(f"toolConfig.tools[{index}]: {', '.join(sorted(raw))} entry left out")
            continue
        schema = spec.get("inputSchema")
        parameters = schema.get("json") if isinstance(schema, dict) else None
        tools.append(
            read_tool(spec.get("name"), spec.get("description"), parameters, f"toolConfig.tools[{index}]")
        )
    return history.done(tools, _bedrock_choice(config), None)


RequestReader = Callable[[Any], LoggedRequest]
"""Reads one decoded request body; raises :class:`RequestFormatError` when it cannot."""

READERS: Mapping[str, RequestReader] = {
    "openai-chat": read_openai_chat,
    "openai-responses": read_openai_responses,
    "anthropic-messages": read_anthropic_messages,
    "gemini": read_gemini,
    "bedrock-converse": read_bedrock_converse,
}
"""Dialect (adapter registry name) -> request reader."""

NOT_READ: Mapping[str, str] = {
    "gemini-interactions": "its logs are interactions chained by previous_interaction_id, and a "
    "logged request alone does not hold the conversation it continues",
}
"""Dialects of the adapter registry whose logs have no reader yet, and why."""


def read_request(dialect: str, body: Any) -> LoggedRequest:
    """Read one logged request body of ``dialect`` (a JSON string is decoded first)."""
    reader = READERS.get(dialect)
    if reader is None:
        why = f" ({NOT_READ[dialect]})" if dialect in NOT_READ else ""
        raise RequestFormatError(
            f"no request reader for dialect {dialect!r}{why}; known: {', '.join(READERS)}"
        )
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError as exc:
            raise RequestFormatError(f"the request is a string that is not JSON: {exc}") from None
    return reader(body)


__all__ = ["NOT_READ", "READERS", "RequestReader", "read_request"]
