"""The request field sets the strict mock checks, derived from the official API specs.

``derive()`` reads the three spec files under ``tests/fixtures/specs/`` and returns what
``src/fcbench/mock/fields.json`` must hold: per dialect, per object label, the sorted names of the
object's properties (``allOf`` parts and object ``anyOf`` branches merged), for OpenAI Chat one
``message.<role>`` set per branch of the ``messages`` item union, and for Anthropic the ``type``
tags of the tool union with and without beta. ``python tests/support/spec_fields.py``
rewrites the data file; ``tests/mock/test_strict.py`` checks that it is up to date.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "tests" / "fixtures" / "specs"
FIELDS_FILE = ROOT / "src" / "fcbench" / "mock" / "fields.json"

OBJECTS: dict[str, tuple[str, dict[str, str]]] = {
    "openai-chat": (
        "openai/openapi.json",
        {
            "request": "CreateChatCompletionRequest",
            "tool.function": "ChatCompletionTool",
            "function": "FunctionObject",
            "tool_choice.function": "ChatCompletionNamedToolChoice",
            "tool_choice.allowed_tools": "ChatCompletionAllowedToolsChoice",
            "stream_options": "ChatCompletionStreamOptions",
        },
    ),
    "openai-responses": (
        "openai/openapi.json",
        {
            "request": "CreateResponse",
            "tool.function": "FunctionTool",
            "tool_choice.function": "ToolChoiceFunction",
            "tool_choice.allowed_tools": "ToolChoiceAllowed",
            "item.function_call": "FunctionToolCall",
            "item.function_call_output": "FunctionCallOutputItemParam",
        },
    ),
    "anthropic-messages": (
        "anthropic/openapi.stainless.json",
        {
            f"{prefix}{label}": f"{spec_prefix}{name}"
            for prefix, spec_prefix in (("", ""), ("beta:", "Beta"))
            for label, name in {
                "request": "CreateMessageParams",
                "count": "CountMessageTokensParams",
                "tool.custom": "Tool",
                "tool_choice.auto": "ToolChoiceAuto",
                "tool_choice.any": "ToolChoiceAny",
                "tool_choice.tool": "ToolChoiceTool",
                "tool_choice.none": "ToolChoiceNone",
                "message": "InputMessage",
                "block.text": "RequestTextBlock",
                "block.tool_use": "RequestToolUseBlock",
                "block.tool_result": "RequestToolResultBlock",
                "thinking.enabled": "ThinkingConfigEnabled",
                "thinking.disabled": "ThinkingConfigDisabled",
                "thinking.adaptive": "ThinkingConfigAdaptive",
                "metadata": "Metadata",
            }.items()
        },
    ),
    "gemini": (
        "gemini/openapi.from-discovery-v1beta.tryAGI.json",
        {
            "request": "GenerateContentRequest",
            "count": "CountTokensRequest",
            "tool": "Tool",
            "generationConfig": "GenerationConfig",
            "thinkingConfig": "ThinkingConfig",
            "toolConfig": "ToolConfig",
            "functionCallingConfig": "FunctionCallingConfig",
            "content": "Content",
            "part": "Part",
            "functionCall": "FunctionCall",
            "functionResponse": "FunctionResponse",
        },
    ),
}
"""Dialect -> (spec file, object label -> spec component). Labels are what the mock looks up."""

SPEC_FILES: dict[str, str] = {
    "openai": "openai/openapi.json",
    "anthropic": "anthropic/openapi.stainless.json",
    "gemini": "gemini/openapi.from-discovery-v1beta.tryAGI.json",
}


def _schemas(spec_file: str) -> dict[str, Any]:
    data = json.loads((SPECS / spec_file).read_text(encoding="utf-8"))
    schemas: dict[str, Any] = data["components"]["schemas"]
    return schemas


def _deref(schemas: dict[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        node = schemas[node["$ref"].rsplit("/", 1)[-1]]
    return node


def properties(schemas: dict[str, Any], node: Any) -> set[str]:
    """Property names of a schema: its own, its ``allOf`` parts' and its object branches'."""
    node = _deref(schemas, node)
    if not isinstance(node, dict):
        return set()
    out = set(node.get("properties") or {})
    for part in node.get("allOf", []):
        out |= properties(schemas, part)
    for key in ("anyOf", "oneOf"):
        for branch in node.get(key, []):
            out |= properties(schemas, branch)
    return out


def _tool_types(schemas: dict[str, Any], request: str) -> list[str]:
    """The ``type`` tags of the ``tools`` item union of an Anthropic request schema."""
    items = schemas[request]["properties"]["tools"]["items"]
    tags: set[str] = set()
    for branch in items.get("oneOf", items.get("anyOf", [])):
        kind = _deref(schemas, branch).get("properties", {}).get("type", {})
        tags.update(str(value) for value in kind.get("enum", []) if value is not None)
        if "const" in kind:
            tags.add(str(kind["const"]))
    return sorted(tags)


CHAT_MESSAGE_UNION = "ChatCompletionRequestMessage"
"""The spec's ``messages`` item: a ``oneOf`` of one schema per ``role``."""


def message_schemas(schemas: dict[str, Any], union: str = CHAT_MESSAGE_UNION) -> dict[str, str]:
    """``message.<role>`` label -> spec component, for every branch of the Chat message union."""
    out: dict[str, str] = {}
    for branch in schemas[union]["oneOf"]:
        name = branch["$ref"].rsplit("/", 1)[-1]
        for role in schemas[name]["properties"]["role"]["enum"]:
            out[f"message.{role}"] = name
    return out


def derive() -> dict[str, Any]:
    """The content of ``fields.json``, computed from the spec files."""
    out: dict[str, Any] = {}
    for dialect, (spec_file, objects) in OBJECTS.items():
        schemas = _schemas(spec_file)
        entry: dict[str, Any] = {
            label: sorted(properties(schemas, {"$ref": f"#/{name}"})) for label, name in objects.items()
        }
        if dialect == "openai-chat":
            for label, name in message_schemas(schemas).items():
                entry[label] = sorted(properties(schemas, {"$ref": f"#/{name}"}))
        if dialect == "anthropic-messages":
            entry["tool_types"] = _tool_types(schemas, "CreateMessageParams")
            entry["beta:tool_types"] = _tool_types(schemas, "BetaCreateMessageParams")
        out[dialect] = entry
    return out


def render() -> str:
    """``derive()`` as the text of the data file."""
    return json.dumps(derive(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    FIELDS_FILE.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {FIELDS_FILE.relative_to(ROOT)}\n")
