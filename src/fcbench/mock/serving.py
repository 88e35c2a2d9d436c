"""How the mock's HTTP server puts responses on the wire: one socket write per response.

Uvicorn writes the status line and headers, each body chunk and the end of a chunked body with
one ``transport.write`` each, and every write of a connected socket is a system call that, on
loopback, also runs the receiving side's TCP work and wakes the client. Those writes were the
largest single cost of a mock request. :class:`CoalescingTransport` gathers what the protocol
writes while one event-loop step runs and hands it to the socket as one write at the end of that
step: the same bytes in the same order, sent a few microseconds later.

A body larger than :data:`FLUSH_AT` is passed on as it is written, so the socket's flow control
(pausing a writer whose client reads slowly) still holds for the ``huge_body`` fault, and a
response that stops half way (``stream_cut``) is flushed before the server closes the connection.

The HTTP parser is httptools when it is installed (it parses a request in C) and h11, which
uvicorn always has, otherwise: :func:`http_protocol` picks one and adds the coalescing.
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Iterable
from typing import Any, Literal

from uvicorn.protocols.http.h11_impl import H11Protocol

FLUSH_AT = 65_536
"""Bytes gathered after which a write goes to the socket at once rather than at the end of the step."""

Parser = Literal["auto", "httptools", "h11"]
"""Which HTTP/1.1 parser serves the mock; ``auto`` is httptools when installed, else h11."""


class CoalescingTransport(asyncio.Transport):
    """A socket transport whose writes within one event-loop step go out as one write."""

    def __init__(self, inner: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._inner = inner
        self._loop = loop
        self._pending: list[bytes] = []
        self._pending_size = 0
        self._flush_scheduled = False

    # ---------------------------------------------------------------- writing
    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Queue ``data``; it reaches the socket at the end of this loop step (or now, past FLUSH_AT)."""
        if not data:
            return
        self._pending.append(bytes(data))
        self._pending_size += len(data)
        if self._pending_size >= FLUSH_AT:
            self.flush()
        elif not self._flush_scheduled:
            self._flush_scheduled = True
            self._loop.call_soon(self._scheduled_flush)

    def writelines(self, list_of_data: Iterable[bytes | bytearray | memoryview]) -> None:
        """Queue each item as :meth:`write` does."""
        for data in list_of_data:
            self.write(data)

    def flush(self) -> None:
        """Hand everything queued to the socket now, as one write (dropped if it is closing)."""
        if not self._pending:
            return
        data = self._pending[0] if len(self._pending) == 1 else b"".join(self._pending)
        self._pending.clear()
        self._pending_size = 0
        if not self._inner.is_closing():
            self._inner.write(data)

    def _scheduled_flush(self) -> None:
        self._flush_scheduled = False
        self.flush()

    def get_write_buffer_size(self) -> int:
        """Bytes queued here plus those the socket transport holds."""
        return self._pending_size + self._inner.get_write_buffer_size()

    def get_write_buffer_limits(self) -> tuple[int, int]:
        """The socket transport's flow-control limits."""
        return self._inner.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        """Set the socket transport's flow-control limits."""
        self._inner.set_write_buffer_limits(high, low)

    def write_eof(self) -> None:
        """Flush, then close the write side."""
        self.flush()
        self._inner.write_eof()

    def can_write_eof(self) -> bool:
        """Whether the socket transport can close its write side."""
        return self._inner.can_write_eof()

    # ---------------------------------------------------------------- closing
    def close(self) -> None:
        """Flush, then close (the socket transport sends what it holds before closing)."""
        self.flush()
        self._inner.close()

    def abort(self) -> None:
        """Drop what is queued and close at once."""
        self._pending.clear()
        self._pending_size = 0
        self._inner.abort()

    def is_closing(self) -> bool:
        """Whether the socket transport is closing or closed."""
        return self._inner.is_closing()

    # ---------------------------------------------------------------- the rest, as the socket's
    def get_extra_info(self, name: str, default: Any = None) -> Any:
        """The socket transport's extra information (``peername``, ``sockname``, ``socket``...)."""
        return self._inner.get_extra_info(name, default)

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        """Give the socket transport's events to ``protocol``."""
        self._inner.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        """The protocol receiving the socket transport's events."""
        return self._inner.get_protocol()

    def is_reading(self) -> bool:
        """Whether the socket transport is receiving."""
        return self._inner.is_reading()

    def pause_reading(self) -> None:
        """Stop receiving until :meth:`resume_reading`."""
        self._inner.pause_reading()

    def resume_reading(self) -> None:
        """Receive again."""
        self._inner.resume_reading()


def coalesced(transport: asyncio.Transport) -> CoalescingTransport:
    """``transport`` (a connection's socket transport) with its writes coalesced."""
    return CoalescingTransport(transport, asyncio.get_running_loop())


class CoalescingH11Protocol(H11Protocol):
    """Uvicorn's h11 protocol, each connection's writes coalesced per event-loop step."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Serve the connection through a :class:`CoalescingTransport`."""
        super().connection_made(coalesced(transport))


HAS_HTTPTOOLS = importlib.util.find_spec("httptools") is not None
"""Whether the httptools parser is installed."""

if HAS_HTTPTOOLS:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class CoalescingHttpToolsProtocol(HttpToolsProtocol):
        """Uvicorn's httptools protocol, each connection's writes coalesced per event-loop step."""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            """Serve the connection through a :class:`CoalescingTransport`."""
            super().connection_made(coalesced(transport))


def http_protocol(parser: Parser = "auto") -> type[asyncio.Protocol]:
    """The protocol class to give ``uvicorn.Config(http=...)``: uvicorn's for ``parser``, writing
    through a :class:`CoalescingTransport` (``auto``: httptools when installed, else h11)."""
    if parser == "httptools" and not HAS_HTTPTOOLS:
        raise ValueError("the httptools parser is not installed")
    if parser != "h11" and HAS_HTTPTOOLS:
        return CoalescingHttpToolsProtocol
    return CoalescingH11Protocol
