"""The mock's serving path: writes coalesced per event-loop step, both HTTP parsers, the router.

Over real HTTP each parser must put the same bytes on the wire, a cut stream must still arrive
cut, and the official SDKs must read the same stream events whichever parser served them.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from typing import Any

import anthropic
import httpx
import openai
import pytest

import fcbench.mock.serving
from fcbench.mock.app import create_app
from fcbench.mock.server import MockServer
from fcbench.mock.serving import (
    FLUSH_AT,
    HAS_HTTPTOOLS,
    CoalescingH11Protocol,
    CoalescingTransport,
    Parser,
    http_protocol,
)

PARSERS = ["h11", "httptools"]
"""Both parsers are tested: httptools is a dependency, h11 the fallback when it is missing."""
CALL_REPLY = json.dumps(
    {"kind": "calls", "calls": [{"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}]}
)
TOOL = {
    "name": "lookup_order",
    "description": "Find one order.",
    "parameters": {
        "type": "object",
        "properties": {"order_id": {"type": "string"}},
        "required": ["order_id"],
    },
}


class RecordingTransport(asyncio.Transport):
    """A socket transport stand-in that records each write."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False
        self.aborted = False

    def write(self, data: Any) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def get_write_buffer_size(self) -> int:
        return 0


def test_writes_of_one_step_go_out_as_one_write() -> None:
    async def scenario() -> RecordingTransport:
        inner = RecordingTransport()
        transport = CoalescingTransport(inner, asyncio.get_running_loop())
        transport.write(b"HTTP/1.1 200 OK\r\n\r\n")
        transport.write(b"")
        transport.writelines([b"5\r\nhello\r\n", b"0\r\n\r\n"])
        assert inner.writes == [] and transport.get_write_buffer_size() == 34
        await asyncio.sleep(0)
        return inner

    inner = asyncio.run(scenario())
    assert inner.writes == [b"HTTP/1.1 200 OK\r\n\r\n5\r\nhello\r\n0\r\n\r\n"]


def test_a_large_body_is_passed_on_at_once_and_close_flushes_first() -> None:
    async def scenario() -> tuple[RecordingTransport, RecordingTransport]:
        loop = asyncio.get_running_loop()
        big, cut = RecordingTransport(), RecordingTransport()
        transport = CoalescingTransport(big, loop)
        transport.write(b"head")
        transport.write(b"x" * FLUSH_AT)
        assert big.writes == [b"head" + b"x" * FLUSH_AT]  # flow control sees it without delay
        transport = CoalescingTransport(cut, loop)
        transport.write(b"half a body")
        transport.close()
        assert cut.writes == [b"half a body"] and cut.closed
        transport.write(b"late")  # the connection is closing: nothing more goes out
        await asyncio.sleep(0)
        return big, cut

    big, cut = asyncio.run(scenario())
    assert len(big.writes) == 1 and cut.writes == [b"half a body"]


def test_abort_drops_what_is_queued() -> None:
    async def scenario() -> RecordingTransport:
        inner = RecordingTransport()
        transport = CoalescingTransport(inner, asyncio.get_running_loop())
        transport.write(b"never sent")
        transport.abort()
        await asyncio.sleep(0)
        return inner

    inner = asyncio.run(scenario())
    assert inner.writes == [] and inner.aborted


def test_httptools_parses_when_installed_and_h11_is_the_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    assert HAS_HTTPTOOLS  # a dependency
    assert http_protocol() is http_protocol("httptools") is not CoalescingH11Protocol
    assert http_protocol("h11") is CoalescingH11Protocol
    monkeypatch.setattr(fcbench.mock.serving, "HAS_HTTPTOOLS", False)
    assert http_protocol() is CoalescingH11Protocol
    with pytest.raises(ValueError, match="httptools"):
        http_protocol("httptools")


