"""Run the mock provider: in a background thread (:class:`MockServer`) or in the foreground.

::

    with MockServer(latency_ms=0, faults="rate_limit:0.1,seed=7") as server:
        client = openai.OpenAI(base_url=server.base_urls()["openai-chat"], api_key="test")
"""

from __future__ import annotations

import functools
import logging
import socket
import threading
import time
from collections.abc import Mapping
from types import TracebackType
from typing import Any

import httpx
import uvicorn
from uvicorn.supervisors import Multiprocess

from fcbench.errors import ConfigError
from fcbench.mock.app import create_app
from fcbench.mock.faults import FaultSpec
from fcbench.mock.serving import Parser, http_protocol
from fcbench.mock.sim.base import SimModel

BASE_PATHS: Mapping[str, str] = {
    "openai-chat": "/v1",
    "openai-responses": "/v1",
    "anthropic-messages": "",
    "bedrock-converse": "",
    "gemini": "/v1beta",
    "gemini-interactions": "/v1beta",
}
"""Dialect -> path to append to the server root to get that dialect's base URL."""

_CUT_NOTICE = "ASGI callable returned without completing response."


class QuietCutFilter(logging.Filter):
    """Drops the server's notice about responses the ``stream_cut`` fault abandons on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Keep every record except the abandoned-response notice."""
        return record.getMessage() != _CUT_NOTICE


def log_config(level: str = "warning") -> dict[str, Any]:
    """Uvicorn logging: server messages to stderr at ``level``, no access log, cut notices hidden."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"quiet_cut": {"()": QuietCutFilter}},
        "formatters": {"plain": {"format": "%(levelname)s: %(message)s"}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "plain",
                "filters": ["quiet_cut"],
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {
            "uvicorn": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
            "uvicorn.error": {"level": level.upper()},
            "uvicorn.access": {"handlers": [], "level": "CRITICAL", "propagate": False},
        },
    }


def base_urls(root: str) -> dict[str, str]:
    """Dialect -> base URL for a server at ``root`` (``http://host:port``)."""
    return {dialect: root + path for dialect, path in BASE_PATHS.items()}


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0 picks a free one); raises ConfigError."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", key="port") from None
    sock.listen(2048)
    return sock


def build_server(
    *,
    latency_ms: int = 0,
    faults: str | FaultSpec | None = None,
    models: Mapping[str, SimModel] | None = None,
    log_level: str = "warning",
    parser: Parser = "auto",
) -> uvicorn.Server:
    """A uvicorn server for the mock app; run it with ``server.run(sockets=[bind_socket(...)])``.

    ``parser`` chooses the HTTP parser (:data:`~fcbench.mock.serving.Parser`)."""
    app = create_app(models=models, latency_ms=latency_ms, faults=faults)
    return uvicorn.Server(_config(app, log_level, parser))


def serve_workers(
    sock: socket.socket,
    workers: int,
    *,
    latency_ms: int = 0,
    faults: FaultSpec | None = None,
    log_level: str = "warning",
    parser: Parser = "auto",
) -> None:
    """Serve the mock from ``workers`` processes sharing the listening socket ``sock``, until
    interrupted (SIGINT or SIGTERM stops every worker).

    Each worker builds its own app, so what an app remembers is per worker: the count of identical
    requests (which seeds fault draws and ``sim-flaky``'s variation) and the Responses conversations
    that ``previous_response_id`` continues. For reproducible runs use one worker; several are for
    load tests that need more than one core.
    """
    factory = functools.partial(create_app, latency_ms=latency_ms, faults=faults)
    config = _config(factory, log_level, parser, factory=True, workers=workers)
    Multiprocess(config, sockets=[sock]).run()


def _config(app: Any, log_level: str, parser: Parser, **options: Any) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        http=http_protocol(parser),
        access_log=False,
        log_config=log_config(log_level),
        lifespan="off",
        timeout_graceful_shutdown=2,
        **options,
    )


class MockServer:
    """The mock provider served from a background thread on 127.0.0.1 (a free port by default)."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        latency_ms: int = 0,
        faults: str | FaultSpec | None = None,
        models: Mapping[str, SimModel] | None = None,
        parser: Parser = "auto",
    ) -> None:
        self.host = host
        self.port = port
        self._options: dict[str, Any] = {
            "latency_ms": latency_ms,
            "faults": faults,
            "models": models,
            "parser": parser,
        }
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Root URL, e.g. ``http://127.0.0.1:43117``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def base_urls(self) -> dict[str, str]:
        """Dialect -> base URL to give a client of that dialect."""
        return base_urls(self.url)

    def start(self, timeout: float = 15.0) -> MockServer:
        """Start serving and wait until ``/health`` answers."""
        sock = bind_socket(self.host, self.port)
        self.port = sock.getsockname()[1]
        server = build_server(**self._options)
        self._server = server
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, daemon=True, name=f"fcbench-mock-{self.port}"
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self._thread.is_alive():
                raise RuntimeError("mock server stopped during startup")
            try:
                if httpx.get(self.url + "/health", timeout=1.0, trust_env=False).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"mock server did not answer /health within {timeout} s")

    def stop(self) -> None:
        """Stop serving and wait for the thread to end."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
            if self._thread.is_alive() and self._server is not None:
                self._server.force_exit = True
                self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> MockServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
