"""The session's socket guard refuses non-loopback connections and lets loopback through."""

from __future__ import annotations

import socket

import httpx
import pytest


def test_a_connection_to_a_public_address_is_refused_at_once() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock, pytest.raises(OSError, match="127.0.0.1"):
        sock.connect(("192.0.2.1", 443))


def test_httpx_to_a_remote_host_is_refused() -> None:
    with pytest.raises(httpx.ConnectError, match="127.0.0.1"):
        httpx.get("http://192.0.2.1:80/", timeout=5)


def test_loopback_still_works(mock_server: str) -> None:
    response = httpx.get(f"{mock_server}/v1/models", headers={"Authorization": "Bearer sim-key"}, timeout=5)
    assert response.status_code == 200
