"""Loaders for the recorded provider traffic and API specs under ``tests/fixtures``.

Shared by the adapter tests of every dialect. Nothing here knows a dialect: it reads the
interaction log, the raw ``.sse`` captures and the manifest, and splits SSE text into
``(event, data)`` pairs exactly as a conforming SSE client would, so a parser under test sees
what the transport would hand it.

API names used in ``interactions.jsonl``: ``openai_chat``, ``openai_responses``,
``anthropic_messages``, ``gemini_generateContent``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from fcbench.adapters.sse import sse_events as split_sse

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
"""The ``tests/fixtures`` folder."""
WIRE = FIXTURES / "wire"
"""Recorded real traffic."""
SPECS = FIXTURES / "specs"
"""Official API specs."""

SSEEvent = tuple[str | None, str]
"""One dispatched SSE event: ``(event name or None, data)``."""


def sse_events(text: str) -> list[SSEEvent]:
    """``(event name or None, data)`` pairs of an SSE body (:func:`fcbench.adapters.sse.sse_events`)."""
    return split_sse(text)


@dataclass(frozen=True)
class Interaction:
    """One recorded request/response pair."""

    file: str
    """Path of the source capture, relative to ``tests/fixtures/wire``."""
    i: int
    """Index of the interaction inside its source file."""
    api: str
    """``openai_chat``, ``openai_responses``, ``anthropic_messages`` or ``gemini_generateContent``."""
    stream: bool
    status: int
    request_body: str | None
    """The request body text as sent (None when the capture has none)."""
    response_body: str
    """The response body text exactly as received (JSON text, or SSE text for streams)."""
    content_type: str = ""

    @property
    def key(self) -> str:
        """A stable id for test parametrisation: ``file#i``."""
        return f"{self.file}#{self.i}"

    @property
    def request_json(self) -> Any:
        """The request body decoded from JSON (None when there is no body)."""
        return json.loads(self.request_body) if self.request_body else None

    @property
    def response_json(self) -> Any:
        """The response body decoded from JSON (only for non-streamed interactions)."""
        return json.loads(self.response_body)

    def events(self) -> list[SSEEvent]:
        """The response body split into SSE events (only for streamed interactions)."""
        return sse_events(self.response_body)


def _content_type(value: Any) -> str:
    if isinstance(value, list):
        return str(value[0]) if value else ""
    return str(value or "")


@cache
def _all_interactions() -> tuple[Interaction, ...]:
    found: list[Interaction] = []
    with (WIRE / "interactions.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            row = json.loads(line)
            found.append(
                Interaction(
                    file=row["file"],
                    i=row["i"],
                    api=row["api"],
                    stream=bool(row["stream"]),
                    status=int(row["response"]["status"]),
                    request_body=row["request"].get("body"),
                    response_body=row["response"]["body"],
                    content_type=_content_type(row["response"].get("content_type")),
                )
            )
    return tuple(found)


def interactions(api: str | None = None, stream: bool | None = None) -> list[Interaction]:
    """Recorded interactions from ``interactions.jsonl``, optionally filtered by API and streaming."""
    return [
        item
        for item in _all_interactions()
        if (api is None or item.api == api) and (stream is None or item.stream == stream)
    ]


def sse_files(prefix: str = "") -> list[Path]:
    """The raw ``.sse`` captures (openai-python Chat Completions streams) whose name starts with prefix."""
    return sorted(p for p in (WIRE / "openai-python").glob("*.sse") if p.name.startswith(prefix))


def sse_file_events(path: Path) -> list[SSEEvent]:
    """One raw ``.sse`` capture split into events."""
    return sse_events(path.read_text(encoding="utf-8"))


@cache
def _manifest() -> dict[str, dict[str, Any]]:
    entries = json.loads((WIRE / "MANIFEST.json").read_text(encoding="utf-8"))
    return {entry["file"]: entry for entry in entries}


def manifest_entry(file: str, i: int = 0) -> dict[str, Any]:
    """The manifest's record of one interaction: api, stream, status, ``tool_call_ids``, ``features``."""
    for item in _manifest()[file].get("interactions") or []:
        if item["i"] == i:
            return dict(item)
    raise KeyError(f"{file}#{i} not in MANIFEST.json")


@cache
def load_spec(relative: str) -> Any:
    """An API spec under ``tests/fixtures/specs`` (e.g. ``openai/openapi.json``), decoded; cached."""
    return json.loads((SPECS / relative).read_text(encoding="utf-8"))
