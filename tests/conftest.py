"""Project-wide fixtures: the mock provider on 127.0.0.1, and a guard on every socket.

- The socket guard (installed for the whole session): connecting a socket of this process to
  anything but loopback (127.0.0.0/8, ::1) or a Unix socket raises :class:`NonLocalConnection`,
  so no test can reach a real provider or depend on the network.

- ``mock_server`` (session): root URL of a shared mock server, e.g. ``http://127.0.0.1:43117``.
  Base URL per dialect: ``/v1`` (OpenAI Chat and Responses), root (Anthropic), ``/v1beta`` (Gemini).
- ``mock_server_factory`` (function): ``start(latency_ms=0, faults=None, models=None) -> MockServer``
  for servers with their own options; every server started is stopped after the test.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from fcbench.mock.server import MockServer


class NonLocalConnection(OSError):
    """A test tried to open a connection to something other than 127.0.0.1 / ::1."""


def is_loopback(address: Any) -> bool:
    """Whether a socket address names the loopback interface (or is a Unix socket path)."""
    if isinstance(address, str | bytes):
        return True  # AF_UNIX path
    host = address[0] if isinstance(address, tuple) and address else address
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _guarded_connect(self: socket.socket, address: Any) -> None:
    if not is_loopback(address):
        raise NonLocalConnection(f"tests may only connect to 127.0.0.1, not {address!r}")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    if not is_loopback(address):
        raise NonLocalConnection(f"tests may only connect to 127.0.0.1, not {address!r}")
    return _real_connect_ex(self, address)


@pytest.fixture(scope="session", autouse=True)
def loopback_only() -> Iterator[None]:
    """Refuse every connection to a non-loopback address for the whole session."""
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
    try:
        yield
    finally:
        socket.socket.connect = _real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = _real_connect_ex  # type: ignore[method-assign]


@pytest.fixture(scope="session")
def mock_server() -> Iterator[str]:
    """Root URL of a mock provider shared by the whole test session."""
    with MockServer() as server:
        yield server.url


@pytest.fixture
def mock_server_factory() -> Iterator[Callable[..., MockServer]]:
    """Start mock servers with options; they are stopped when the test ends."""
    started: list[MockServer] = []

    def start(
        *, latency_ms: int = 0, faults: str | None = None, models: Mapping[str, Any] | None = None
    ) -> MockServer:
        server = MockServer(latency_ms=latency_ms, faults=faults, models=models).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
