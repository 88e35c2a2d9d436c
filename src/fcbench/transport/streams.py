"""Reading a response body: inflated with a bound, and split into events by its stream framing.

Streams come in two framings (:data:`STREAM_FRAMINGS`): server-sent events
(:mod:`fcbench.adapters.sse`) and AWS event-stream binary frames
(:mod:`fcbench.adapters.eventstream`). Each only turns the body into ``(event name, data)`` pairs;
the transport handles limits, raw capture, stalls and cuts once for both.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from fcbench.adapters.eventstream import EventStreamDecoder, frame_event
from fcbench.adapters.sse import SseDecoder

ACCEPT_ENCODING = "gzip, deflate"
"""The encodings asked for: the two :func:`inflated` decodes, with a bound on each step."""

Chunks = AsyncIterator[bytes]
"""A response body's decoded bytes, as they arrive."""
StreamEvents = Callable[[Chunks], AsyncIterator[tuple[str | None, str]]]
"""Reads a streamed body into ``(event name or None, data)`` pairs as they arrive."""


async def sse_stream_events(chunks: Chunks) -> AsyncIterator[tuple[str | None, str]]:
    """Server-sent events (:class:`fcbench.adapters.sse.SseDecoder`): the ``event:`` name (None
    for the default ``message``) and the data."""
    decoder = SseDecoder()
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event
    for event in decoder.close():
        yield event


async def eventstream_stream_events(chunks: Chunks) -> AsyncIterator[tuple[str | None, str]]:
    """AWS event-stream frames (:func:`fcbench.adapters.eventstream.frame_event`); raises
    :class:`~fcbench.adapters.eventstream.FrameError` on a bad checksum or a frame cut short."""
    decoder = EventStreamDecoder()
    async for chunk in chunks:
        for frame in decoder.feed(chunk):
            yield frame_event(frame)
    decoder.close()


@dataclass(frozen=True)
class StreamFraming:
    """How a streamed response of one framing (:attr:`Capabilities.stream_framing`) is asked for and read."""

    content_type: str
    """What the response's ``content-type`` must contain to be read as a stream."""
    request_headers: Mapping[str, str]
    """Headers sent with a streamed request (they override the caller's of the same name)."""
    events: StreamEvents
    """The body's ``(event name, data)`` pairs, the same for every framing."""


STREAM_FRAMINGS: Mapping[str, StreamFraming] = MappingProxyType(
    {
        "sse": StreamFraming(
            "text/event-stream",
            {"Accept": "text/event-stream", "Cache-Control": "no-store"},
            sse_stream_events,
        ),
        "aws-eventstream": StreamFraming(
            "application/vnd.amazon.eventstream",
            {"Accept": "application/vnd.amazon.eventstream"},
            eventstream_stream_events,
        ),
    }
)
"""Stream framing -> how the transport reads it; limits, raw capture and cut handling are shared."""


class BodyDecodingError(Exception):
    """A compressed body that does not inflate (internal: the connection's answer is lost)."""


async def inflated(raw: AsyncIterator[bytes], encoding: str, step: int) -> Chunks:
    """``raw`` (a body as sent) decoded: gzip and deflate inflated with at most ``step`` bytes out
    of each step, so a small compressed chunk never fills memory; any other encoding as it came.
    Raises :class:`BodyDecodingError` when the body does not inflate."""
    wbits = {"gzip": 31, "x-gzip": 31, "deflate": 47}.get(encoding.strip().lower())
    if wbits is None:
        async for chunk in raw:
            yield chunk
        return
    inflate = zlib.decompressobj(wbits=wbits)
    try:
        async for compressed in raw:
            data = compressed
            while data:
                yield inflate.decompress(data, step)
                data = inflate.unconsumed_tail
        yield inflate.flush()
    except zlib.error as exc:
        raise BodyDecodingError(f"invalid {encoding} body: {exc}") from exc
