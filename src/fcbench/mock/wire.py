"""HTTP responses of the mock, including the broken ones faults ask for.

A dropped connection is produced by sending part of the body and returning without finishing
the response: the server then closes the socket, so the client sees an incomplete body (a short
read against ``content-length``, or an unterminated chunked stream), exactly like a connection
lost in the middle of a real response.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from fcbench.mock.common import compact_json

JSON_TYPE = "application/json"
SSE_TYPE = "text/event-stream; charset=utf-8"


class ChunksResponse(Response):
    """Sends its status, headers and the given body chunks (chunked transfer encoding unless a
    length is declared); with ``complete=False`` it then abandons the response."""

    def __init__(
        self,
        chunks: Sequence[bytes],
        *,
        complete: bool,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
        media_type: str = JSON_TYPE,
        declared_length: int | None = None,
    ) -> None:
        super().__init__(
            content=None, status_code=status_code, headers=dict(headers or {}), media_type=media_type
        )
        self._chunks = list(chunks)
        self._complete = complete
        self.raw_headers = [(k, v) for k, v in self.raw_headers if k != b"content-length"]
        if declared_length is not None:
            self.raw_headers.append((b"content-length", str(declared_length).encode()))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Start the response and send the chunks; end the body only when ``complete``."""
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        for chunk in self._chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        if self._complete:
            await send({"type": "http.response.body", "body": b"", "more_body": False})


def dumps(body: Any) -> bytes:
    """Compact JSON bytes, non-ASCII kept as is."""
    return compact_json(body)


def json_response(status: int, body: Any, headers: Mapping[str, str]) -> Response:
    """A complete JSON response."""
    return Response(dumps(body), status_code=status, headers=dict(headers), media_type=JSON_TYPE)


def malformed_json_response(body: Any, headers: Mapping[str, str]) -> Response:
    """A 200 whose JSON body stops half way (declared as JSON, complete at the HTTP level)."""
    data = dumps(body)
    return Response(
        data[: max(1, len(data) // 2)], status_code=200, headers=dict(headers), media_type=JSON_TYPE
    )


def cut_json_response(body: Any, headers: Mapping[str, str]) -> Response:
    """A 200 that announces the full length but loses the connection half way."""
    data = dumps(body)
    return ChunksResponse(
        [data[: len(data) // 2]], complete=False, headers=headers, declared_length=len(data)
    )


def stream_response(
    frames: Sequence[bytes], headers: Mapping[str, str], *, cut: bool = False, media_type: str = SSE_TYPE
) -> Response:
    """An event stream of ``media_type``; with ``cut`` the connection drops after the given frames.

    Every event is ready before the response starts, so a complete stream goes out as one body
    chunk: the same bytes as one chunk per event, without paying the server's per-chunk cost
    (an ASGI message and a chunk header each) for every event. Nor does it wait for the client
    to go away while it sends, as a streaming response that produces its chunks over time must.
    """
    if cut:
        return ChunksResponse(frames, complete=False, headers=headers, media_type=media_type)
    return ChunksResponse([b"".join(frames)], complete=True, headers=headers, media_type=media_type)


def json_array_response(items: Sequence[Any], headers: Mapping[str, str]) -> Response:
    """Gemini's non-SSE stream form: one JSON array of response chunks."""
    return JSONResponse(list(items), headers=dict(headers))


def huge_json_response(mebibytes: int, headers: Mapping[str, str]) -> StreamingResponse:
    """A 200 whose JSON body is ``mebibytes`` MiB of padding, produced a MiB at a time."""

    async def body() -> Any:
        yield b'{"padding": "'
        block = b"x" * 1_048_576
        for _ in range(mebibytes):
            yield block
        yield b'"}'

    return StreamingResponse(body(), status_code=200, headers=dict(headers), media_type=JSON_TYPE)


def inflating_bomb(mebibytes: int = 1024) -> bytes:
    """gzip of ``mebibytes`` MiB of one JSON string, built without holding it (about 1 KiB per MiB)."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [deflate.compress(b'{"a": "')]
    block = b"0" * 1_048_576
    parts += [deflate.compress(block) for _ in range(mebibytes)]
    parts += [deflate.compress(b'"}'), deflate.flush()]
    return b"".join(parts)


def gzip_bomb_response(bomb: bytes, headers: Mapping[str, str]) -> Response:
    """A 200 whose small gzip body inflates to a huge JSON document."""
    return Response(
        bomb, status_code=200, headers={**headers, "Content-Encoding": "gzip"}, media_type=JSON_TYPE
    )
