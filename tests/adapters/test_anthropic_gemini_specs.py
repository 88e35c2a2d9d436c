"""Requests built by the anthropic-messages and gemini adapters validate against the official specs.

Anthropic: ``CreateMessageParams`` of the Stainless OpenAPI 3.1 spec (JSON Schema 2020-12 as is).
Gemini: ``GenerateContentRequest`` of the discovery-derived OpenAPI 3.0 spec, converted here:
``nullable: true`` becomes a ``null`` type, and objects that list ``properties`` but say nothing
about others are closed, so a misspelt field fails instead of passing silently.
"""

from __future__ import annotations

import itertools
from functools import cache
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from wire_fixtures import interactions, load_spec

from fcbench.adapters import get
from fcbench.adapters.base import RequestOptions, ToolChoice
from fcbench.contract import AssistantMessage, Message, Tool, ToolCall, ToolResultMessage, UserMessage

TOOLS = [
    Tool(
        name="get_weather",
        description="Weather for a city.",
        parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    ),
    Tool(
        name="search_orders",
        description="Search orders.",
        parameters={
            "type": "object",
            "properties": {
                "email": {"type": "string", "format": "email"},
                "status": {"type": "string", "enum": ["open", "shipped"]},
                "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5},
            },
            "required": ["email"],
            "additionalProperties": False,
        },
    ),
]


def _openapi30(node: Any) -> Any:
    if isinstance(node, list):
        return [_openapi30(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _openapi30(value) for key, value in node.items()}
    if out.pop("nullable", False) is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    if out.get("type") == "object" and "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def _validator(spec: Any, schema: str, uri: str) -> Draft202012Validator:
    registry: Registry[Any] = Registry().with_resource(uri, Resource.from_contents(spec, DRAFT202012))
    return Draft202012Validator({"$ref": f"{uri}#/components/schemas/{schema}"}, registry=registry)


@cache
def validator(dialect: str) -> Draft202012Validator:
    """The request-body validator of one dialect (built once)."""
    if dialect == "anthropic-messages":
        return _validator(
            load_spec("anthropic/openapi.stainless.json"), "CreateMessageParams", "urn:anthropic"
        )
    spec = _openapi30(load_spec("gemini/openapi.from-discovery-v1beta.tryAGI.json"))
    return _validator(spec, "GenerateContentRequest", "urn:gemini")


def _errors(dialect: str, body: Any) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator(dialect).iter_errors(body)]


def _canonical_history() -> list[Message]:
    calls = [
        ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"}),
        ToolCall(id="call_2", name="search_orders", arguments={"email": "a@b.test"}),
    ]
    return [
        UserMessage(content="Weather in Paris, and my orders?"),
        AssistantMessage(content="Looking.", calls=calls),
        ToolResultMessage(call_id="call_2", name="search_orders", content=[{"id": "ORD-1"}]),
        ToolResultMessage(call_id="call_1", name="get_weather", content="18C", is_error=True),
        UserMessage(content="Thanks, summarise."),
    ]


def _replayed_history(dialect: str) -> list[Message]:
    """A history whose assistant turn was parsed from recorded traffic of the dialect."""
    api = {"anthropic-messages": "anthropic_messages", "gemini": "gemini_generateContent"}[dialect]
    item = next(i for i in interactions(api, stream=True) if "call_with_tools" in i.file and i.i == 0)
    turn = get(dialect).parse_stream(item.events())
    assert turn.assistant is not None and turn.assistant.calls
    keys = turn.assistant.provider_state.get("gemini", {}).get("call_keys") if dialect == "gemini" else None
    results = [
        ToolResultMessage(call_id=(keys[i] if keys else call.id), name=call.name, content=f"secret {i}")
        for i, call in enumerate(turn.assistant.calls)
    ]
    return [UserMessage(content="Retrieve the secrets."), turn.assistant, *results]


HISTORIES = ["none", "canonical", "replayed"]
CHOICES = ["auto", "required", "none", "tool:search_orders"]
OPTIONS = {
    "plain": RequestOptions(model="model-x"),
    "everything": RequestOptions(
        model="model-x", temperature=None, stream=True, parallel_tool_calls=False, strict=True, seed=11
    ),
}


@pytest.mark.parametrize("dialect", ["anthropic-messages", "gemini"])
@pytest.mark.parametrize(
    ("choice", "history", "option"), list(itertools.product(CHOICES, HISTORIES, OPTIONS))
)
def test_built_request_validates_against_the_official_spec(
    dialect: str, choice: str, history: str, option: str
) -> None:
    messages: list[Message] = {
        "none": lambda: [UserMessage(content="Weather in Paris?")],
        "canonical": _canonical_history,
        "replayed": lambda: _replayed_history(dialect),
    }[history]()
    built = get(dialect).build_request(
        "Be brief.", messages, TOOLS, ToolChoice.parse(choice), OPTIONS[option]
    )
    assert _errors(dialect, built.body) == []


@pytest.mark.parametrize("dialect", ["anthropic-messages", "gemini"])
def test_request_without_tools_validates(dialect: str) -> None:
    built = get(dialect).build_request(
        None, [UserMessage(content="hi")], [], ToolChoice(), RequestOptions(model="m")
    )
    assert _errors(dialect, built.body) == []


def test_recorded_anthropic_requests_validate() -> None:
    bodies = [i.request_json for i in interactions("anthropic_messages")]
    assert bodies and all(_errors("anthropic-messages", body) == [] for body in bodies)


def test_recorded_camel_case_gemini_requests_validate() -> None:
    bodies = [i.request_json for i in interactions("gemini_generateContent") if "mirascope" in i.file]
    assert bodies and all(_errors("gemini", body) == [] for body in bodies)


def _good(dialect: str) -> dict[str, Any]:
    return (
        get(dialect)
        .build_request(None, _canonical_history(), TOOLS, ToolChoice(), RequestOptions(model="m"))
        .body
    )


@pytest.mark.parametrize(
    ("dialect", "breakage"),
    [
        ("anthropic-messages", lambda b: b.update(tool_choice={"type": "required"})),
        ("anthropic-messages", lambda b: b.pop("max_tokens")),
        ("anthropic-messages", lambda b: b["messages"].insert(0, {"role": "system", "content": "x"})),
        ("anthropic-messages", lambda b: b["tools"][0].update(parameters=b["tools"][0].pop("input_schema"))),
        ("anthropic-messages", lambda b: b["messages"][2]["content"][0].update(tool_call_id="x")),
        (
            "gemini",
            lambda b: b["tools"][0].update(functionDeclaration=b["tools"][0].pop("functionDeclarations")),
        ),
        ("gemini", lambda b: b["toolConfig"]["functionCallingConfig"].update(mode="REQUIRED")),
        ("gemini", lambda b: b["contents"][1]["parts"][1].update(function_call={})),
        ("gemini", lambda b: b["generationConfig"].update(max_tokens=5)),
    ],
)
def test_the_validators_reject_broken_bodies(dialect: str, breakage: Any) -> None:
    body = _good(dialect)
    assert _errors(dialect, body) == []
    breakage(body)
    assert _errors(dialect, body) != []