def raw_exchange(port: int, request: bytes) -> bytes:
    """Send raw request bytes on a new connection; everything the server sends until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def chat_request(port: int, fault: str | None = None) -> bytes:
    body = json.dumps(
        {
            "model": "sim-scripted",
            "stream": True,
            "messages": [{"role": "user", "content": "Where is ORD-104821?"}],
            "tools": [{"type": "function", "function": TOOL}],
        }
    ).encode()
    headers = [
        "POST /v1/chat/completions HTTP/1.1",
        f"host: 127.0.0.1:{port}",
        "authorization: Bearer k",
        "content-type: application/json",
        f"content-length: {len(body)}",
        f"x-fcbench-sim-reply: {CALL_REPLY}",
        "connection: close",
    ]
    if fault:
        headers.append(f"x-fcbench-fault: {fault}")
    return "\r\n".join(headers).encode() + b"\r\n\r\n" + body


def stream_of(parser: Parser, fault: str | None = None) -> tuple[list[str], bytes]:
    """(status line, then the headers but the date and ids, sorted; body, its ``created`` times
    zeroed) of one streamed Chat answer (the parsers write the same headers in different orders)."""
    with MockServer(parser=parser) as server:
        received = raw_exchange(server.port, chat_request(server.port, fault))
    head, _, body = received.partition(b"\r\n\r\n")
    kept = [
        line.decode().lower()
        for line in head.split(b"\r\n")
        if not line.lower().startswith((b"date:", b"server:", b"x-request-id:", b"request-id:"))
    ]
    return [kept[0], *sorted(kept[1:])], re.sub(rb'"created":\d+', b'"created":0', body)


def test_both_parsers_send_the_same_bytes() -> None:
    h11_head, h11_body = stream_of("h11")
    assert "transfer-encoding: chunked" in h11_head and h11_body.endswith(b"data: [DONE]\n\n\r\n0\r\n\r\n")
    assert stream_of("httptools") == (h11_head, h11_body)


@pytest.mark.parametrize("parser", PARSERS)
def test_a_cut_stream_arrives_cut(parser: Parser) -> None:
    head, body = stream_of(parser, "stream_cut")
    assert head[0] == "http/1.1 200 ok" and b"data: " in body
    assert not body.endswith(b"0\r\n\r\n"), "the chunked body must stay unterminated"


@pytest.mark.parametrize("parser", PARSERS)
def test_sdks_read_the_same_stream_with_either_parser(parser: Parser) -> None:
    headers = {"x-fcbench-sim-reply": CALL_REPLY}
    with MockServer(parser=parser) as server:
        urls = server.base_urls()
        chat = openai.OpenAI(base_url=urls["openai-chat"], api_key="k", max_retries=0)
        chunks = list(
            chat.chat.completions.create(
                model="sim-scripted",
                messages=[{"role": "user", "content": "Where is ORD-104821?"}],
                tools=[{"type": "function", "function": TOOL}],  # type: ignore[list-item]
                stream=True,
                extra_headers=headers,
            )
        )
        messages_client = anthropic.Anthropic(base_url=urls["anthropic-messages"], api_key="k", max_retries=0)
        with messages_client.messages.stream(
            model="sim-scripted",
            max_tokens=100,
            messages=[{"role": "user", "content": "Where is ORD-104821?"}],
            tools=[
                {"name": TOOL["name"], "description": TOOL["description"], "input_schema": TOOL["parameters"]}
            ],
            extra_headers=headers,
        ) as stream:
            kinds = [event.type for event in stream]
            message = stream.get_final_message()
    calls = [c for chunk in chunks for d in [chunk.choices[0].delta] if d.tool_calls for c in d.tool_calls]
    assert calls[0].function is not None and calls[0].function.name == "lookup_order"
    arguments = "".join(c.function.arguments or "" for c in calls if c.function is not None)
    assert json.loads(arguments) == {"order_id": "ORD-104821"}
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    assert message.stop_reason == "tool_use" and message.content[-1].type == "tool_use"
    assert message.content[-1].input == {"order_id": "ORD-104821"}


def test_router_answers_what_a_starlette_router_would() -> None:
    transport = httpx.ASGITransport(app=create_app())

    async def send(method: str, path: str, **options: Any) -> httpx.Response:
        async with httpx.AsyncClient(transport=transport, base_url="http://mock") as client:
            return await client.request(method, path, **options)

    async def scenario() -> list[httpx.Response]:
        return [
            await send("GET", "/health"),
            await send("HEAD", "/health"),  # GET routes take no HEAD
            await send("POST", "/v1/chat/completions/", headers={"authorization": "Bearer k"}),
            await send("GET", "/v1/chat/completions", headers={"authorization": "Bearer k"}),
            await send("POST", "/v3/models/sim-careful:generateContent", headers={"x-goog-api-key": "k"}),
            await send("POST", "/v1beta/models/a/b:generateContent", headers={"x-goog-api-key": "k"}),
        ]

    health, head, slash, method, version, segments = asyncio.run(scenario())
    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert head.status_code == 405
    assert slash.status_code == 307 and slash.headers["location"] == "http://mock/v1/chat/completions"
    assert method.status_code == 405
    assert method.json()["error"]["message"] == "Method GET is not allowed for /v1/chat/completions"
    for missing in (version, segments):
        assert missing.status_code == 404 and missing.json()["error"]["status"] == "NOT_FOUND"
