"""Read request/response log files (JSON Lines) into canonical log entries.

One exchange per line, a JSON object::

    {"request": {...wire request body...}, "response": {...wire response body...},
     "latency_ms": 812, "model": "gpt-4o-2024-08-06", "status": 200, "timestamp": "..."}

* ``request`` (required): the wire request body of the dialect, as an object or as its JSON text.
* ``response`` (required): the wire response body: an object (a non-streamed reply), or the text
  of a recorded stream (server-sent events), or the JSON text of an object.
* ``latency_ms`` (optional): the logged latency in milliseconds.
* ``model`` (optional): the model id, for pricing and when the body does not name one (Gemini).
* ``status`` (optional): the HTTP status; 400 and above reads the response as the dialect's error body.
* any other key (``timestamp``, ``id``, ``user``, ...) is metadata and ignored.

Blank lines are skipped. A line that is not such an object, or whose request the dialect's
reader (:func:`fcbench.adapters.read_request`) cannot read, is an :class:`~fcbench.errors.InputError`
naming the file and line; with ``skip_bad`` it is skipped and counted instead. The response is
read by the dialect's adapter (``parse_response``, ``parse_stream`` or ``parse_error``), exactly
as a run reads a live reply.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fcbench import adapters
from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.logged import LoggedRequest, RequestFormatError
from fcbench.adapters.sse import sse_events
from fcbench.errors import InputError


@dataclass(frozen=True)
class LogEntry:
    """One logged exchange, read into canonical form."""

    index: int
    """Position among every entry read (0-based, over all files in the order given)."""
    source: str
    """The log file."""
    line: int
    """Line number in that file (1-based)."""
    request: LoggedRequest
    """The logged request, canonical."""
    turn: ParsedTurn
    """The logged response as the dialect's adapter reads it."""
    raw_request: dict[str, Any]
    """The logged wire request body, as logged."""
    latency_ms: float | None = None
    """Logged latency, when the line carries one."""
    model: str | None = None
    """The model: the line's ``model``, else the request's, else the response's."""
    item: str | None = None
    """What inside that line the entry was read from (a trace's span or generation), if not the line."""

    @property
    def where(self) -> str:
        """``file:line`` of this entry (then `` span NAME``, for an entry read from a trace)."""
        return f"{self.source}:{self.line}" + (f" {self.item}" if self.item else "")


@dataclass(frozen=True)
class BadLine:
    """A line that could not be read (only collected with ``skip_bad``)."""

    source: str
    """The log file."""
    line: int
    """Line number (1-based)."""
    reason: str
    """Why it could not be read."""


@dataclass(frozen=True)
class LogRead:
    """Everything read from a set of log files."""

    entries: list[LogEntry]
    """The readable exchanges, in file then line order."""
    bad: list[BadLine] = field(default_factory=list)
    """Lines skipped because they could not be read (``skip_bad`` only)."""
    lines: int = 0
    """Non-blank lines seen."""


class UnreadableLine(Exception):
    """Why one line (or one item of it) cannot be read; the reader adds file and line."""


def _decoded(value: Any, what: str) -> Any:
    if isinstance(value, str):
        stripped = value.lstrip()
        if stripped.startswith(("{", "[")):
            try:
                return json.loads(value)
            except ValueError as exc:
                raise UnreadableLine(f"{what} is a string that is not JSON: {exc}") from None
    return value


def read_response(dialect: str, response: Any, status: int | None, offered: Sequence[str]) -> ParsedTurn:
    """The canonical turn of one logged response (object, stream text, or error body)."""
    adapter = adapters.get(dialect)
    if status is not None and status >= 400:
        return ParsedTurn(outcome=adapter.parse_error(status, response, {}))
    if isinstance(response, str):
        events = sse_events(response)
        if not events:
            raise UnreadableLine("the response is text but neither JSON nor a server-sent event stream")
        return adapter.parse_stream(events, offered)
    if not isinstance(response, dict):
        raise UnreadableLine(
            f"the response must be a JSON object or stream text, not {type(response).__name__}"
        )
    return adapter.parse_response(response, offered)


