"""Requests built by the OpenAI adapters validate against OpenAI's published OpenAPI spec.

The spec (``tests/fixtures/specs/openai/openapi.json``, OpenAPI 3.1) is loaded as one JSON Schema
2020-12 resource; ``$ref``s resolve through a ``referencing`` registry. OpenAPI extras
(``discriminator``, ``nullable``, ``x-*``) are unknown keywords to the validator and ignored. The
request schemas are open (no ``additionalProperties: false``), so each validation also closes the
top level with ``unevaluatedProperties: false``: a misspelt or invented top-level field fails.
"""

from __future__ import annotations

from typing import Any

import openai_samples as samples
import pytest
import wire_fixtures as wire
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from fcbench.adapters import get
from fcbench.adapters.base import RequestOptions, ToolChoice
from fcbench.contract import Message, UserMessage

SPEC_URI = "urn:fcbench-test:openai-openapi"

CASES: dict[str, tuple[str, str]] = {
    "openai-chat": ("CreateChatCompletionRequest", "ChatCompletionRequestToolMessage"),
    "openai-responses": ("CreateResponse", "FunctionCallOutputItemParam"),
}
"""Dialect -> (request schema, tool-result schema) in ``components/schemas``."""


@pytest.fixture(scope="module")
def registry() -> Registry:
    """The whole OpenAI spec as one resource."""
    spec = wire.load_spec("openai/openapi.json")
    assert spec["openapi"].startswith("3.1")
    return Registry().with_resource(SPEC_URI, Resource.from_contents(spec, default_specification=DRAFT202012))


def validator(registry: Registry, name: str, closed: bool = True) -> Draft202012Validator:
    """A validator for ``components/schemas/<name>``, closed at the top level when asked."""
    schema: dict[str, Any] = {"$ref": f"{SPEC_URI}#/components/schemas/{name}"}
    if closed:
        schema["unevaluatedProperties"] = False
    return Draft202012Validator(schema, registry=registry)


def errors(registry: Registry, name: str, instance: Any) -> list[str]:
    """Every validation error, with its path."""
    found = validator(registry, name).iter_errors(instance)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in found]


VARIANTS: list[tuple[str, list[Message], RequestOptions, ToolChoice]] = [
    ("plain", [UserMessage(content="hi")], RequestOptions(model="m"), ToolChoice()),
    ("strict", [UserMessage(content="hi")], RequestOptions(model="m", strict=True), ToolChoice()),
    *[
        (
            f"choice-{c.mode}",
            [UserMessage(content="hi")],
            RequestOptions(model="m", parallel_tool_calls=False),
            c,
        )
        for c in samples.CHOICES
    ],
    ("history", samples.history(), RequestOptions(model="m", seed=1), ToolChoice(mode="required")),
    (
        "history-strict-stream",
        samples.history(),
        RequestOptions(model="m", strict=True, stream=True),
        ToolChoice(),
    ),
    (
        "no-temperature",
        [UserMessage(content="hi")],
        RequestOptions(model="m", temperature=None),
        ToolChoice(),
    ),
]


@pytest.mark.parametrize("dialect", sorted(CASES))
@pytest.mark.parametrize(("label", "messages", "options", "choice"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_built_requests_validate(
    registry: Registry,
    dialect: str,
    label: str,
    messages: list[Message],
    options: RequestOptions,
    choice: ToolChoice,
) -> None:
    built = get(dialect).build_request("System prompt.", messages, samples.TOOLS, choice, options)
    assert errors(registry, CASES[dialect][0], built.body) == []


@pytest.mark.parametrize("dialect", sorted(CASES))
def test_request_without_tools_validates(registry: Registry, dialect: str) -> None:
    built = get(dialect).build_request(
        None, [UserMessage(content="hi")], [], ToolChoice(), RequestOptions(model="m")
    )
    assert errors(registry, CASES[dialect][0], built.body) == []


@pytest.mark.parametrize("dialect", sorted(CASES))
def test_replayed_recorded_turn_validates(registry: Registry, dialect: str) -> None:
    """A history carrying a real parsed turn (Responses: its raw output items) stays valid."""
    api = dialect.replace("-", "_")
    adapter = get(dialect)
    for item in wire.interactions(api=api, stream=False):
        if item.status != 200:
            continue
        turn = adapter.parse_response(item.response_json)
        assert turn.assistant is not None
        history: list[Message] = [UserMessage(content="hi"), turn.assistant]
        calls = turn.assistant.calls
        history += samples.results_for(calls, ["ok"] * len(calls))
        built = adapter.build_request(None, history, samples.TOOLS, ToolChoice(), RequestOptions(model="m"))
        assert errors(registry, CASES[dialect][0], built.body) == [], item.key


@pytest.mark.parametrize("dialect", sorted(CASES))
def test_tool_result_messages_validate(registry: Registry, dialect: str) -> None:
    calls = [samples.CALL_A, samples.CALL_B]
    wire_results = get(dialect).tool_result_messages(calls, samples.results_for(calls, ["sunny", "shipped"]))
    assert len(wire_results) == 2
    for message in wire_results:
        assert errors(registry, CASES[dialect][1], message) == []


@pytest.mark.parametrize("dialect", sorted(CASES))
def test_recorded_sdk_requests_validate(registry: Registry, dialect: str) -> None:
    """Control: what the official SDKs sent passes the same closed validation."""
    for item in wire.interactions(api=dialect.replace("-", "_")):
        assert errors(registry, CASES[dialect][0], item.request_json) == [], item.key


@pytest.mark.parametrize("dialect", sorted(CASES))
@pytest.mark.parametrize(
    "breakage",
    ["unknown_field", "bad_tool_choice", "tool_without_name", "bad_message"],
)
def test_validation_catches_broken_requests(registry: Registry, dialect: str, breakage: str) -> None:
    """Control: the validation is able to fail."""
    body = (
        get(dialect)
        .build_request("s", samples.history(), samples.TOOLS, ToolChoice(), RequestOptions(model="m"))
        .body
    )
    if breakage == "unknown_field":
        body["max_tokenz"] = 5
    elif breakage == "bad_tool_choice":
        body["tool_choice"] = "sometimes"
    elif breakage == "tool_without_name":
        tool = body["tools"][0]
        (tool.get("function") or tool).pop("name")
    else:
        key = "messages" if dialect == "openai-chat" else "input"
        body[key][0] = {"role": "wizard", "content": 3}
    assert errors(registry, CASES[dialect][0], body) != []
