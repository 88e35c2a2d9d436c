"""Project-wide fixtures: the mock provider on 127.0.0.1.

- ``mock_server`` (session): root URL of a shared mock server, e.g. ``http://127.0.0.1:43117``.
  Base URL per dialect: ``/v1`` (OpenAI Chat and Responses), root (Anthropic), ``/v1beta`` (Gemini).
- ``mock_server_factory`` (function): ``start(latency_ms=0, faults=None, models=None) -> MockServer``
  for servers with their own options; every server started is stopped after the test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from fcbench.mock.server import MockServer


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
