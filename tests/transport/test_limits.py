"""A hostile provider cannot hold an observation past its deadline or fill the memory.

A raw-socket server on 127.0.0.1 misbehaves the ways a red team found: dripping a body one byte
at a time, streaming forever, a gzip bomb, a huge body. Every one ends as a provider error
(coverage loss) within the deadline, with bounded memory and a truncated raw capture.
"""

from __future__ import annotations

import asyncio
import gzip
import socket
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import cache

import pytest

from fcbench import adapters
from fcbench.adapters.base import RequestOptions, ToolChoice
from fcbench.contract import ProviderErrorOutcome, UserMessage
from fcbench.endpoints import Endpoint
from fcbench.grading import grade
from fcbench.suite.loader import load_suite
from fcbench.transport import Exchange, Limits, RetryPolicy, Transport

Behaviour = Callable[[socket.socket], None]
OK_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"


@contextmanager
def hostile(behaviour: Behaviour) -> Iterator[str]:
    """A server answering every connection with ``behaviour`` (after reading the request)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    def answer(conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            lines = head.split(b"\r\n")
            length = next(
                (int(h.split(b":")[1]) for h in lines if h.lower().startswith(b"content-length")), 0
            )
            while len(body) < length:
                body += conn.recv(65536)
            with suppress(OSError):  # the client hung up: that is the point
                behaviour(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join(2)
        listener.close()


def drip(conn: socket.socket) -> None:
    conn.sendall(OK_HEAD + b"Content-Length: 100000\r\n\r\n")
    for _ in range(400):
        conn.sendall(b" ")
        time.sleep(0.1)


def endless_stream(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
    event = (
        b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x"}}]}'
    )
    event += b"\n\n"
    for _ in range(100000):
        conn.sendall(event)
        time.sleep(0.01)


@cache
def bomb() -> bytes:
    """64 MiB of JSON in about 64 KiB of gzip."""
    return gzip.compress(b'{"a":"' + b"0" * (64 * 1024 * 1024) + b'"}', compresslevel=9)


def gzip_bomb(conn: socket.socket) -> None:
    body = bomb()
    conn.sendall(OK_HEAD + b"Content-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(body) + body)


def huge_body(conn: socket.socket) -> None:
    size = 40 * 1024 * 1024
    conn.sendall(OK_HEAD + b"Content-Length: %d\r\n\r\n" % size)
    chunk = b"[" + b"1," * 32767 + b"1]"
    sent = 0
    while sent < size:
        conn.sendall(chunk[: size - sent])
        sent += len(chunk)


def exchange(
    url: str, *, stream: bool, timeout_s: float, limits: Limits | None = None
) -> tuple[Exchange, float]:
    adapter = adapters.get("openai-chat")
    suite = load_suite("core")
    built = adapter.build_request(
        "",
        [UserMessage(content="hi")],
        suite.tool_sets["core"],
        ToolChoice(),
        RequestOptions(model="m", stream=stream),
    )
    endpoint = Endpoint(name="hostile", dialect="openai-chat", base_url=url, key_required=False)

    async def go() -> Exchange:
        transport = Transport(
            timeout_s=timeout_s, retry=RetryPolicy(max_retries=3, backoff_s=0.01), limits=limits
        )
        try:
            return await transport.exchange(endpoint, adapter, built, api_key=None, offered_tools=[])
        finally:
            await transport.aclose()

    started = time.monotonic()
    result = asyncio.run(go())
    return result, time.monotonic() - started


def error_code(result: Exchange) -> str:
    outcome = result.turn.outcome
    assert isinstance(outcome, ProviderErrorOutcome), outcome
    suite = load_suite("core")
    case = suite.case("types-01")
    assert grade(case, outcome, suite.tools_for(case)).decision == "not_scored"
    return outcome.code


@pytest.mark.parametrize(("behaviour", "stream"), [(drip, False), (endless_stream, True)])
def test_a_dripping_or_endless_answer_is_cut_at_the_deadline(behaviour: Behaviour, stream: bool) -> None:
    with hostile(behaviour) as url:
        result, took = exchange(url, stream=stream, timeout_s=1.0)
    assert error_code(result) == "timeout"
    assert result.raw["response"]["deadline"] in ("request", "observation")
    # every attempt is cut at 1 s and retries stop once the observation ran 3 x the timeout: an answer
    # that is never cut runs into the test's own timeout; this bound only names a hang early
    assert took < 60, took
    assert result.attempts <= 3


@pytest.mark.parametrize("behaviour", [gzip_bomb, huge_body])
def test_a_bomb_or_a_huge_body_is_too_large_and_memory_stays_bounded(behaviour: Behaviour) -> None:
    limits = Limits(max_response_bytes=2 * 1024 * 1024, raw_keep_bytes=4096)
    bomb()  # built before measuring: the server's own bytes are not the client's memory
    with hostile(behaviour) as url:
        tracemalloc.start()
        result, _ = exchange(url, stream=False, timeout_s=20.0, limits=limits)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert error_code(result) == "too_large"
    assert result.attempts == 1  # never retried
    assert peak < 24 * 1024 * 1024, peak
    response = result.raw["response"]
    assert "kept the first" in response["truncated"] and len(response["body"]) <= 4096


def test_a_stream_with_too_many_events_is_too_large() -> None:
    with hostile(endless_stream) as url:
        result, took = exchange(url, stream=True, timeout_s=30.0, limits=Limits(max_stream_events=50))
    assert error_code(result) == "too_large" and took < 60, took  # a hang guard, not a speed test
    assert len(result.raw["response"]["events"]) <= 50
