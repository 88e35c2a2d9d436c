"""Real-traffic cassettes: HTTP exchanges with a real server, recorded once and replayed in tests.

A cassette is one JSON file: ``meta`` (what was recorded, with what), ``config`` (the run config
that made the traffic, its base URL left as ``{server}``) and ``interactions``, each a request
(method, path, JSON body) and the response (status, content type, body text: an event stream is
kept as the text the server sent). No request header is kept, so no key can be in a cassette.

:class:`Recorder` is a proxy in front of the real server that writes every exchange down;
:class:`Replayer` answers each request with the recorded response to the same request (the same
method, path and canonical JSON body; repeated identical requests get their responses in the
recorded order), and counts requests it has no recording for. Both are HTTP servers on 127.0.0.1
(:class:`robust_server.HostileServer`), so fcbench talks to them exactly as to the real thing.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from pathlib import Path
from typing import Any

import httpx
from robust_server import Answer, HostileServer, SeenRequest

CASSETTE_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "cassettes"
"""Where the cassettes live (``tests/fixtures/cassettes``), beside the script that records them."""

SERVER_PLACEHOLDER = "{server}"
"""Stands for the recording or replaying server's root URL in a cassette's config."""

MISS_STATUS = 418
"""Status the replayer answers a request it has no recording for (the test then fails on the count)."""


def request_key(method: str, path: str, body: bytes) -> str:
    """The identity of a request: method, path and its JSON body with keys sorted."""
    try:
        canonical = json.dumps(json.loads(body or b"null"), sort_keys=True, ensure_ascii=False)
    except ValueError:
        canonical = body.decode("utf-8", errors="replace")
    return f"{method} {path} {canonical}"


class Recorder:
    """A proxy to ``upstream`` that records every exchange; ``with`` it, then :meth:`interactions`."""

    def __init__(self, upstream: str, timeout_s: float = 600.0) -> None:
        self.upstream = upstream.rstrip("/")
        self._client = httpx.Client(timeout=timeout_s, trust_env=False)
        self._lock = threading.Lock()
        self._interactions: list[dict[str, Any]] = []
        self._server = HostileServer(self._forward)

    @property
    def url(self) -> str:
        """The proxy's root URL."""
        return self._server.url

    def _forward(self, seen: SeenRequest) -> Answer:
        reply = self._client.post(
            self.upstream + seen.path, content=seen.body, headers={"content-type": "application/json"}
        )
        content_type = reply.headers.get("content-type", "application/json")
        with self._lock:
            self._interactions.append(
                {
                    "request": {"method": "POST", "path": seen.path, "body": json.loads(seen.body)},
                    "response": {
                        "status": reply.status_code,
                        "content_type": content_type,
                        "body": reply.text,
                    },
                }
            )
        return Answer(reply.status_code, reply.content, content_type=content_type)

    def interactions(self) -> list[dict[str, Any]]:
        """The exchanges so far, in the order they completed."""
        with self._lock:
            return list(self._interactions)

    def __enter__(self) -> Recorder:
        self._server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.__exit__(None, None, None)
        self._client.close()


class Replayer:
    """Answers each request with its recorded response; ``misses`` lists requests never recorded."""

    def __init__(self, interactions: list[dict[str, Any]]) -> None:
        self._queues: dict[str, deque[dict[str, Any]]] = defaultdict(deque)
        for item in interactions:
            request = item["request"]
            body = json.dumps(request["body"]).encode()
            self._queues[request_key(request["method"], request["path"], body)].append(item["response"])
        self.total = len(interactions)
        self.served = 0
        self.misses: list[str] = []
        self._lock = threading.Lock()
        self._server = HostileServer(self._answer)

    @property
    def url(self) -> str:
        """The replaying server's root URL."""
        return self._server.url

    def _answer(self, seen: SeenRequest) -> Answer:
        key = request_key("POST", seen.path, seen.body)
        with self._lock:
            queue = self._queues.get(key)
            if not queue:
                self.misses.append(key[:300])
                message = (
                    "no recorded interaction for this request; re-record: tests/fixtures/cassettes/record.py"
                )
                return Answer(MISS_STATUS, {"error": {"message": message}})
            response = queue.popleft()
            self.served += 1
        return Answer(response["status"], response["body"].encode(), content_type=response["content_type"])

    def __enter__(self) -> Replayer:
        self._server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.__exit__(None, None, None)


def load_cassette(name: str) -> dict[str, Any]:
    """The cassette ``tests/fixtures/cassettes/NAME.json``."""
    return json.loads((CASSETTE_DIR / f"{name}.json").read_text(encoding="utf-8"))


def config_for(cassette: dict[str, Any], root: str) -> dict[str, Any]:
    """The cassette's run config with its server placeholder replaced by ``root``."""
    text = json.dumps(cassette["config"]).replace(SERVER_PLACEHOLDER, root)
    return json.loads(text)
