"""Trace files (spans, generations) read into the same log entries as wire logs.

A trace format (:class:`TraceFormat`: :mod:`fcbench.logs.otel`, :mod:`fcbench.logs.langfuse`)
reads its files into items (a span, a generation) with the line they start on; an item that cannot
be read is an :class:`~fcbench.errors.InputError` naming file, line and item, or, with
``skip_bad``, skipped and counted. A trace that records no tool definitions can be given them with
``tools`` (``--tools FILE``, any published tool-list format), noted on each request that used them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.logged import LoggedRequest, RequestFormatError
from fcbench.contract import Tool
from fcbench.errors import InputError
from fcbench.logs.entries import BadLine, LogEntry, LogRead, UnreadableLine, log_text


@dataclass(frozen=True)
class ReadOptions:
    """How log files are read."""

    dialect: str | None = None
    """The wire dialect (``wire`` format only)."""
    skip_bad: bool = False
    """Skip and count unreadable lines or items instead of failing on the first."""
    tools: tuple[Tool, ...] = ()
    """Tools offered, for trace items that record no tool definitions."""


@dataclass(frozen=True)
class TraceItem:
    """One item of a trace file (a span, a generation), not read yet."""

    line: int
    """The line it starts on (1-based)."""
    label: str
    """How a message names it (``span 'chat gpt-4o' 5b8aa5a2``)."""
    data: Any
    """The item as found, with whatever the format's reader needs beside it."""


@dataclass(frozen=True)
class ReadItem:
    """What a trace format read from one item."""

    request: LoggedRequest
    """The request, canonical."""
    turn: ParsedTurn
    """The recorded answer, canonical."""
    raw: dict[str, Any]
    """The item as recorded (scanned for secrets before anything is written)."""
    latency_ms: float | None = None
    """The recorded duration."""
    model: str | None = None
    """The model the item names."""


class TraceFormat(Protocol):
    """A trace format: its files into items, and one item into a request and its answer."""

    def items(self, path: Path, text: str) -> list[TraceItem]:
        """The items of one file (raises :class:`InputError` for a file that is not the format)."""
        ...

    def is_call(self, item: TraceItem) -> bool:
        """True for an item that records one model request (others, e.g. tool spans, are ignored)."""
        ...

    def read(self, item: TraceItem, options: ReadOptions) -> ReadItem:
        """The item read (raises :class:`UnreadableLine` or :class:`RequestFormatError`)."""
        ...


def json_documents(path: Path, text: str) -> list[tuple[int, Any]]:
    """A file of one JSON document, or JSON Lines of them: ``(line, document)`` each."""
    try:
        return [(1, json.loads(text))]
    except RecursionError:
        raise InputError("nested too deeply to read", path=str(path)) from None
    except ValueError:
        pass
    documents = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            try:
                documents.append((number, json.loads(line)))
            except (ValueError, RecursionError) as exc:
                raise InputError(
                    f"neither a JSON document nor JSON Lines: {exc}", path=str(path), line=number
                ) from None
    return documents


def trace_item(
    text: str, start: int, *, search: bool, kind: str, name: Any, ident: str, data: Any
) -> TraceItem:
    """The item ``kind NAME IDENT`` of a document starting on line ``start``: with ``search`` (the
    file is one document) on the line where ``ident`` first occurs in ``text``, else on ``start``."""
    position = text.find(ident) if search and ident else -1
    line = start if position < 0 else text.count("\n", 0, position) + 1
    return TraceItem(line, f"{kind} {str(name or '')!r} {ident}".rstrip(), data)


def _file_text(path: Path) -> str:
    if not path.is_file():
        raise InputError("no such log file", path=str(path))
    return log_text(path)


def read_traces(trace: TraceFormat, paths: Sequence[Path], options: ReadOptions) -> LogRead:
    """Every model request recorded in ``paths`` by ``trace``, as log entries (see the module)."""
    entries: list[LogEntry] = []
    bad: list[BadLine] = []
    seen = 0
    for path in paths:
        for item in (i for i in trace.items(path, _file_text(path)) if trace.is_call(i)):
            seen += 1
            try:
                try:
                    got = trace.read(item, options)
                except (RequestFormatError, ValidationError) as exc:
                    raise UnreadableLine(str(exc)) from None
                except RecursionError:
                    raise UnreadableLine("nested too deeply to read") from None
            except UnreadableLine as exc:
                reason = f"{item.label}: {exc}"
                if not options.skip_bad:
                    raise InputError(
                        f"{reason} (pass --skip-bad to skip such items)", path=str(path), line=item.line
                    ) from None
                bad.append(BadLine(str(path), item.line, reason))
                continue
            entries.append(
                LogEntry(
                    index=len(entries),
                    source=str(path),
                    line=item.line,
                    request=got.request,
                    turn=got.turn,
                    raw_request=got.raw,
                    latency_ms=got.latency_ms,
                    model=got.model or got.request.model,
                    item=item.label,
                )
            )
    return LogRead(entries=entries, bad=bad, lines=seen)


__all__ = [
    "ReadItem",
    "ReadOptions",
    "TraceFormat",
    "TraceItem",
    "json_documents",
    "trace_item",
    "read_traces",
]
