"""The AWS event-stream decoder, with botocore's own decoder (``EventStreamBuffer``) as the oracle.

Frames are built two independent ways: by the mock's encoder (string headers, as Bedrock sends
them) and by :func:`pack`, written here from the format description (every header value type).
"""

from __future__ import annotations

import contextlib
import struct
import uuid
import zlib

import pytest
from botocore.eventstream import EventStreamBuffer
from hypothesis import given
from hypothesis import strategies as st

from fcbench.adapters.eventstream import (
    EventStreamDecoder,
    FrameError,
    decode_all,
    frame_event,
)
from fcbench.mock.bedrock_converse import encode_frame

HeaderSpec = tuple[str, int, bytes]
"""``(name, value type, encoded value)``."""


def pack(headers: list[HeaderSpec], payload: bytes) -> bytes:
    """One frame with arbitrary typed headers, both CRCs computed here."""
    block = b"".join(struct.pack(">B", len(n.encode())) + n.encode() + bytes([t]) + v for n, t, v in headers)
    total = 16 + len(block) + len(payload)
    prelude = struct.pack(">II", total, len(block))
    head = prelude + struct.pack(">I", zlib.crc32(prelude)) + block + payload
    return head + struct.pack(">I", zlib.crc32(head))


def string(value: str) -> bytes:
    raw = value.encode()
    return struct.pack(">H", len(raw)) + raw


EVENT = encode_frame(
    {":event-type": "contentBlockDelta", ":content-type": "application/json", ":message-type": "event"},
    b'{"contentBlockIndex":0,"delta":{"text":"Hi"},"p":"abc"}',
)
EXCEPTION = encode_frame(
    {
        ":exception-type": "throttlingException",
        ":content-type": "application/json",
        ":message-type": "exception",
    },
    b'{"message":"Too many requests"}',
)


def oracle(data: bytes) -> list[tuple[dict[str, object], bytes]]:
    buffer = EventStreamBuffer()
    buffer.add_data(data)
    return [(message.headers, message.payload) for message in buffer]


def test_frames_decode_as_botocore_decodes_them() -> None:
    data = EVENT + EXCEPTION + EVENT
    mine = [(dict(frame.headers), frame.payload) for frame in decode_all(data)]
    assert mine == oracle(data)
    assert [frame_event(frame) for frame in decode_all(data)][:2] == [
        ("contentBlockDelta", '{"contentBlockIndex":0,"delta":{"text":"Hi"},"p":"abc"}'),
        ("exception:throttlingException", '{"message":"Too many requests"}'),
    ]


def test_every_header_type_decodes_like_botocore() -> None:
    when = 1_700_000_000_123
    ident = uuid.UUID("12345678-1234-5678-1234-567812345678").bytes
    headers: list[HeaderSpec] = [
        ("yes", 0, b""),
        ("no", 1, b""),
        ("byte", 2, struct.pack(">b", -3)),
        ("short", 3, struct.pack(">h", -300)),
        ("int", 4, struct.pack(">i", 70_000)),
        ("long", 5, struct.pack(">q", 2**40)),
        ("bytes", 6, struct.pack(">H", 3) + b"\x00\x01\x02"),
        ("string", 7, string("héllo")),
        ("timestamp", 8, struct.pack(">q", when)),
        ("uuid", 9, ident),
    ]
    frame = pack(headers, b"{}")
    (decoded,) = decode_all(frame)
    expected = oracle(frame)[0][0]
    assert decoded.headers["yes"] is True and decoded.headers["no"] is False
    assert decoded.headers["string"] == expected["string"] == "héllo"
    assert decoded.headers["bytes"] == expected["bytes"] == b"\x00\x01\x02"
    for name in ("byte", "short", "int", "long", "timestamp"):
        assert decoded.headers[name] == expected[name], name
    assert decoded.headers["uuid"] == ident


@given(cuts=st.lists(st.integers(min_value=0, max_value=len(EVENT) * 3), max_size=8))
def test_frames_split_anywhere_reassemble(cuts: list[int]) -> None:
    data = EVENT * 3
    decoder = EventStreamDecoder()
    frames = []
    start = 0
    for cut in [*sorted(cuts), len(data)]:
        frames += decoder.feed(data[start:cut])
        start = max(start, cut)
    decoder.close()
    assert [f.payload for f in frames] == [p for _, p in oracle(data)]


@pytest.mark.parametrize("position", [2, 9, 20, len(EVENT) - 30, len(EVENT) - 2])
def test_a_flipped_byte_is_a_frame_error(position: int) -> None:
    damaged = bytearray(EVENT)
    damaged[position] ^= 0x40
    with pytest.raises(FrameError):
        decode_all(bytes(damaged))


def test_a_frame_cut_short_is_a_frame_error() -> None:
    decoder = EventStreamDecoder()
    assert decoder.feed(EVENT[:-5]) == []
    with pytest.raises(FrameError, match="ended inside a frame"):
        decoder.close()
    with pytest.raises(FrameError):
        decode_all(EVENT + EVENT[:7])


def test_impossible_lengths_and_bad_headers_are_frame_errors() -> None:
    prelude = struct.pack(">II", 8, 0)
    with pytest.raises(FrameError, match="impossible length"):
        EventStreamDecoder().feed(prelude + struct.pack(">I", zlib.crc32(prelude)) + b"\x00" * 8)
    with pytest.raises(FrameError, match="unknown value type"):
        decode_all(pack([("x", 42, b"")], b""))
    with pytest.raises(FrameError, match="runs past"):
        decode_all(pack([("x", 7, struct.pack(">H", 50) + b"ab")], b""))


@given(junk=st.binary(max_size=200))
def test_junk_never_raises_anything_but_frame_error(junk: bytes) -> None:
    with contextlib.suppress(FrameError):
        decode_all(junk)


def test_error_frames_are_named_by_their_code() -> None:
    headers: list[HeaderSpec] = [
        (":message-type", 7, string("error")),
        (":error-code", 7, string("InternalFailure")),
        (":error-message", 7, string("boom")),
    ]
    (frame,) = decode_all(pack(headers, b""))
    assert frame_event(frame) == ("error:InternalFailure", '{"message": "boom"}')
