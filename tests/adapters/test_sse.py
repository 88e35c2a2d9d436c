"""The event-stream decoder: the same events however the body is cut into chunks, the WHATWG
rules, and agreement with another implementation (httpx-sse) on every recorded real stream."""

from __future__ import annotations

import random

import httpx
import pytest
from httpx_sse import EventSource
from wire_fixtures import interactions, sse_files

from fcbench.adapters.sse import SseDecoder, SseEvent, sse_events

RECORDED = [item.response_body for item in interactions(stream=True) if item.status == 200] + [
    path.read_text(encoding="utf-8") for path in sse_files()
]


def decode_in_chunks(body: bytes, cuts: list[int]) -> list[SseEvent]:
    """What a live stream's reader makes of ``body`` arriving cut at ``cuts``."""
    decoder = SseDecoder()
    events: list[SseEvent] = []
    for start, end in zip([0, *cuts], [*cuts, len(body)], strict=True):
        events += decoder.feed(body[start:end])
    return events + decoder.close()


def httpx_sse_events(body: bytes) -> list[SseEvent]:
    """The same body read by httpx-sse, from an httpx response."""
    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    events = EventSource(response).iter_sse()
    return [(sse.event if sse.event != "message" else None, sse.data) for sse in events]


def test_there_are_recorded_streams_to_check() -> None:
    assert len(RECORDED) >= 8


@pytest.mark.parametrize("index", range(len(RECORDED)))
def test_a_recorded_stream_gives_the_same_events_in_any_chunks_and_as_httpx_sse_reads_it(index: int) -> None:
    body = RECORDED[index].encode()
    whole = decode_in_chunks(body, [])
    assert whole and whole == httpx_sse_events(body)
    rng = random.Random(index)
    for _ in range(20):
        cuts = sorted(rng.sample(range(1, len(body)), min(len(body) - 1, rng.randint(1, 40))))
        assert decode_in_chunks(body, cuts) == whole
    assert decode_in_chunks(body, list(range(1, len(body)))) == whole  # one byte at a time


def test_the_rules_of_the_standard() -> None:
    body = (
        "\ufeff: a comment\r\n"
        "event: message\r\n"
        "data: first\r\n\r\n"
        "event: delta\n"
        "data:no space\n"
        "data:  two spaces\n"
        "id: 7\nretry: 100\nunknown: ignored\n\n"
        "event: ping\n\n"  # no data: not dispatched
        "data\r\r"  # a field with no colon: an empty data line
        "data: cut off"  # the stream ends inside this event
    ).encode()
    expected = [(None, "first"), ("delta", "no space\n two spaces"), (None, "")]
    assert decode_in_chunks(body, []) == expected
    assert decode_in_chunks(body, list(range(1, len(body)))) == expected
    assert sse_events(body.decode("utf-8-sig")) == [*expected, (None, "cut off")]  # recorded: kept


def test_a_cr_lf_split_between_chunks_is_one_line_end() -> None:
    body = b"data: a\r\n\r\ndata: b\r\n\r\n"
    for cut in range(1, len(body)):
        assert decode_in_chunks(body, [cut]) == [(None, "a"), (None, "b")]


def test_invalid_utf8_becomes_the_replacement_character_even_split_across_chunks() -> None:
    snowman = "☃".encode()
    body = b"data: " + snowman + b"\xff\n\n"
    assert decode_in_chunks(body, [7]) == [(None, "☃\ufffd")]
