"""Decoding Bedrock Converse requests for the mock: fields, tools, tool choice and messages.

Rejections follow the real API (HTTP 400 ``ValidationException``). Messages marked *real* below
repeat Bedrock's recorded wording; the rest are written in its style (the Coral
``1 validation error detected: Value ... at '...' failed to satisfy constraint: ...`` form for
shape constraints):

==================================================================  =======
rule                                                                message
==================================================================  =======
unknown field at the top level, in ``inferenceConfig``,             approx.
``toolConfig``, ``toolConfig.tools[i]`` and its ``toolSpec``
(:data:`FIELDS`, the Converse shapes of the Bedrock Runtime API)
``messages`` present, non-empty, starting with ``user``             real
roles ``user``/``assistant``, alternating                           real
``toolUse``/``toolResult`` blocks need a ``toolConfig``             real
every ``toolUse`` answered by a ``toolResult`` in the next message  real
no ``toolResult`` without a ``toolUse`` of the previous turn        real
``toolSpec.name`` matches ``[a-zA-Z0-9_-]+``, 1 to 64 characters    approx.
``inputSchema.json`` root ``type`` is ``object``                    real
``toolChoice.tool.name`` names an offered tool                      approx.
``inferenceConfig.maxTokens`` is an integer of at least 1           approx.
==================================================================  =======
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from fcbench.mock.common import MockError, decode_result
from fcbench.mock.sim.base import SimCall, SimTool, SimTurn

FIELDS: Mapping[str, frozenset[str]] = {
    "request": frozenset(
        {
            "messages",
            "system",
            "inferenceConfig",
            "toolConfig",
            "guardrailConfig",
            "additionalModelRequestFields",
            "promptVariables",
            "additionalModelResponseFieldPaths",
            "requestMetadata",
            "performanceConfig",
            "serviceTier",
            "outputConfig",
        }
    ),
    "inferenceConfig": frozenset({"maxTokens", "temperature", "topP", "stopSequences"}),
    "toolConfig": frozenset({"tools", "toolChoice"}),
    "tool": frozenset({"toolSpec", "systemTool", "cachePoint"}),
    "toolSpec": frozenset({"name", "description", "inputSchema", "strict"}),
}
"""Object -> the fields Bedrock accepts in it (the ``modelId`` is in the path, never the body)."""

_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_CHOICES: Mapping[str, str] = {"auto": "auto", "any": "required"}
_FIRST_USER = (
    "A conversation must start with a user message. Try again with a conversation that starts with a "
    "user message."
)


def bad(message: str) -> MockError:
    """A 400 ``ValidationException``."""
    return MockError("invalid_request", message)


def _unknown(path: str, key: str) -> MockError:
    return bad(
        f"Malformed input request: extraneous key [{path}{key}] is not permitted, "
        "please reformat your input and try again."
    )


def _keys(obj: dict[str, Any], label: str, path: str) -> None:
    for key in obj:
        if key not in FIELDS[label]:
            raise _unknown(path, key)


def check_fields(body: dict[str, Any], root: str, beta: bool) -> None:
    """Raise Bedrock's 400 for the first unknown field of a Converse body (:mod:`fcbench.mock.strict`)."""
    _keys(body, "request", "")
    if isinstance(body.get("inferenceConfig"), dict):
        _keys(body["inferenceConfig"], "inferenceConfig", "inferenceConfig.")
    config = body.get("toolConfig")
    if not isinstance(config, dict):
        return
    _keys(config, "toolConfig", "toolConfig.")
    tools = config.get("tools")
    for index, tool in enumerate(tools if isinstance(tools, list) else []):
        if isinstance(tool, dict):
            _keys(tool, "tool", f"toolConfig.tools.{index}.")
            if isinstance(tool.get("toolSpec"), dict):
                _keys(tool["toolSpec"], "toolSpec", f"toolConfig.tools.{index}.toolSpec.")


def _constraint(value: Any, at: str, rule: str) -> MockError:
    shown = value if isinstance(value, str) else json.dumps(value)
    return bad(f"1 validation error detected: Value '{shown}' at '{at}' failed to satisfy constraint: {rule}")


def check_inference_config(config: Any) -> None:
    """Check ``inferenceConfig`` (when present)."""
    if config is None:
        return
    if not isinstance(config, dict):
        raise _constraint(config, "inferenceConfig", "Member must be a structure")
    tokens = config.get("maxTokens")
    if tokens is not None and (not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 1):
        raise _constraint(
            tokens, "inferenceConfig.maxTokens", "Member must have value greater than or equal to 1"
        )


def decode_tools(config: Any) -> tuple[tuple[SimTool, ...], str]:
    """The offered tools and the tool choice (``auto``, ``required``, ``tool:NAME``, or ``none``
    without a ``toolConfig``)."""
    if config is None:
        return (), "none"
    if not isinstance(config, dict):
        raise _constraint(config, "toolConfig", "Member must be a structure")
    raw = config.get("tools")
    if not isinstance(raw, list) or not raw:
        raise _constraint(raw if raw is not None else "null", "toolConfig.tools", "Member must not be null")
    tools: list[SimTool] = []
    for index, tool in enumerate(raw):
        spec = tool.get("toolSpec") if isinstance(tool, dict) else None
        if not isinstance(spec, dict):
            continue  # cache points and system tools are not offered to the model
        name = spec.get("name")
        at = f"toolConfig.tools.{index}.member.toolSpec"
        if not isinstance(name, str) or not _TOOL_NAME.match(name):
            raise _constraint(
                name, f"{at}.name", "Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+"
            )
        schema = spec.get("inputSchema")
        document = schema.get("json") if isinstance(schema, dict) else None
        if not isinstance(document, dict):
            raise _constraint(schema, f"{at}.inputSchema", "Member must be a union with one of: json")
        if document.get("type") != "object":
            raise bad(
                f"The value at toolConfig.tools.{index}.toolSpec.inputSchema.json.type must be one of "
                "the following: object."
            )
        tools.append(SimTool(name, str(spec.get("description") or ""), document))
    return tuple(tools), _decode_choice(config.get("toolChoice"), tools)


