"""A tiny hostile provider on 127.0.0.1: answers every POST with whatever a handler returns.

Used where the mock provider is too well-behaved: echoing the caller's API key back, sending lone
surrogates or JSON nested beyond any decoder's limit.

::

    def handler(request: SeenRequest) -> Answer:
        return Answer(401, {"error": {"message": "bad key " + request.headers["authorization"]}})

    with HostileServer(handler) as server:
        ...  # server.url is http://127.0.0.1:PORT
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

CHAT_REPLY = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello."}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
}
"""A plain OpenAI Chat text answer, for tests where what matters is the request."""


@dataclass(frozen=True)
class SeenRequest:
    """What the server received."""

    path: str
    """Path with query string."""
    headers: dict[str, str]
    """Headers, names lower-cased."""
    body: bytes


@dataclass(frozen=True)
class Answer:
    """What to send back: a status, a body (bytes sent as is, anything else as JSON) and headers."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"


Handler = Callable[[SeenRequest], Answer]


class HostileServer:
    """A threaded HTTP server on 127.0.0.1 (free port) that records requests and answers via a handler."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[SeenRequest] = []
        outer = self

        class _Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                length = int(self.headers.get("content-length") or 0)
                seen = SeenRequest(
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=self.rfile.read(length),
                )
                outer.requests.append(seen)
                answer = outer.handler(seen)
                raw = answer.body if isinstance(answer.body, bytes) else json.dumps(answer.body).encode()
                self.send_response(answer.status)
                self.send_header("content-type", answer.content_type)
                self.send_header("content-length", str(len(raw)))
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (base signature)
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """Root URL, e.g. ``http://127.0.0.1:43117``."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
