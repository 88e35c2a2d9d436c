"""Model selection, the scripted model's exact replies, the request counter, listings and health."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from fcbench.mock.app import create_app
from fcbench.mock.engine import MockEngine
from fcbench.mock.scripted import ScriptedModel
from fcbench.mock.server import MockServer

CHAT = "/v1/chat/completions"
AUTH = {"authorization": "Bearer k"}
ANTHROPIC = {"x-api-key": "k", "anthropic-version": "2023-06-01"}


def chat(root: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(
        root + CHAT, json=body, headers={**AUTH, **(headers or {})}, timeout=20, trust_env=False
    )


class Counter:
    """Test model answering with the occurrence number it was given."""

    name = "counter"

    def respond(self, request: Any) -> Any:
        return ScriptedModel().reply_from_header(
            json.dumps({"kind": "text", "text": str(request.occurrence)})
        )


def test_occurrence_counts_identical_bodies_per_app(mock_server_factory: Any) -> None:
    first = mock_server_factory(models={"counter": Counter()})
    body = {"model": "counter", "messages": [{"role": "user", "content": "count me"}]}

    def ask(server: MockServer, payload: dict[str, Any]) -> str:
        return chat(server.url, payload).json()["choices"][0]["message"]["content"]

    assert [ask(first, body) for _ in range(3)] == ["0", "1", "2"]
    assert ask(first, {**body, "messages": [{"role": "user", "content": "other"}]}) == "0"
    second = mock_server_factory(models={"counter": Counter()})
    assert ask(second, body) == "0", "the counter belongs to one app instance"
    assert ask(first, body) == "3"


def test_models_override_replaces_the_registry(mock_server_factory: Any) -> None:
    class Fixed:
        name = "fixed"

        def respond(self, request: Any) -> Any:
            return ScriptedModel().reply_from_header(json.dumps({"kind": "text", "text": request.system}))

    server = mock_server_factory(models={"fixed": Fixed()})
    body = {
        "model": "fixed",
        "messages": [{"role": "system", "content": "sys text"}, {"role": "user", "content": "x"}],
    }
    assert chat(server.url, body).json()["choices"][0]["message"]["content"] == "sys text"
    listing = httpx.get(server.url + "/v1/models", headers=AUTH, trust_env=False).json()
    assert [item["id"] for item in listing["data"]] == ["sim-scripted", "fixed"]
    health = httpx.get(server.url + "/health", trust_env=False).json()
    assert health["status"] == "ok" and health["models"] == ["sim-scripted", "fixed"]
    assert chat(server.url, {**body, "model": "not-there"}).status_code == 404


def test_listings_follow_the_dialect(mock_server: str) -> None:
    anthropic = httpx.get(mock_server + "/v1/models", headers=ANTHROPIC, trust_env=False).json()
    assert anthropic["data"][0]["type"] == "model" and anthropic["has_more"] is False
    gemini = httpx.get(
        mock_server + "/v1beta/models", headers={"x-goog-api-key": "k"}, trust_env=False
    ).json()
    assert "models/sim-scripted" in [m["name"] for m in gemini["models"]]
    assert httpx.get(mock_server + "/v1/models", trust_env=False).status_code == 401


def test_engine_uses_registry_when_no_override() -> None:
    engine = MockEngine()
    assert engine.model_names()[0] == "sim-scripted"
    assert engine.get_model("sim-scripted") is not None
    assert engine.get_model("definitely-not-a-model") is None
    assert create_app().engine.model_names()[0] == "sim-scripted"


def _script(reply: dict[str, Any]) -> dict[str, str]:
    return {"x-fcbench-sim-reply": json.dumps(reply)}


BROKEN = '{"city": "Par'


def test_broken_arguments_reach_the_client_verbatim(mock_server: str) -> None:
    header = _script({"kind": "calls", "calls": [{"name": "get_weather", "arguments_json": BROKEN}]})
    body = {"model": "sim-scripted", "messages": [{"role": "user", "content": "x"}]}
    call = chat(mock_server, body, header).json()["choices"][0]["message"]["tool_calls"][0]
    assert call["function"]["arguments"] == BROKEN
    anthropic_body = {
        "model": "sim-scripted",
        "max_tokens": 9,
        "messages": [{"role": "user", "content": "x"}],
    }
    block = httpx.post(
        mock_server + "/v1/messages", json=anthropic_body, headers={**ANTHROPIC, **header}, trust_env=False
    ).json()["content"][0]
    assert block["type"] == "tool_use" and block["input"] == BROKEN
    stream = httpx.post(
        mock_server + "/v1/messages",
        json={**anthropic_body, "stream": True},
        headers={**ANTHROPIC, **header},
        trust_env=False,
    ).text
    partial = "".join(
        json.loads(line[6:])["delta"].get("partial_json", "")
        for line in stream.splitlines()
        if line.startswith("data: ") and "content_block_delta" in line
    )
    assert partial == BROKEN


@pytest.mark.parametrize(
    ("path", "headers", "body", "check"),
    [
        (
            CHAT,
            AUTH,
            {"messages": [{"role": "user", "content": "x"}]},
            lambda r: (
                r["choices"][0]["message"]["refusal"] == "No."
                and r["choices"][0]["message"]["content"] is None
            ),
        ),
        (
            "/v1/responses",
            AUTH,
            {"input": "x"},
            lambda r: r["output"][0]["content"][0] == {"type": "refusal", "refusal": "No."},
        ),
        (
            "/v1/messages",
            ANTHROPIC,
            {"max_tokens": 9, "messages": [{"role": "user", "content": "x"}]},
            lambda r: r["stop_reason"] == "refusal",
        ),
        (
            "/v1beta/models/sim-scripted:generateContent",
            {"x-goog-api-key": "k"},
            {"contents": [{"parts": [{"text": "x"}]}]},
            lambda r: r["candidates"][0]["finishReason"] == "SAFETY" and "content" not in r["candidates"][0],
        ),
    ],
)
def test_refusal_in_each_dialect(mock_server: str, path: str, headers: dict, body: dict, check: Any) -> None:
    if "contents" not in body:
        body = {**body, "model": "sim-scripted"}
    response = httpx.post(
        mock_server + path,
        json=body,
        headers={**headers, **_script({"kind": "refusal", "text": "No."})},
        trust_env=False,
    )
    assert response.status_code == 200 and check(response.json())


def test_scripted_without_header_and_with_ids(mock_server: str) -> None:
    body = {"model": "sim-scripted", "messages": [{"role": "user", "content": "x"}]}
    assert chat(mock_server, body).json()["choices"][0]["message"]["content"] == "ok"
    header = _script(
        {"kind": "calls", "calls": [{"name": "f", "arguments": {"a": [1, 2]}, "id": "call_fixed"}]}
    )
    call = chat(mock_server, body, header).json()["choices"][0]["message"]["tool_calls"][0]
    assert call["id"] == "call_fixed" and json.loads(call["function"]["arguments"]) == {"a": [1, 2]}
    for bad in (
        {"kind": "song"},
        {"kind": "calls", "calls": []},
        {"kind": "calls", "calls": [{"name": 3}]},
        {"kind": "text", "text": 5},
    ):
        assert chat(mock_server, body, _script(bad)).status_code == 400


def _echo(root: str, path: str, headers: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
    response = httpx.post(root + path, json=body, headers=headers, timeout=20, trust_env=False)
    assert response.status_code == 200, response.text
    data = response.json()
    if "choices" in data:
        text = data["choices"][0]["message"]["content"]
    elif "output" in data:
        text = data["output"][0]["content"][0]["text"]
    elif "content" in data:
        text = data["content"][0]["text"]
    else:
        text = data["candidates"][0]["content"]["parts"][0]["text"]
    return json.loads(text)


TOOL = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def test_responses_request_decoding(inspector: MockServer) -> None:
    body = {
        "model": "sim-echo",
        "input": [{"role": "developer", "content": "be brief"}, {"role": "user", "content": "hello"}],
        "instructions": "top",
        "tool_choice": {
            "type": "allowed_tools",
            "mode": "required",
            "tools": [{"type": "function", "name": "g"}],
        },
        "parallel_tool_calls": False,
        "tools": [{"type": "function", "name": n, "parameters": TOOL} for n in ("f", "g")],
    }
    seen = _echo(inspector.url, "/v1/responses", AUTH, body)
    assert seen["system"] == "top\n\nbe brief" and seen["turns"] == ["user"]
    assert seen["tool_choice"] == "required" and list(seen["tools"]) == ["g"] and seen["parallel"] is False


def test_chat_request_decoding(inspector: MockServer) -> None:
    body = {
        "model": "sim-echo",
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": "sys"}]},
            {"role": "user", "content": "q"},
        ],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": TOOL}}],
        "tool_choice": {"type": "function", "function": {"name": "f"}},
    }
    seen = _echo(inspector.url, CHAT, AUTH, body)
    assert seen["system"] == "sys" and seen["tool_choice"] == "tool:f" and seen["tools"] == {"f": TOOL}
    response = chat(inspector.url, {**body, "tools": []})
    assert response.status_code == 400 and response.json()["error"]["code"] == "empty_array"


def test_anthropic_request_decoding(inspector: MockServer) -> None:
    body = {
        "model": "sim-echo",
        "max_tokens": 20,
        "system": [{"type": "text", "text": "sys"}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}],
        "tools": [{"name": "f", "input_schema": TOOL}, {"type": "web_search_20250305", "name": "web_search"}],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
    }
    seen = _echo(inspector.url, "/v1/messages", ANTHROPIC, body)
    assert seen["system"] == "sys" and seen["tool_choice"] == "required" and seen["parallel"] is False
    assert list(seen["tools"]) == ["f"]


def test_gemini_request_decoding_and_json_array_stream(inspector: MockServer) -> None:
    typed = {
        "type": "OBJECT",
        "properties": {"city": {"type": "STRING", "nullable": True}},
        "required": ["city"],
    }
    body = {
        "contents": [{"role": "user", "parts": [{"text": "q"}]}],
        "system_instruction": {"parts": [{"text": "sys"}]},
        "tools": [{"function_declarations": [{"name": "f", "parameters": typed}, {"name": "g"}]}],
        "tool_config": {"function_calling_config": {"mode": "ANY", "allowed_function_names": ["f"]}},
    }
    headers = {"x-goog-api-key": "k"}
    seen = _echo(inspector.url, "/v1beta/models/sim-echo:generateContent", headers, body)
    assert seen["system"] == "sys" and seen["tool_choice"] == "tool:f" and list(seen["tools"]) == ["f"]
    assert seen["tools"]["f"] == {
        "type": "object",
        "properties": {"city": {"type": ["string", "null"]}},
        "required": ["city"],
    }
    chunks = httpx.post(
        inspector.url + "/v1beta/models/sim-echo:streamGenerateContent",
        json=body,
        headers=headers,
        trust_env=False,
    ).json()
    assert isinstance(chunks, list) and chunks[-1]["candidates"][0]["finishReason"] == "STOP"
