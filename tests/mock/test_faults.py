"""Faults: deterministic per request by header, seeded-random per server by spec."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from fcbench.errors import ConfigError
from fcbench.mock.faults import FaultSpec, parse_fault_header

ROUTES: dict[str, tuple[str, dict[str, str], dict[str, Any]]] = {
    "openai-chat": (
        "/v1/chat/completions",
        {"authorization": "Bearer k"},
        {"model": "sim-scripted", "messages": [{"role": "user", "content": "x"}]},
    ),
    "openai-responses": (
        "/v1/responses",
        {"authorization": "Bearer k"},
        {"model": "sim-scripted", "input": "x"},
    ),
    "anthropic-messages": (
        "/v1/messages",
        {"x-api-key": "k", "anthropic-version": "2023-06-01"},
        {"model": "sim-scripted", "max_tokens": 9, "messages": [{"role": "user", "content": "x"}]},
    ),
    "gemini": (
        "/v1beta/models/sim-scripted:generateContent",
        {"x-goog-api-key": "k"},
        {"contents": [{"parts": [{"text": "x"}]}]},
    ),
}
CALL_REPLY = json.dumps(
    {"kind": "calls", "calls": [{"name": "get_weather", "arguments_json": '{"city": "Paris, France"}'}]}
)


def send(
    root: str,
    dialect: str,
    fault: str | None = None,
    *,
    stream: bool = False,
    timeout: float = 20,
    extra: dict[str, str] | None = None,
) -> httpx.Response:
    path, headers, body = ROUTES[dialect]
    headers = {**headers, **(extra or {})}
    if fault is not None:
        headers["x-fcbench-fault"] = fault
    body = dict(body)
    if stream and dialect == "gemini":
        path = path.replace(":generateContent", ":streamGenerateContent") + "?alt=sse"
    elif stream:
        body["stream"] = True
    return httpx.post(root + path, json=body, headers=headers, timeout=timeout, trust_env=False)


@pytest.mark.parametrize(
    ("dialect", "fault", "status"),
    [
        ("openai-chat", "server_error", 500),
        ("openai-responses", "overload", 503),
        ("anthropic-messages", "overload", 529),
        ("anthropic-messages", "server_error", 500),
        ("gemini", "overload", 503),
        ("gemini", "server_error", 500),
        ("openai-chat", "auth_error", 401),
        ("anthropic-messages", "auth_error", 401),
        ("gemini", "auth_error", 400),
    ],
)
def test_error_faults(mock_server: str, dialect: str, fault: str, status: int) -> None:
    response = send(mock_server, dialect, fault)
    assert response.status_code == status
    body = response.json()
    assert "error" in body
    if dialect == "anthropic-messages" and status == 529:
        assert body["error"]["type"] == "overloaded_error"


@pytest.mark.parametrize("dialect", list(ROUTES))
def test_rate_limit_carries_the_dialects_retry_hint(mock_server: str, dialect: str) -> None:
    response = send(mock_server, dialect, "rate_limit=12")
    assert response.status_code == 429
    if dialect == "gemini":
        details = response.json()["error"]["details"]
        assert any(d.get("retryDelay") == "12s" for d in details)
        assert response.json()["error"]["status"] == "RESOURCE_EXHAUSTED"
    else:
        assert response.headers["retry-after"] == "12"


def test_error_fault_precedence_and_unknown_names() -> None:
    plan = parse_fault_header("split_args, server_error ,rate_limit=2")
    assert plan.error_kind() == ("rate_limit", "rate_limit")
    assert plan.has("split_args") and plan.value("rate_limit", 1) == 2
    with pytest.raises(ValueError, match="unknown fault 'boom'"):
        parse_fault_header("boom")
    with pytest.raises(ValueError, match="not a number"):
        parse_fault_header("timeout=soon")


def test_timeout_hangs_past_the_client_timeout(mock_server: str) -> None:
    with pytest.raises(httpx.ReadTimeout):
        send(mock_server, "openai-chat", "timeout", timeout=0.3)
    assert send(mock_server, "openai-chat").status_code == 200


def test_timeout_with_short_hang_answers_gateway_timeout(mock_server: str) -> None:
    response = send(mock_server, "anthropic-messages", "timeout=0.1")
    assert response.status_code == 504
    assert response.json()["error"]["type"] == "timeout_error"


def test_slow_first_byte(mock_server: str) -> None:
    with pytest.raises(httpx.ReadTimeout):
        send(mock_server, "gemini", "slow_first_byte=1500", timeout=0.2)
    assert send(mock_server, "gemini", "slow_first_byte=50", timeout=20).status_code == 200


@pytest.mark.parametrize("dialect", list(ROUTES))
def test_stream_cut_drops_the_connection(mock_server: str, dialect: str) -> None:
    path, headers, body = ROUTES[dialect]
    headers = {**headers, "x-fcbench-fault": "stream_cut", "x-fcbench-sim-reply": CALL_REPLY}
    body = dict(body)
    if dialect == "gemini":
        path = path.replace(":generateContent", ":streamGenerateContent") + "?alt=sse"
    else:
        body["stream"] = True
    received = b""
    with (
        pytest.raises(httpx.RemoteProtocolError),
        httpx.stream(
            "POST", mock_server + path, json=body, headers=headers, timeout=20, trust_env=False
        ) as response,
    ):
        assert response.status_code == 200
        for chunk in response.iter_bytes():
            received += chunk
    assert received.startswith(b"data: ") or received.startswith(b"event: ")
    assert (
        b"[DONE]" not in received
        and b"message_stop" not in received
        and b"response.completed" not in received
    )


def test_non_stream_cut_and_malformed_json(mock_server: str) -> None:
    with pytest.raises(httpx.RemoteProtocolError):
        send(mock_server, "openai-chat", "stream_cut")
    broken = send(mock_server, "openai-responses", "malformed_json")
    assert broken.status_code == 200 and broken.headers["content-type"].startswith("application/json")
    with pytest.raises(json.JSONDecodeError):
        json.loads(broken.text)


def test_malformed_json_in_a_stream(mock_server: str) -> None:
    text = send(mock_server, "anthropic-messages", "malformed_json", stream=True).text
    bad = 0
    for record in text.split("\n\n"):
        for line in record.splitlines():
            if line.startswith("data: "):
                try:
                    json.loads(line[6:])
                except json.JSONDecodeError:
                    bad += 1
    assert bad == 1


def test_split_args_makes_tiny_fragments(mock_server: str) -> None:
    text = send(
        mock_server, "openai-chat", "split_args", stream=True, extra={"x-fcbench-sim-reply": CALL_REPLY}
    ).text
    fragments = []
    for line in text.splitlines():
        if line.startswith("data: {"):
            for call in (
                json.loads(line[6:])["choices"][0]["delta"].get("tool_calls", [])
                if json.loads(line[6:])["choices"]
                else []
            ):
                if call["function"].get("arguments"):
                    fragments.append(call["function"]["arguments"])
    assert "".join(fragments) == '{"city": "Paris, France"}'
    assert len(fragments) > 10 and max(map(len, fragments)) <= 3


def test_stream_error_event_in_each_dialect(mock_server: str) -> None:
    chat = send(mock_server, "openai-chat", "stream_error", stream=True).text
    assert '"error":{' in chat and "[DONE]" not in chat
    anthropic = send(mock_server, "anthropic-messages", "stream_error", stream=True).text
    assert "event: error\ndata: " in anthropic and "overloaded_error" in anthropic
    responses = send(mock_server, "openai-responses", "stream_error", stream=True).text
    assert "event: error\n" in responses and "response.completed" not in responses
    gemini = send(mock_server, "gemini", "stream_error", stream=True).text
    assert '"code":503' in gemini


# ------------------------------------------------------------------ spec strings
def test_spec_parsing() -> None:
    spec = FaultSpec.parse("rate_limit:0.1, server_error:0.05,seed=7,retry_after=3,slow_ms=20,hang_s=2")
    assert spec.chances == (("rate_limit", 0.1), ("server_error", 0.05))
    assert (spec.seed, spec.retry_after, spec.slow_ms, spec.hang_s) == (7, 3, 20, 2.0)
    assert FaultSpec.parse(None) == FaultSpec() == FaultSpec.parse("  ")
    assert FaultSpec.parse("timeout").chances == (("timeout", 1.0),)
    for bad in ("meteor:0.1", "rate_limit:2", "rate_limit:often", "colour=3"):
        with pytest.raises(ConfigError):
            FaultSpec.parse(bad)


def test_spec_draws_are_seeded_and_follow_the_rates() -> None:
    spec = FaultSpec.parse("rate_limit:0.3,seed=11")
    plans = [spec.draw(f"digest-{n}", 0) for n in range(400)]
    assert plans == [spec.draw(f"digest-{n}", 0) for n in range(400)]
    hits = sum(plan.has("rate_limit") for plan in plans)
    assert 80 <= hits <= 160
    other_seed = FaultSpec.parse("rate_limit:0.3,seed=12")
    assert [p.has("rate_limit") for p in plans] != [
        other_seed.draw(f"digest-{n}", 0).has("rate_limit") for n in range(400)
    ]
    retries = [spec.draw("same", occurrence).has("rate_limit") for occurrence in range(50)]
    assert any(retries) and not all(retries), "a retried request must be able to succeed"


def test_server_spec_is_reproducible_across_servers(mock_server_factory: Any) -> None:
    def statuses() -> list[int]:
        server = mock_server_factory(faults="server_error:0.5,seed=3")
        out = [send(server.url, "openai-chat").status_code for _ in range(8)]
        out += [send(server.url, "gemini").status_code for _ in range(4)]
        server.stop()
        return out

    first = statuses()
    assert set(first) == {200, 500}
    assert statuses() == first


def test_header_overrides_spec_and_latency_applies(mock_server_factory: Any) -> None:
    server = mock_server_factory(faults="rate_limit:1.0", latency_ms=800)
    assert send(server.url, "openai-chat").status_code == 429
    assert send(server.url, "openai-chat", "split_args").status_code == 200
    with pytest.raises(httpx.ReadTimeout):
        send(server.url, "openai-chat", "split_args", timeout=0.1)
