"""The transport goes through the proxy the environment names, and past it for ``NO_PROXY`` hosts.

The proxy is a real HTTP server on 127.0.0.1 that records the request it is asked to forward (an
absolute URL, as a client sends to a forward proxy) and answers it itself.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest
from chat_exchange import chat_exchange
from robust_server import Answer, HostileServer

from fcbench.contract import TextOutcome
from fcbench.transport import env_proxy

MESSAGE = {"role": "assistant", "content": "hello"}
REPLY = {"choices": [{"index": 0, "message": MESSAGE, "finish_reason": "stop"}]}
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def no_proxy_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


def send(base_url: str) -> Any:
    return chat_exchange(base_url, "sk-proxy-test")


def unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_request_goes_through_the_proxy_the_environment_names(monkeypatch: pytest.MonkeyPatch) -> None:
    with HostileServer(lambda request: Answer(200, REPLY)) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        exchange = send("http://api.provider.test/v1")
    assert [seen.path for seen in proxy.requests] == ["http://api.provider.test/v1/chat/completions"]
    assert proxy.requests[0].headers["authorization"] == "Bearer sk-proxy-test"
    assert isinstance(exchange.turn.outcome, TextOutcome) and exchange.turn.outcome.text == "hello"


def test_no_proxy_sends_straight_to_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{unused_port()}")  # nothing listens there
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    with HostileServer(lambda request: Answer(200, REPLY)) as provider:
        exchange = send(provider.url + "/v1")
    assert [seen.path for seen in provider.requests] == ["/v1/chat/completions"]
    assert isinstance(exchange.turn.outcome, TextOutcome)


def test_which_proxy_serves_which_url(monkeypatch: pytest.MonkeyPatch) -> None:
    assert env_proxy("https://api.openai.com/v1") is None
    monkeypatch.setenv("https_proxy", "http://proxy.corp:3128")
    monkeypatch.setenv("ALL_PROXY", "http://all.corp:8080")
    monkeypatch.setenv("no_proxy", ".internal.corp")
    assert env_proxy("https://api.openai.com/v1") == "http://proxy.corp:3128"
    assert env_proxy("http://api.openai.com/v1") == "http://all.corp:8080"
    assert env_proxy("https://llm.internal.corp/v1") is None
