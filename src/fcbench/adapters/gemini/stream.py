"""Assemble a Gemini ``streamGenerateContent?alt=sse`` stream into a canonical turn (protocols.md §4.4).

Each event's data is a whole ``GenerateContentResponse`` chunk (no ``event:`` lines, no
terminator); calls arrive whole, text arrives in fragments, usage as running totals. Chunks are
folded with :func:`~fcbench.adapters.gemini.response.merge_chunk` and read like a JSON body.

Vertex AI can also stream a call's arguments (``streamFunctionCallArguments``): a
``functionCall`` part with ``name`` and ``partialArgs`` (each a JSON Path, RFC 9535, and one
``stringValue`` / ``numberValue`` / ``boolValue`` / ``nullValue``; a string whose ``willContinue``
is true goes on in the next piece for the same path) and ``willContinue: true``, continued by
later ``functionCall`` parts, in this chunk or later ones, until one without ``willContinue``.
:func:`assemble_streamed_calls` folds those pieces into one call with whole ``args`` before the
turn is read; a call still continuing when the stream ends is ``stream_incomplete``.

The stream is complete once a chunk carries a ``finishReason`` (or the prompt was blocked);
otherwise ``stream_incomplete``. An ``{"error": {...}}`` chunk is a provider error; a named event
is ``unknown_event`` (its data is still read); data that is not JSON is a ``bad_response``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

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
    try:
        merged.parts = assemble_streamed_calls(merged.parts, found)
    except BadResponse as exc:
        return bad_response(f"streamed function call: {exc}", found)
    return turn_from_merged(merged, offered_tools, found)


_PATH_STEP = re.compile(r"\.([A-Za-z_][\w-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\[\"((?:[^\"\\]|\\.)*)\"\]")
_VALUE_FIELDS = ("stringValue", "numberValue", "boolValue", "nullValue")
MAX_INDEX = 10_000
"""Largest array index a streamed argument's path may name (a bigger one is a bad response)."""


def _path_steps(path: Any) -> list[str | int]:
    """The steps of a JSON Path like ``$.stops[0].city`` (names and indices only)."""
    if not isinstance(path, str) or not path.startswith("$"):
        raise BadResponse(f"jsonPath {path!r} is not a JSON Path starting at $")
    steps: list[str | int] = []
    at = 1
    while at < len(path):
        match = _PATH_STEP.match(path, at)
        if match is None:
            raise BadResponse(f"jsonPath {path!r}: cannot read {path[at:]!r}")
        name, index, single, double = match.groups()
        if index is not None:
            if int(index) > MAX_INDEX:
                raise BadResponse(f"jsonPath {path!r}: index over {MAX_INDEX}")
            steps.append(int(index))
        else:
            steps.append(name if name is not None else (single if single is not None else double))
        at = match.end()
    if not steps:
        raise BadResponse(f"jsonPath {path!r} names no argument")
    return steps


def _put(root: dict[str, Any], steps: list[str | int], value: Any, append: bool) -> None:
    """Set (or, for a continued string, extend) the value at ``steps`` under ``root``."""
    node: Any = root
    for position, step in enumerate(steps):
        key: Any = step
        if isinstance(node, list) and isinstance(step, int):
            node.extend([None] * (step + 1 - len(node)))
        elif not (isinstance(node, dict) and isinstance(step, str)):
            raise BadResponse(f"path step {step!r} does not fit a {type(node).__name__}")
        previous = node[key] if isinstance(node, list) else node.get(key)
        if position == len(steps) - 1:
            joined = append and isinstance(previous, str) and isinstance(value, str)
            node[key] = previous + value if joined else value
            return
        if previous is None:
            previous = [] if isinstance(steps[position + 1], int) else {}
            node[key] = previous
        node = previous


def _fold_partial_args(args: dict[str, Any], pieces: Any, open_paths: set[str]) -> None:
    if not isinstance(pieces, list):
        raise BadResponse("partialArgs is not an array")
    for piece in pieces:
        if not isinstance(piece, dict):
            raise BadResponse("a partialArgs item is not an object")
        present = [f for f in _VALUE_FIELDS if f in piece]
        if len(present) > 1:
            raise BadResponse(f"a partialArgs item carries several values: {', '.join(present)}")
        value = None if not present or present[0] == "nullValue" else piece[present[0]]
        steps = _path_steps(piece.get("jsonPath"))
        path = str(piece["jsonPath"])
        _put(args, steps, value, append=path in open_paths)
        if piece.get("willContinue") is True:
            open_paths.add(path)
        else:
            open_paths.discard(path)


def assemble_streamed_calls(parts: Sequence[dict[str, Any]], found: list[Anomaly]) -> list[dict[str, Any]]:
    """``parts`` with every call streamed in pieces folded into one ``functionCall`` part."""
    out: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    args: dict[str, Any] = {}
    open_paths: set[str] = set()
    for part in parts:
        call = part.get("functionCall")
        streamed = isinstance(call, dict) and ("partialArgs" in call or call.get("willContinue") is True)
        if current is None and not streamed:
            out.append(part)
            continue
        if not isinstance(call, dict):  # text or a thought between the pieces of one call
            out.append(part)
            continue
        if current is None:
            current = {
                **part,
                "functionCall": {k: v for k, v in call.items() if k not in ("partialArgs", "willContinue")},
            }
            args = dict(call["args"]) if isinstance(call.get("args"), dict) else {}
            open_paths = set()
        elif isinstance(call.get("name"), str) and call["name"] != current["functionCall"].get("name"):
            raise BadResponse(f"call {current['functionCall'].get('name')!r} continued as {call['name']!r}")
        if isinstance(call.get("args"), dict):
            args.update(call["args"])
        _fold_partial_args(args, call.get("partialArgs", []), open_paths)
        if call.get("willContinue") is not True:
            current["functionCall"]["args"] = args
            out.append(current)
            current = None
    if current is not None:
        name = current["functionCall"].get("name")
        found.append(anomaly("stream_incomplete", f"the streamed call {name!r} was still continuing"))
        current["functionCall"]["args"] = args
        out.append(current)
    return out
