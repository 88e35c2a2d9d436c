"""The AWS event-stream binary framing (``application/vnd.amazon.eventstream``), decoded.

Pure and incremental: :class:`EventStreamDecoder` takes bytes as they arrive and returns every
frame completed so far; :func:`frame_event` turns a frame into the ``(event name, data)`` pair
every adapter's ``parse_stream`` takes. The transport reads streams of dialects whose
:attr:`~fcbench.adapters.base.Capabilities.stream_framing` is ``aws-eventstream`` through it.

One frame (all integers big-endian)::

    total length u32 | headers length u32 | CRC32 of the 8 bytes before it u32
    headers: name length u8, name (UTF-8), value type u8, value
    payload
    CRC32 of everything before it u32

Header value types: 0 true, 1 false (no value), 2 byte, 3 short, 4 int, 5 long, 6 bytes
(u16 length + bytes), 7 string (u16 length + UTF-8), 8 timestamp (i64 milliseconds), 9 uuid
(16 bytes). A frame whose CRC does not match, whose lengths do not add up, whose headers do not
parse, or that the stream ends inside of, raises :class:`FrameError`; nothing else escapes.

:func:`frame_event` names an event by its ``:message-type`` header:

==================  ===================================  ======================================
``:message-type``   event name                           data
==================  ===================================  ======================================
``event``           the ``:event-type`` header           the payload as UTF-8 text
``exception``       ``exception:`` + ``:exception-type``  the payload as UTF-8 text
``error``           ``error:`` + ``:error-code``          ``{"message": <:error-message>}``
==================  ===================================  ======================================
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

PRELUDE_BYTES = 12
"""Total length, headers length and the prelude's CRC."""
CHECKSUM_BYTES = 4
MAX_FRAME_BYTES = 16 * 1024 * 1024
"""Largest frame accepted (the AWS SDKs' own limit); a larger declared length is corrupt."""

HeaderValue = bool | int | bytes | str


class FrameError(ValueError):
    """The bytes are not well-formed event-stream frames (bad checksum, lengths or headers, or cut)."""


@dataclass(frozen=True)
class Frame:
    """One decoded event-stream message."""

    headers: Mapping[str, HeaderValue]
    """Header name -> value (strings for type 7; timestamps as epoch milliseconds; uuids as bytes)."""
    payload: bytes


def _fixed(size: int, fmt: str) -> Callable[[bytes, int], tuple[HeaderValue, int]]:
    def read(data: bytes, at: int) -> tuple[HeaderValue, int]:
        if at + size > len(data):
            raise FrameError("header value runs past the headers")
        value: int = struct.unpack_from(fmt, data, at)[0]
        return value, at + size

    return read


def _sized(text: bool) -> Callable[[bytes, int], tuple[HeaderValue, int]]:
    def read(data: bytes, at: int) -> tuple[HeaderValue, int]:
        if at + 2 > len(data):
            raise FrameError("header value length runs past the headers")
        (length,) = struct.unpack_from(">H", data, at)
        end = at + 2 + length
        if end > len(data):
            raise FrameError("header value runs past the headers")
        raw = data[at + 2 : end]
        if not text:
            return bytes(raw), end
        try:
            return raw.decode("utf-8"), end
        except UnicodeDecodeError as exc:
            raise FrameError(f"string header is not UTF-8: {exc}") from None

    return read


def _uuid(data: bytes, at: int) -> tuple[HeaderValue, int]:
    if at + 16 > len(data):
        raise FrameError("uuid header runs past the headers")
    return bytes(data[at : at + 16]), at + 16


HEADER_READERS: Mapping[int, Callable[[bytes, int], tuple[HeaderValue, int]]] = {
    0: lambda data, at: (True, at),
    1: lambda data, at: (False, at),
    2: _fixed(1, ">b"),
    3: _fixed(2, ">h"),
    4: _fixed(4, ">i"),
    5: _fixed(8, ">q"),
    6: _sized(text=False),
    7: _sized(text=True),
    8: _fixed(8, ">q"),
    9: _uuid,
}
"""Header value type -> reader ``(headers bytes, offset) -> (value, next offset)``."""


