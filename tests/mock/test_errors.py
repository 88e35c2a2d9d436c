"""Bad requests get each dialect's real error shape; tool-result ids are checked like the providers do."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

ROUTES: dict[str, tuple[str, dict[str, str]]] = {
    "openai-chat": ("/v1/chat/completions", {"authorization": "Bearer sk-test"}),
    "openai-responses": ("/v1/responses", {"authorization": "Bearer sk-test"}),
    "anthropic-messages": ("/v1/messages", {"x-api-key": "sk-ant", "anthropic-version": "2023-06-01"}),
    "gemini": ("/v1beta/models/sim-scripted:generateContent", {"x-goog-api-key": "g-test"}),
}
DIALECTS = list(ROUTES)


def post(
    root: str,
    dialect: str,
    body: Any,
    headers: dict[str, str] | None = None,
    raw: bytes | None = None,
    path: str | None = None,
) -> httpx.Response:
    route, auth = ROUTES[dialect]
    content = raw if raw is not None else json.dumps(body).encode()
    merged = {**auth, "content-type": "application/json", **(headers or {})}
    return httpx.post(root + (path or route), content=content, headers=merged, timeout=20, trust_env=False)


def assert_error(dialect: str, response: httpx.Response, status: int) -> dict[str, Any]:
    """The response is ``status`` with the dialect's error body; returns the inner error object."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    if dialect.startswith("openai"):
        assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}
        return body["error"]
    if dialect == "anthropic-messages":
        assert body["type"] == "error" and set(body) == {"type", "error", "request_id"}
        assert set(body["error"]) == {"type", "message"}
        return body["error"]
    assert set(body) == {"error"} and body["error"]["code"] == status
    assert isinstance(body["error"]["message"], str) and body["error"]["status"].isupper()
    return body["error"]