def _latency(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise UnreadableLine(f"latency_ms must be a non-negative number, not {value!r}")
    return float(value)


def _response_model(response: Any) -> str | None:
    if isinstance(response, dict):
        for key in ("model", "modelVersion"):
            if isinstance(response.get(key), str) and response[key]:
                return str(response[key])
    return None


def _entry(dialect: str, data: Any, index: int, source: str, line: int) -> LogEntry:
    if not isinstance(data, dict):
        raise UnreadableLine(f"a log line must be a JSON object, not {type(data).__name__}")
    missing = [key for key in ("request", "response") if key not in data]
    if missing:
        raise UnreadableLine(f'a log line needs "request" and "response" (missing: {", ".join(missing)})')
    body = _decoded(data["request"], "the request")
    try:
        request = adapters.read_request(dialect, body)
    except (RequestFormatError, ValidationError) as exc:
        raise UnreadableLine(f"{dialect} request: {exc}") from None
    status = data.get("status")
    if status is not None and (isinstance(status, bool) or not isinstance(status, int)):
        raise UnreadableLine(f"status must be an integer, not {status!r}")
    response = _decoded(data["response"], "the response")
    turn = read_response(dialect, response, status, [tool.name for tool in request.tools])
    model = data.get("model") if isinstance(data.get("model"), str) else None
    return LogEntry(
        index=index,
        source=source,
        line=line,
        request=request,
        turn=turn,
        raw_request=body,
        latency_ms=_latency(data.get("latency_ms")),
        model=model or request.model or _response_model(response),
    )


def log_text(path: Path) -> str:
    """The text of a log file (UTF-8, a byte-order mark dropped); an :class:`InputError` naming it
    when it cannot be read."""
    try:
        return path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise InputError(f"cannot be read: {exc.strerror or exc}", path=str(path)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"is not UTF-8: {exc.reason}", path=str(path)) from None


def _lines(path: Path) -> list[str]:
    text = log_text(path)
    return [line.removesuffix("\r") for line in text.split("\n")]  # U+2028 and U+0085 stay inside a line


def read_logs(paths: Sequence[Path], dialect: str, *, skip_bad: bool = False) -> LogRead:
    """Read every log file (JSON Lines, see the module docstring) of ``dialect``.

    Raises :class:`~fcbench.errors.InputError` naming file and line for the first unreadable line,
    or, with ``skip_bad``, skips and collects those lines. An unknown dialect is a
    :class:`~fcbench.errors.TargetError` (from the adapter registry).
    """
    adapters.get(dialect)
    entries: list[LogEntry] = []
    bad: list[BadLine] = []
    seen = 0
    for path in paths:
        if not path.is_file():
            raise InputError("no such log file", path=str(path))
        for number, text in enumerate(_lines(path), start=1):
            if not text.strip():
                continue
            seen += 1
            try:
                try:
                    data = json.loads(text)
                except ValueError as exc:
                    raise UnreadableLine(f"not a JSON line: {exc}") from None
                except RecursionError:
                    raise UnreadableLine("not a JSON line: nested too deeply to read") from None
                try:
                    entries.append(_entry(dialect, data, len(entries), str(path), number))
                except RecursionError:
                    raise UnreadableLine("nested too deeply to read") from None
            except UnreadableLine as exc:
                if not skip_bad:
                    raise InputError(
                        f"{exc} (pass --skip-bad to skip such lines)", path=str(path), line=number
                    ) from None
                bad.append(BadLine(str(path), number, str(exc)))
    return LogRead(entries=entries, bad=bad, lines=seen)


__all__ = ["BadLine", "LogEntry", "LogRead", "UnreadableLine", "log_text", "read_logs", "read_response"]