def parse_headers(data: bytes) -> dict[str, HeaderValue]:
    """The headers block of one frame (raises :class:`FrameError` when it does not parse)."""
    headers: dict[str, HeaderValue] = {}
    at = 0
    while at < len(data):
        name_length = data[at]
        name_end = at + 1 + name_length
        if name_end + 1 > len(data):
            raise FrameError("header name runs past the headers")
        try:
            name = data[at + 1 : name_end].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FrameError(f"header name is not UTF-8: {exc}") from None
        reader = HEADER_READERS.get(data[name_end])
        if reader is None:
            raise FrameError(f"header {name!r} has unknown value type {data[name_end]}")
        headers[name], at = reader(data, name_end + 1)
    return headers


def decode_frame(message: bytes) -> Frame:
    """One complete frame (exactly its ``total length`` bytes), both checksums verified."""
    if len(message) < PRELUDE_BYTES + CHECKSUM_BYTES:
        raise FrameError(f"a frame of {len(message)} bytes is shorter than its prelude and checksum")
    total, headers_length, prelude_crc = struct.unpack_from(">III", message, 0)
    if zlib.crc32(message[:8]) != prelude_crc:
        raise FrameError("prelude checksum mismatch")
    if total != len(message) or headers_length > total - PRELUDE_BYTES - CHECKSUM_BYTES:
        raise FrameError(f"frame lengths do not add up (total {total}, headers {headers_length})")
    (message_crc,) = struct.unpack_from(">I", message, total - CHECKSUM_BYTES)
    if zlib.crc32(message[: total - CHECKSUM_BYTES]) != message_crc:
        raise FrameError("message checksum mismatch")
    headers_end = PRELUDE_BYTES + headers_length
    headers = parse_headers(message[PRELUDE_BYTES:headers_end])
    return Frame(headers=headers, payload=bytes(message[headers_end : total - CHECKSUM_BYTES]))


class EventStreamDecoder:
    """Incremental decoder: :meth:`feed` bytes as they arrive, :meth:`close` at the end of the stream."""

    def __init__(self, max_frame_bytes: int = MAX_FRAME_BYTES) -> None:
        self._buffer = bytearray()
        self._max = max_frame_bytes

    def feed(self, data: bytes) -> list[Frame]:
        """The frames completed by ``data`` (raises :class:`FrameError` on a corrupt one)."""
        self._buffer.extend(data)
        frames: list[Frame] = []
        while len(self._buffer) >= PRELUDE_BYTES:
            total, _, prelude_crc = struct.unpack_from(">III", self._buffer, 0)
            if zlib.crc32(self._buffer[:8]) != prelude_crc:
                raise FrameError("prelude checksum mismatch")
            if total < PRELUDE_BYTES + CHECKSUM_BYTES or total > self._max:
                raise FrameError(f"frame declares an impossible length {total}")
            if len(self._buffer) < total:
                break
            frames.append(decode_frame(bytes(self._buffer[:total])))
            del self._buffer[:total]
        return frames

    def close(self) -> None:
        """Raise :class:`FrameError` when the stream ended inside a frame."""
        if self._buffer:
            raise FrameError(f"the stream ended inside a frame ({len(self._buffer)} bytes left over)")


def decode_all(data: bytes) -> list[Frame]:
    """Every frame of a complete recorded body (raises :class:`FrameError`)."""
    decoder = EventStreamDecoder()
    frames = decoder.feed(data)
    decoder.close()
    return frames


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def frame_event(frame: Frame) -> tuple[str | None, str]:
    """The ``(event name, data)`` pair of a frame (see the module table); data as UTF-8 text."""
    headers = frame.headers
    kind = _text(headers.get(":message-type")) or "event"
    data = frame.payload.decode("utf-8", errors="replace")
    if kind == "exception":
        return f"exception:{_text(headers.get(':exception-type'))}", data
    if kind == "error":
        message = json.dumps({"message": _text(headers.get(":error-message"))})
        return f"error:{_text(headers.get(':error-code'))}", message
    return _text(headers.get(":event-type")) or None, data


__all__ = [
    "EventStreamDecoder",
    "Frame",
    "FrameError",
    "decode_all",
    "decode_frame",
    "frame_event",
    "parse_headers",
]