def minimal(dialect: str, model: str = "sim-scripted") -> dict[str, Any]:
    """A valid request body of the dialect."""
    if dialect == "openai-chat":
        return {"model": model, "messages": [{"role": "user", "content": "hi"}]}
    if dialect == "openai-responses":
        return {"model": model, "input": "hi"}
    if dialect == "anthropic-messages":
        return {"model": model, "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    return {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_valid_minimal_request_succeeds(mock_server: str, dialect: str) -> None:
    assert post(mock_server, dialect, minimal(dialect)).status_code == 200


@pytest.mark.parametrize("dialect", DIALECTS)
def test_invalid_json_body(mock_server: str, dialect: str) -> None:
    error = assert_error(dialect, post(mock_server, dialect, None, raw=b'{"model": '), 400)
    assert "json" in error["message"].lower()


@pytest.mark.parametrize("dialect", DIALECTS)
def test_body_that_is_not_an_object(mock_server: str, dialect: str) -> None:
    assert_error(dialect, post(mock_server, dialect, ["not", "an", "object"]), 400)


@pytest.mark.parametrize(
    ("dialect", "fragment"),
    [
        ("openai-chat", "you must provide a model parameter"),
        ("openai-responses", "Missing required parameter: 'model'."),
        ("anthropic-messages", "model: Field required"),
        ("gemini", "contents is not specified"),
    ],
)
def test_missing_required_field(mock_server: str, dialect: str, fragment: str) -> None:
    body = minimal(dialect)
    body.pop("model", None)
    body.pop("contents", None)
    assert fragment in assert_error(dialect, post(mock_server, dialect, body), 400)["message"]


def test_anthropic_requires_max_tokens_and_version(mock_server: str) -> None:
    body = minimal("anthropic-messages")
    del body["max_tokens"]
    error = assert_error("anthropic-messages", post(mock_server, "anthropic-messages", body), 400)
    assert error["message"] == "max_tokens: Field required"
    response = httpx.post(
        mock_server + "/v1/messages",
        json=minimal("anthropic-messages"),
        headers={"x-api-key": "k"},
        trust_env=False,
    )
    assert "anthropic-version" in assert_error("anthropic-messages", response, 400)["message"]
    system_role = {**minimal("anthropic-messages"), "messages": [{"role": "system", "content": "x"}]}
    error = assert_error("anthropic-messages", post(mock_server, "anthropic-messages", system_role), 400)
    assert error["message"].startswith('Unexpected role "system"')


@pytest.mark.parametrize(
    ("dialect", "status"),
    [("openai-chat", 401), ("openai-responses", 401), ("anthropic-messages", 401), ("gemini", 400)],
)
def test_missing_key(mock_server: str, dialect: str, status: int) -> None:
    route, auth = ROUTES[dialect]
    headers = {k: v for k, v in auth.items() if k in ("anthropic-version",)}
    response = httpx.post(mock_server + route, json=minimal(dialect), headers=headers, trust_env=False)
    error = assert_error(dialect, response, status)
    if dialect == "gemini":
        assert error["status"] == "INVALID_ARGUMENT"
        assert error["details"][0]["reason"] == "API_KEY_INVALID"
    elif dialect == "anthropic-messages":
        assert error["type"] == "authentication_error"
    else:
        assert error["type"] == "invalid_request_error"


def test_keys_accepted_in_each_place(mock_server: str) -> None:
    gemini = "/v1beta/models/sim-scripted:generateContent"
    by_query = httpx.post(mock_server + gemini + "?key=abc", json=minimal("gemini"), trust_env=False)
    assert by_query.status_code == 200
    bearer = httpx.post(
        mock_server + "/v1/messages?beta=true",
        json=minimal("anthropic-messages"),
        headers={"authorization": "Bearer k", "anthropic-version": "2026-10-21"},
        trust_env=False,
    )
    assert bearer.status_code == 200
    v1 = httpx.post(
        mock_server + gemini.replace("v1beta", "v1"),
        json=minimal("gemini"),
        headers={"x-goog-api-key": "k"},
        trust_env=False,
    )
    assert v1.status_code == 200


@pytest.mark.parametrize(
    ("dialect", "status"),
    [("openai-chat", 404), ("openai-responses", 400), ("anthropic-messages", 404), ("gemini", 404)],
)
def test_unknown_model(mock_server: str, dialect: str, status: int) -> None:
    path = "/v1beta/models/nope-1:generateContent" if dialect == "gemini" else None
    response = post(mock_server, dialect, minimal(dialect, "nope-1"), path=path)
    error = assert_error(dialect, response, status)
    assert "nope-1" in error["message"]
    if dialect.startswith("openai"):
        assert error["code"] == "model_not_found"


@pytest.mark.parametrize(
    ("path", "headers", "dialect"),
    [
        ("/v1/embeddings", {"authorization": "Bearer k"}, "openai-chat"),
        ("/v1/messages/batches", {"x-api-key": "k", "anthropic-version": "2023-06-01"}, "anthropic-messages"),
        ("/v1beta/models/sim-scripted:embedContent", {"x-goog-api-key": "k"}, "gemini"),
        ("/v1beta/tunedModels", {"x-goog-api-key": "k"}, "gemini"),
    ],
)
def test_unknown_route(mock_server: str, path: str, headers: dict[str, str], dialect: str) -> None:
    response = httpx.post(mock_server + path, json={}, headers=headers, trust_env=False)
    assert_error(dialect, response, 404)


def test_wrong_method(mock_server: str) -> None:
    response = httpx.get(
        mock_server + "/v1/chat/completions", headers={"authorization": "Bearer k"}, trust_env=False
    )
    assert_error("openai-chat", response, 405)


def test_bad_scripted_reply_and_fault_header(mock_server: str) -> None:
    bad_reply = post(mock_server, "openai-chat", minimal("openai-chat"), {"x-fcbench-sim-reply": "{nope"})
    assert "X-Fcbench-Sim-Reply" in assert_error("openai-chat", bad_reply, 400)["message"]
    bad_fault = post(mock_server, "gemini", minimal("gemini"), {"x-fcbench-fault": "meteor"})
    assert "meteor" in assert_error("gemini", bad_fault, 400)["message"]


# ------------------------------------------------------------------ tool-result ids
def _chat(history_id: str, result_id: str) -> dict[str, Any]:
    call = {"id": history_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}
    return {
        "model": "sim-scripted",
        "messages": [
            {"role": "user", "content": "x"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": result_id, "content": "ok"},
        ],
    }


def test_chat_tool_ids(mock_server: str) -> None:
    assert post(mock_server, "openai-chat", _chat("call_a", "call_a")).status_code == 200
    error = assert_error("openai-chat", post(mock_server, "openai-chat", _chat("call_a", "call_b")), 400)
    assert "must be a response to a preceeding message with 'tool_calls'" in error["message"]
    assert error["param"] == "messages.[2].role"
    unanswered = _chat("call_a", "call_a")
    unanswered["messages"] = unanswered["messages"][:2] + [{"role": "user", "content": "and?"}]
    error = assert_error("openai-chat", post(mock_server, "openai-chat", unanswered), 400)
    assert error["message"].endswith("did not have response messages: call_a")


def test_responses_tool_ids(mock_server: str) -> None:
    call = {"type": "function_call", "call_id": "call_a", "name": "f", "arguments": "{}"}

    def body(output_id: str | None) -> dict[str, Any]:
        items: list[Any] = [{"role": "user", "content": "x"}, call]
        if output_id:
            items.append({"type": "function_call_output", "call_id": output_id, "output": "ok"})
        return {"model": "sim-scripted", "input": items}

    assert post(mock_server, "openai-responses", body("call_a")).status_code == 200
    error = assert_error("openai-responses", post(mock_server, "openai-responses", body("call_b")), 400)
    assert error["message"] == "No tool call found for function call output with call_id call_b."
    assert error["param"] == "input"
    error = assert_error("openai-responses", post(mock_server, "openai-responses", body(None)), 400)
    assert error["message"] == "No tool output found for function call call_a."
    unknown = {"model": "sim-scripted", "previous_response_id": "resp_missing", "input": "x"}
    assert assert_error("openai-responses", post(mock_server, "openai-responses", unknown), 400)["param"] == (
        "previous_response_id"
    )


def _anthropic(use_id: str, result_id: str | None) -> dict[str, Any]:
    messages: list[Any] = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": use_id, "name": "f", "input": {}}]},
    ]
    if result_id is not None:
        messages.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": result_id, "content": "ok"}]}
        )
    else:
        messages.append({"role": "user", "content": "next"})
    return {"model": "sim-scripted", "max_tokens": 10, "messages": messages}