def _decode_choice(raw: Any, tools: list[SimTool]) -> str:
    if raw is None:
        return "auto"
    if not isinstance(raw, dict) or len(raw) != 1 or next(iter(raw)) not in ("auto", "any", "tool"):
        raise _constraint(raw, "toolConfig.toolChoice", "Member must be a union with one of: auto, any, tool")
    kind, value = next(iter(raw.items()))
    if kind != "tool":
        return _CHOICES[kind]
    name = value.get("name") if isinstance(value, dict) else None
    if not any(tool.name == name for tool in tools):
        raise bad(f"The tool {name} in toolConfig.toolChoice is not defined in toolConfig.tools.")
    return f"tool:{name}"


def _blocks(message: Any, index: int) -> tuple[str, list[dict[str, Any]]]:
    if not isinstance(message, dict):
        raise _constraint(message, f"messages.{index}.member", "Member must be a structure")
    role = message.get("role")
    if role not in ("user", "assistant"):
        raise _constraint(
            role, f"messages.{index}.member.role", "Member must satisfy enum value set: [user, assistant]"
        )
    content = message.get("content")
    if not isinstance(content, list) or not all(isinstance(block, dict) for block in content):
        raise _constraint(content, f"messages.{index}.member.content", "Member must not be null")
    return role, content


def _result_value(content: Any) -> Any:
    values: list[Any] = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and "json" in part:
            values.append(part["json"])
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            values.append(decode_result(part["text"]))
    if len(values) == 1:
        return values[0]
    return "".join(v if isinstance(v, str) else json.dumps(v) for v in values)


def _unanswered(index: int, ids: list[str]) -> MockError:
    return bad(
        f"Expected toolResult blocks at messages.{index}.content for the following Ids: {', '.join(ids)}"
    )


def decode_messages(messages: Any, has_tool_config: bool) -> tuple[SimTurn, ...]:
    """The conversation as the simulated model reads it (raises the API's 400s)."""
    if not isinstance(messages, list) or not messages:
        raise bad(_FIRST_USER)
    turns: list[SimTurn] = []
    uses: dict[str, str] = {}
    previous_role = "assistant"
    seen_ids: set[str] = set()
    for index, message in enumerate(messages):
        role, blocks = _blocks(message, index)
        if index == 0 and role != "user":
            raise bad(_FIRST_USER)
        if role == previous_role:
            raise bad(
                "A conversation must alternate between user and assistant roles. Make sure the "
                "conversation alternates between user and assistant roles and try again."
            )
        previous_role = role
        if not has_tool_config and any("toolUse" in b or "toolResult" in b for b in blocks):
            raise bad(
                "The toolConfig field must be defined when using toolUse and toolResult content blocks."
            )
        if role == "user":
            turns.extend(_user_turns(index, blocks, uses))
            uses = {}
            continue
        texts: list[str] = []
        calls: list[SimCall] = []
        for block in blocks:
            if isinstance(block.get("text"), str):
                texts.append(block["text"])
            use = block.get("toolUse")
            if isinstance(use, dict):
                use_id = use.get("toolUseId")
                if not isinstance(use_id, str) or use_id in seen_ids:
                    raise bad(
                        f"The toolUse blocks at messages.{index}.content must have unique toolUseId values."
                    )
                seen_ids.add(use_id)
                calls.append(SimCall(str(use.get("name", "")), json.dumps(use.get("input", {})), use_id))
        turns.append(SimTurn("assistant", "".join(texts), calls=tuple(calls)))
        uses = {call.id: call.name for call in calls if call.id}
    return tuple(turns)


def _user_turns(index: int, blocks: list[dict[str, Any]], uses: dict[str, str]) -> list[SimTurn]:
    turns: list[SimTurn] = []
    texts: list[str] = []
    answered: list[str] = []
    for block in blocks:
        result = block.get("toolResult")
        if isinstance(result, dict):
            use_id = result.get("toolUseId")
            if use_id not in uses or use_id in answered:
                raise bad(
                    f"The number of toolResult blocks at messages.{index}.content exceeds the number of "
                    "toolUse blocks of previous turn."
                )
            answered.append(use_id)
            turns.append(
                SimTurn(
                    "tool",
                    call_id=use_id,
                    tool_name=uses[use_id],
                    result=_result_value(result.get("content")),
                    is_error=result.get("status") == "error",
                )
            )
        elif isinstance(block.get("text"), str):
            texts.append(block["text"])
    missing = [use_id for use_id in uses if use_id not in answered]
    if missing:
        raise _unanswered(index, missing)
    if texts:
        turns.append(SimTurn("user", "".join(texts)))
    return turns
