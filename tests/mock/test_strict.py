"""The strict mock: unknown fields, beta-only fields and the token-count endpoints, via the SDKs."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx
import openai
import pytest
from google import genai
from google.genai import errors, types
from spec_fields import FIELDS_FILE, message_schemas, properties, render
from wire_fixtures import interactions, load_spec

from fcbench.mock.common import MockError
from fcbench.mock.server import MockServer
from fcbench.mock.strict import CHAT_MESSAGE_EXTRAS, FIELDS, check_fields

PROMPT = "Quote standard shipping for 750 grams to US postal code 02139."
TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"country_code": {"type": "string"}, "postal_code": {"type": "string"}},
    "required": ["country_code", "postal_code"],
}


def _openai(server: MockServer) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=server.base_urls()["openai-chat"], api_key="sk-test", max_retries=0, timeout=20
    )


def _anthropic(server: MockServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        base_url=server.base_urls()["anthropic-messages"], api_key="sk-ant-test", max_retries=0, timeout=20
    )


def _genai(server: MockServer, extra_body: dict[str, Any] | None = None) -> genai.Client:
    """A client with retries off (keep it in a variable: a dropped client closes its connection)."""
    options = types.HttpOptions(
        base_url=server.url,
        api_version="v1beta",
        timeout=20_000,
        retry_options=types.HttpRetryOptions(attempts=1),
        extra_body=extra_body,
    )
    return genai.Client(api_key="test-key", http_options=options)


def _anthropic_tools() -> list[Any]:
    return [{"name": "get_shipping_quote", "description": "Quote shipping", "input_schema": TOOL_SCHEMA}]


def test_fields_file_matches_the_specs() -> None:
    assert FIELDS_FILE.read_text(encoding="utf-8") == render(), "run tests/support/spec_fields.py"


# ---------------------------------------------------------------- unknown fields
def test_openai_chat_unknown_top_level_field(inspector: MockServer) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        _openai(inspector).chat.completions.create(
            model="sim-echo", messages=[{"role": "user", "content": "hi"}], extra_body={"bogus_field": 1}
        )
    assert info.value.status_code == 400
    assert info.value.body == {
        "message": "Unrecognized request argument supplied: bogus_field",
        "type": "invalid_request_error",
        "param": "bogus_field",
        "code": "unknown_parameter",
    }


def test_openai_chat_unknown_tool_field(inspector: MockServer) -> None:
    tool: Any = {"type": "function", "function": {"name": "f", "parameters": TOOL_SCHEMA, "bogus": True}}
    with pytest.raises(openai.BadRequestError) as info:
        _openai(inspector).chat.completions.create(
            model="sim-echo", messages=[{"role": "user", "content": "hi"}], tools=[tool]
        )
    assert info.value.code == "unknown_parameter"
    assert info.value.param == "tools[0].function.bogus"
    assert info.value.message.endswith("Unknown parameter: 'tools[0].function.bogus'.")


def test_openai_responses_unknown_field(inspector: MockServer) -> None:
    client = openai.OpenAI(
        base_url=inspector.base_urls()["openai-responses"], api_key="sk-test", max_retries=0, timeout=20
    )
    with pytest.raises(openai.BadRequestError) as info:
        client.responses.create(model="sim-echo", input="hi", extra_body={"bogus_field": 1})
    assert info.value.code == "unknown_parameter" and info.value.param == "bogus_field"
    with pytest.raises(openai.BadRequestError) as nested:
        client.responses.create(
            model="sim-echo",
            input="hi",
            tools=[{"type": "function", "name": "f", "parameters": TOOL_SCHEMA, "strict": False, "x": 1}],  # type: ignore[list-item]
        )
    assert nested.value.param == "tools[0].x"


def test_anthropic_unknown_fields(inspector: MockServer) -> None:
    client = _anthropic(inspector)
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(
            model="sim-echo",
            max_tokens=10,
            messages=[{"role": "user", "content": "hi"}],
            extra_body={"betas": ["x"]},
        )
    assert info.value.body["error"] == {
        "type": "invalid_request_error",
        "message": "betas: Extra inputs are not permitted",
    }
    tools: Any = [{**_anthropic_tools()[0], "defer_loadin": True}]
    with pytest.raises(anthropic.BadRequestError) as nested:
        client.messages.create(
            model="sim-echo", max_tokens=10, messages=[{"role": "user", "content": "hi"}], tools=tools
        )
    assert (
        nested.value.body["error"]["message"] == "tools.0.custom.defer_loadin: Extra inputs are not permitted"
    )
    block: Any = {"type": "text", "text": "hi", "index": 0}
    with pytest.raises(anthropic.BadRequestError) as in_block:
        client.messages.create(
            model="sim-echo", max_tokens=10, messages=[{"role": "user", "content": [block]}]
        )
    assert (
        in_block.value.body["error"]["message"]
        == "messages.0.content.0.text.index: Extra inputs are not permitted"
    )


def test_gemini_unknown_fields(inspector: MockServer) -> None:
    strict_client = _genai(inspector, {"bogus_field": 1})
    with pytest.raises(errors.ClientError) as info:
        strict_client.models.generate_content(model="sim-echo", contents="hi")
    assert info.value.code == 400 and info.value.status == "INVALID_ARGUMENT"
    assert (
        info.value.message == 'Invalid JSON payload received. Unknown name "bogus_field": Cannot find field.'
    )
    nested_client = _genai(inspector, {"generationConfig": {"temperature": 0, "max_tokens": 5}})
    with pytest.raises(errors.ClientError) as nested:
        nested_client.models.generate_content(model="sim-echo", contents="hi")
    assert nested.value.message == (
        "Invalid JSON payload received. Unknown name \"max_tokens\" at 'generation_config': "
        "Cannot find field."
    )


def test_known_snake_case_gemini_fields_pass(inspector: MockServer) -> None:
    body = {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "generation_config": {"max_output_tokens": 20, "thinking_config": {"thinking_budget": 0}},
        "system_instruction": {"parts": [{"text": "be brief"}]},
    }
    answer = httpx.post(
        f"{inspector.url}/v1beta/models/sim-echo:generateContent",
        json=body,
        headers={"x-goog-api-key": "k"},
        timeout=20,
        trust_env=False,
    )
    assert answer.status_code == 200, answer.text


# ---------------------------------------------------------------- chat messages
CHAT_ROLES = ("developer", "system", "user", "assistant", "tool", "function")


def _chat_error(body: dict[str, Any]) -> MockError | None:
    try:
        check_fields("openai-chat", body)
    except MockError as exc:
        return exc
    return None


def test_chat_message_sets_are_the_spec_union_branches() -> None:
    schemas = load_spec("openai/openapi.json")["components"]["schemas"]
    labels = message_schemas(schemas)
    assert sorted(labels) == sorted(f"message.{role}" for role in CHAT_ROLES)
    chat = FIELDS["openai-chat"]
    for label, name in labels.items():
        assert chat[label] == frozenset(properties(schemas, schemas[name])), label
        assert {"role", "content"} <= chat[label]
    assert "tool_call_id" in chat["message.tool"] and "tool_call_id" not in chat["message.user"]
    # An exception is only an exception when the spec leaves the field out.
    for label, names in CHAT_MESSAGE_EXTRAS.items():
        assert label in labels and names and not names & chat[label]


def test_every_recorded_chat_request_passes_the_message_check() -> None:
    recorded = [item for item in interactions("openai_chat") if item.request_body]
    rejected = {
        item.key: str(_chat_error(item.request_json)) for item in recorded if _chat_error(item.request_json)
    }
    assert rejected == {}
    checked = [m for item in recorded for m in item.request_json["messages"]]
    assert len(recorded) >= 10 and {m["role"] for m in checked} >= {"system", "user", "assistant", "tool"}


def test_message_exceptions_are_exactly_what_recorded_traffic_shows() -> None:
    beyond: dict[str, set[str]] = {}
    for item in interactions("openai_chat"):
        if item.status != 200 or not item.request_body:
            continue
        for message in item.request_json["messages"]:
            label = f"message.{message['role']}"
            extra = set(message) - FIELDS["openai-chat"][label]
            if extra:
                beyond.setdefault(label, set()).update(extra)
    assert beyond == {label: set(names) for label, names in CHAT_MESSAGE_EXTRAS.items()}


@pytest.mark.parametrize("role", CHAT_ROLES)
def test_chat_message_keys_are_checked_per_role(role: str) -> None:
    allowed = FIELDS["openai-chat"][f"message.{role}"] | CHAT_MESSAGE_EXTRAS.get(
        f"message.{role}", frozenset()
    )
    full = {key: None for key in allowed} | {"role": role}
    assert _chat_error({"model": "m", "messages": [full]}) is None
    error = _chat_error(
        {"model": "m", "messages": [{"role": "user", "content": "hi"}, {**full, "colour": "red"}]}
    )
    assert error is not None and error.kind == "invalid_request"
    assert (error.param, error.code) == ("messages[1].colour", "unknown_parameter")
    assert error.message == "Unknown parameter: 'messages[1].colour'."


def test_chat_message_key_of_another_role_is_unknown() -> None:
    error = _chat_error({"model": "m", "messages": [{"role": "user", "content": "hi", "tool_call_id": "c"}]})
    assert error is not None and error.param == "messages[0].tool_call_id"
    annotated = {"role": "user", "content": "hi", "annotations": []}
    assert _chat_error({"model": "m", "messages": [annotated]}) is not None
    assert _chat_error({"model": "m", "messages": [{**annotated, "role": "assistant"}]}) is None


def test_openai_chat_unknown_message_field(inspector: MockServer) -> None:
    client = _openai(inspector)
    message: Any = {"role": "user", "content": "hi", "colour": "red"}
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="sim-echo", messages=[message])
    assert info.value.status_code == 400
    assert info.value.body == {
        "message": "Unknown parameter: 'messages[0].colour'.",
        "type": "invalid_request_error",
        "param": "messages[0].colour",
        "code": "unknown_parameter",
    }
    # A reply's message sent back as it came (``annotations`` included) is accepted.
    first = client.chat.completions.create(model="sim-echo", messages=[{"role": "user", "content": "hi"}])
    echoed: Any = first.choices[0].message.model_dump(exclude_none=True)
    assert "annotations" in echoed
    again = client.chat.completions.create(
        model="sim-echo",
        messages=[{"role": "user", "content": "hi"}, echoed, {"role": "user", "content": "ok"}],
    )
    assert again.choices[0].finish_reason == "stop"


# ---------------------------------------------------------------- beta fields
def test_beta_field_needs_the_beta_header(inspector: MockServer) -> None:
    client = _anthropic(inspector)
    management = {"edits": [{"type": "clear_tool_uses_20250919"}]}
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(
            model="sim-echo",
            max_tokens=10,
            messages=[{"role": "user", "content": "hi"}],
            extra_body={"context_management": management},
        )
    assert info.value.body["error"]["message"] == "context_management: Extra inputs are not permitted"
    reply = client.beta.messages.create(
        model="sim-echo",
        max_tokens=10,
        messages=[{"role": "user", "content": "hi"}],
        context_management=management,  # type: ignore[arg-type]
        betas=["context-management-2025-06-27"],
    )
    assert reply.stop_reason == "end_turn"


def test_beta_tool_type_needs_the_beta_header(inspector: MockServer) -> None:
    client = _anthropic(inspector)
    computer: Any = {
        "type": "computer_20250124",
        "name": "computer",
        "display_width_px": 800,
        "display_height_px": 600,
    }
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(
            model="sim-echo", max_tokens=10, messages=[{"role": "user", "content": "hi"}], tools=[computer]
        )
    assert info.value.body["error"]["message"].startswith(
        "tools.0: Input tag 'computer_20250124' found using 'type' does not match any of the "
        "expected tags: 'custom'"
    )
    reply = client.beta.messages.create(
        model="sim-echo",
        max_tokens=10,
        messages=[{"role": "user", "content": "hi"}],
        tools=[computer],
        betas=["computer-use-2025-01-24"],
    )
    assert reply.stop_reason == "end_turn"


def test_thread_field_is_rejected_as_unsupported(inspector: MockServer) -> None:
    with pytest.raises(anthropic.BadRequestError) as info:
        _anthropic(inspector).beta.messages.create(
            model="sim-echo",
            max_tokens=10,
            messages=[{"role": "user", "content": "hi"}],
            betas=["message-threads-2026-08-12"],
            extra_body={"thread": {"type": "create"}},
        )
    details = info.value.body["error"]["details"]
    assert details == {"error_code": "thread_unsupported_request", "unsupported": ["thread"]}


# ---------------------------------------------------------------- token counts
def test_anthropic_count_tokens_matches_usage(inspector: MockServer) -> None:
    client = _anthropic(inspector)
    messages: Any = [{"role": "user", "content": PROMPT}]
    counted = client.messages.count_tokens(
        model="sim-echo", messages=messages, tools=_anthropic_tools(), system="be brief"
    )
    again = client.messages.count_tokens(
        model="sim-echo", messages=messages, tools=_anthropic_tools(), system="be brief"
    )
    reply = client.messages.create(
        model="sim-echo", max_tokens=50, messages=messages, tools=_anthropic_tools(), system="be brief"
    )
    assert counted.input_tokens == again.input_tokens == reply.usage.input_tokens > 0
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.count_tokens(model="sim-echo", messages=messages, extra_body={"max_tokens": 5})
    assert info.value.body["error"]["message"] == "max_tokens: Extra inputs are not permitted"
    with pytest.raises(anthropic.NotFoundError):
        client.messages.count_tokens(model="nope", messages=messages)


def test_anthropic_count_tokens_needs_a_key(inspector: MockServer) -> None:
    answer = httpx.post(
        f"{inspector.url}/v1/messages/count_tokens",
        content=json.dumps({"model": "sim-echo", "messages": [{"role": "user", "content": "hi"}]}),
        headers={"anthropic-version": "2023-06-01"},
        timeout=20,
        trust_env=False,
    )
    assert answer.status_code == 401
    assert answer.json()["error"]["type"] == "authentication_error"


def test_gemini_count_tokens_matches_usage(inspector: MockServer) -> None:
    client = _genai(inspector)
    counted = client.models.count_tokens(model="sim-echo", contents=PROMPT)
    reply = client.models.generate_content(model="sim-echo", contents=PROMPT)
    assert reply.usage_metadata is not None
    assert counted.total_tokens == reply.usage_metadata.prompt_token_count
    assert counted.total_tokens and counted.total_tokens > 0
    strict_client = _genai(inspector, {"bogus_field": 1})
    with pytest.raises(errors.ClientError) as info:
        strict_client.models.count_tokens(model="sim-echo", contents=PROMPT)
    assert info.value.code == 400


def test_gemini_count_tokens_of_a_whole_request(inspector: MockServer) -> None:
    request = {
        "contents": [{"role": "user", "parts": [{"text": PROMPT}]}],
        "systemInstruction": {"parts": [{"text": "be brief"}]},
    }
    headers = {"x-goog-api-key": "k"}
    counted = httpx.post(
        f"{inspector.url}/v1beta/models/sim-echo:countTokens",
        json={"generateContentRequest": {"model": "models/sim-echo", **request}},
        headers=headers,
        timeout=20,
        trust_env=False,
    )
    reply = httpx.post(
        f"{inspector.url}/v1beta/models/sim-echo:generateContent",
        json=request,
        headers=headers,
        timeout=20,
        trust_env=False,
    )
    assert counted.status_code == 200, counted.text
    assert counted.json()["totalTokens"] == reply.json()["usageMetadata"]["promptTokenCount"]
