"""Assemble a Gemini ``streamGenerateContent?alt=sse`` stream into a canonical turn (protocols.md §4.4).

Each event's data is a whole ``GenerateContentResponse`` chunk (no ``event:`` lines, no
terminator); calls arrive whole, text arrives in fragments, usage as running totals. Chunks are
folded with :func:`~fcbench.adapters.gemini.response.merge_chunk` and read like a JSON body.

The stream is complete once a chunk carries a ``finishReason`` (or the prompt was blocked);
otherwise ``stream_incomplete``. An ``{"error": {...}}`` chunk is a provider error; a named event
is ``unknown_event`` (its data is still read); data that is not JSON is a ``bad_response``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.common import anomaly
from fcbench.adapters.gemini.errors import error_object, error_outcome
from fcbench.adapters.gemini.response import BadResponse, Merged, bad_response, merge_chunk, turn_from_merged
from fcbench.contract import Anomaly


def parse_stream(
    events: Iterable[tuple[str | None, str]], offered_tools: Sequence[str] | None = None
) -> ParsedTurn:
    """Assemble ``(event, data)`` pairs of one Gemini SSE stream into a turn."""
    found: list[Anomaly] = []
    merged = Merged()
    seen = 0
    for number, (name, data) in enumerate(events):
        if name not in (None, "message"):
            found.append(anomaly("unknown_event", f"event {number}: {name!r}"))
        if not data.strip():
            continue
        try:
            chunk = json.loads(data)
        except (ValueError, RecursionError):
            return bad_response(f"stream event {number}: data is not JSON: {data[:200]!r}", found)
        if error_object(chunk) is not None:
            return ParsedTurn(outcome=error_outcome(chunk), anomalies=found)
        try:
            merge_chunk(merged, chunk)
        except BadResponse as exc:
            return bad_response(f"stream event {number}: {exc}", found)
        seen += 1
    if merged.finish_reason is None and merged.block_reason is None:
        found.append(anomaly("stream_incomplete", "no chunk carried a finishReason"))
    if seen == 0:
        return bad_response("the stream carried no chunk", found)
    return turn_from_merged(merged, offered_tools, found)
