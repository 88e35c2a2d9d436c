"""Reading a logged Bedrock Converse (or ConverseStream) request back into canonical form.

``system`` text blocks; ``messages`` with ``text``, ``toolUse`` and ``toolResult`` blocks (a
``json`` result as its value); ``toolConfig.tools[].toolSpec`` with ``inputSchema.json``;
``toolConfig.toolChoice``. The model id is in the URL, not the body.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fcbench.adapters import logged
from fcbench.contract import ToolCall, make_call, wire_text

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
    parts = [p for p in logged.json_list(result.get("content"), "toolResult.content") if isinstance(p, dict)]
    values = [p["json"] if "json" in p else p.get("text", "") for p in parts if "json" in p or "text" in p]
    if len(values) == 1:
        return values[0]
    return "".join(v if isinstance(v, str) else json.dumps(v) for v in values)


def _bedrock_turn(role: Any, content: list[Any], history: logged.History, where: str) -> None:
    texts: list[str] = []
    calls: list[ToolCall] = []
    for position, raw in enumerate(content):
        block, at = logged.json_object(raw, f"{where}.content[{position}]"), f"{where}.content[{position}]"
        if isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif role == "assistant" and isinstance(block.get("toolUse"), dict):
            use = block["toolUse"]
            calls.append(
                make_call(use.get("toolUseId"), logged.tool_name(use.get("name"), at), use.get("input", {}))
            )
        elif role == "user" and isinstance(block.get("toolResult"), dict):
            result = block["toolResult"]
            history.result(
                result.get("toolUseId"), None, _bedrock_result(result), result.get("status") == "error"
            )
        else:
            history.notes.append(f"{at}: {', '.join(sorted(block)) or 'empty'} block left out")
    history.turn(role == "assistant", texts, calls)


def read_request(body: Any) -> logged.LoggedRequest:
    """Read a Bedrock Converse (or ConverseStream) request body (the model id is in the URL)."""
    body = logged.json_object(body, "the request")
    history = logged.History()
    history.system_text(wire_text(body.get("system")))
    for index, raw in enumerate(logged.json_list(body.get("messages"), "messages")):
        message, where = logged.json_object(raw, f"messages[{index}]"), f"messages[{index}]"
        if message.get("role") not in ("user", "assistant"):
            raise logged.RequestFormatError(f"{where}: unknown role {message.get('role')!r}")
        _bedrock_turn(
            message["role"], logged.json_list(message.get("content"), f"{where}.content"), history, where
        )
    config = body.get("toolConfig")
    tools = []
    for index, raw in enumerate(
        logged.json_list(config.get("tools") if isinstance(config, dict) else None, "tools")
    ):
        spec = logged.json_object(raw, f"toolConfig.tools[{index}]").get("toolSpec")
        if not isinstance(spec, dict):
            history.notes.append(f"toolConfig.tools[{index}]: {', '.join(sorted(raw))} entry left out")
            continue
        schema = spec.get("inputSchema")
        parameters = schema.get("json") if isinstance(schema, dict) else None
        tools.append(
            logged.read_tool(
                spec.get("name"), spec.get("description"), parameters, f"toolConfig.tools[{index}]"
            )
        )
    return history.done(tools, _bedrock_choice(config), None)


__all__ = ["read_request"]
