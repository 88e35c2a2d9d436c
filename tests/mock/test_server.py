"""``MockServer``: start, serve, stop, and a clear error for a busy port."""

from __future__ import annotations

import httpx
import pytest

from fcbench.errors import ConfigError
from fcbench.mock.server import MockServer, bind_socket


def test_mock_server_lifecycle() -> None:
    with MockServer() as server:
        assert server.url.startswith("http://127.0.0.1:") and server.port > 0
        urls = server.base_urls()
        assert urls == {
            "openai-chat": server.url + "/v1",
            "openai-responses": server.url + "/v1",
            "anthropic-messages": server.url,
            "bedrock-converse": server.url,
            "gemini": server.url + "/v1beta",
            "gemini-interactions": server.url + "/v1beta",
        }
        assert httpx.get(server.url + "/health", trust_env=False).json()["status"] == "ok"
        root = server.url
    with pytest.raises(httpx.ConnectError):
        httpx.get(root + "/health", timeout=2, trust_env=False)


def test_busy_port_is_a_config_error() -> None:
    with MockServer() as server, pytest.raises(ConfigError, match="cannot listen"):
        bind_socket("127.0.0.1", server.port).close()