def test_anthropic_tool_ids(mock_server: str) -> None:
    assert post(mock_server, "anthropic-messages", _anthropic("toolu_a", "toolu_a")).status_code == 200
    error = assert_error(
        "anthropic-messages", post(mock_server, "anthropic-messages", _anthropic("toolu_a", "toolu_b")), 400
    )
    assert error["message"].startswith(
        "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_b"
    )
    error = assert_error(
        "anthropic-messages", post(mock_server, "anthropic-messages", _anthropic("toolu_a", None)), 400
    )
    assert error["message"].startswith("messages.1: `tool_use` ids were found without `tool_result` blocks")
    assert error["type"] == "invalid_request_error"


def _gemini(call_ids: list[str | None], responses: list[tuple[str | None, str]]) -> dict[str, Any]:
    calls = [{"functionCall": {"name": "f", "args": {}, **({"id": i} if i else {})}} for i in call_ids]
    answers = [
        {"functionResponse": {"name": n, "response": {"output": "ok"}, **({"id": i} if i else {})}}
        for i, n in responses
    ]
    return {
        "contents": [
            {"role": "user", "parts": [{"text": "x"}]},
            {"role": "model", "parts": calls},
            {"role": "user", "parts": answers},
        ]
    }


def test_gemini_tool_ids(mock_server: str) -> None:
    assert post(mock_server, "gemini", _gemini(["fc_1"], [("fc_1", "f")])).status_code == 200
    assert post(mock_server, "gemini", _gemini([None], [(None, "f")])).status_code == 200
    error = assert_error("gemini", post(mock_server, "gemini", _gemini(["fc_1"], [("fc_2", "f")])), 400)
    assert "fc_2" in error["message"] and error["status"] == "INVALID_ARGUMENT"
    error = assert_error(
        "gemini", post(mock_server, "gemini", _gemini(["fc_1", "fc_2"], [("fc_1", "f")])), 400
    )
    assert "number of function response parts is equal" in error["message"]
    orphan = {"contents": [{"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]}]}
    error = assert_error("gemini", post(mock_server, "gemini", orphan), 400)
    assert "comes immediately after a function call turn" in error["message"]
