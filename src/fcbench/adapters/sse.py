"""Server-sent events (``text/event-stream``), decoded incrementally.

Pure, like :mod:`fcbench.adapters.eventstream`: :class:`SseDecoder` takes the body's bytes as they
arrive and returns the ``(event name, data)`` pairs every adapter's ``parse_stream`` takes, as
the WHATWG HTML standard's event-stream interpretation defines them:

- the body is UTF-8 (an invalid byte becomes U+FFFD; a leading byte order mark is dropped);
- a line ends at CR LF, LF or CR;
- a line starting with ``:`` is a comment; ``field: value`` loses one space after the colon;
- ``data`` lines are joined with LF; ``event`` names the event (``message``, or no ``event``
  field, is the default, given as None); ``id`` and ``retry`` are read and not kept; other fields
  are ignored;
- a blank line dispatches the event when at least one ``data`` line came; an event the stream
  ends inside of (no blank line after it) is dropped by a live stream's reader, and kept by
  :func:`sse_events`, which reads recorded bodies (a log may have lost the last blank line).
"""

from __future__ import annotations

import codecs
import re

_LINE_END = re.compile(r"\r\n|\r|\n")

SseEvent = tuple[str | None, str]
"""An event's name (None for the default ``message``) and its data."""


class SseDecoder:
    """Turns chunks of an event-stream body into :data:`SseEvent` pairs."""

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8-sig")("replace")
        self._pending = ""
        self._event = ""
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """The events completed by ``chunk``."""
        return self.feed_text(self._utf8.decode(chunk))

    def feed_text(self, text: str) -> list[SseEvent]:
        """The events completed by ``text`` (a body already decoded)."""
        return self._lines(self._pending + text, final=False)

    def close(self, *, keep_last: bool = False) -> list[SseEvent]:
        """The events completed by the end of the body (a last line without its line end), and
        with ``keep_last`` the event it ends inside of."""
        events = self._lines(self._pending + self._utf8.decode(b"", final=True), final=True)
        if keep_last:
            self._line("", events)
        return events

    def _lines(self, text: str, *, final: bool) -> list[SseEvent]:
        events: list[SseEvent] = []
        start = 0
        for end in _LINE_END.finditer(text):
            if not final and end.group() == "\r" and end.end() == len(text):
                break  # maybe the first half of a CR LF split between chunks
            self._line(text[start : end.start()], events)
            start = end.end()
        self._pending = text[start:]
        if final and self._pending:
            self._line(self._pending, events)
            self._pending = ""
        return events

    def _line(self, line: str, events: list[SseEvent]) -> None:
        if not line:
            if self._data:
                name = self._event if self._event and self._event != "message" else None
                events.append((name, "\n".join(self._data)))
            self._event, self._data = "", []
            return
        if line.startswith(":"):
            return
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value


def sse_events(text: str) -> list[SseEvent]:
    """The events of a recorded event-stream body, the last one kept even without its blank line."""
    decoder = SseDecoder()
    return [*decoder.feed_text(text), *decoder.close(keep_last=True)]
