"""Reading suite files: bytes to text, JSON with line numbers, and collecting problems.

Text rules, the same for every suite file:

* UTF-8 only. A leading UTF-8 byte-order mark is accepted and stripped (editors on some systems
  add one); any other undecodable byte is an error naming the file and line.
* Windows line endings (CRLF) are accepted and read as LF, so a checkout with either line ending
  yields the same text (and the same dataset hash).
* JSON is strict: duplicate keys and the non-standard constants ``NaN``/``Infinity`` are errors.

Every problem found is collected as a :class:`Problem`; a suite with any problem is reported as
one :class:`SuiteError` listing them all, one per line.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fcbench.errors import CaseError

UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_JSON_WHITESPACE = " \t\n\r"
MESSAGE_LIMIT = 500
"""Longest problem message shown; a value a few megabytes long is not echoed in full."""
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
"""A JSON escape of a UTF-16 surrogate; paired ones decode to one character, lone ones are invalid."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a suite file."""

    path: str
    """The file, as shown to the user."""
    line: int | None
    """1-based line number, or None when the problem concerns the whole file."""
    message: str
    """What is wrong, starting with the field path where there is one."""

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"


class SuiteError(CaseError):
    """A suite is invalid; ``problems`` lists every problem found (the message shows them all)."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        order: dict[str, int] = {}
        for problem in problems:
            order.setdefault(problem.path, len(order))
        self.problems: tuple[Problem, ...] = tuple(
            sorted(problems, key=lambda p: (order[p.path], p.line if p.line is not None else 0))
        )
        lines = [str(p) for p in self.problems]
        if len(lines) == 1:
            text = lines[0]
        else:
            text = f"{len(lines)} problems:\n" + "\n".join(f"  {line}" for line in lines)
        super().__init__(text)
        first = self.problems[0] if self.problems else None
        self.path = first.path if first else None
        self.line = first.line if first else None


class ProblemList:
    """Collects problems while a suite is read, then raises them together."""

    def __init__(self) -> None:
        self.items: list[Problem] = []

    def add(self, path: str, line: int | None, message: str) -> None:
        """Record one problem (a message echoing a huge value is cut to :data:`MESSAGE_LIMIT`)."""
        if len(message) > MESSAGE_LIMIT:
            message = message[:MESSAGE_LIMIT] + f"… ({len(message) - MESSAGE_LIMIT} more characters)"
        self.items.append(Problem(path, line, message))

    def __len__(self) -> int:
        return len(self.items)

    def raise_if_any(self) -> None:
        """Raise a :class:`SuiteError` with every recorded problem, if there is one."""
        if self.items:
            raise SuiteError(self.items)


class DuplicateKeyError(ValueError):
    """A JSON object names the same key twice."""


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKeyError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def strict_json_loads(text: str) -> Any:
    """Parse JSON, rejecting duplicate keys and NaN/Infinity.

    Raises :class:`json.JSONDecodeError` for syntax errors and :class:`ValueError` otherwise (also
    for nesting deeper than the decoder can follow, and for a ``\\uD800``-style escape that leaves a
    lone surrogate, which no UTF-8 file or provider request can carry).
    """
    try:
        value = json.loads(text, object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant)
        if _SURROGATE_ESCAPE.search(text):
            json.dumps(value, ensure_ascii=False).encode("utf-8")
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
    except UnicodeEncodeError as exc:
        escape = f"\\u{ord(exc.object[exc.start]):04x}"
        raise ValueError(f"a string holds a lone surrogate {escape}, which is not valid Unicode") from None
    return value


def json_error_message(exc: ValueError) -> str:
    """A one-line description of a JSON parse failure (column included for syntax errors)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON at column {exc.colno}: {exc.msg}"
    return f"invalid JSON: {exc}"


def _decode_problem(data: bytes, exc: UnicodeDecodeError, base_line: int = 1) -> tuple[int, str]:
    """Line and message for undecodable bytes."""
    line = base_line + data.count(b"\n", 0, exc.start)
    column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
    bad = data[exc.start : exc.start + 1].hex()
    hint = " (the file looks like UTF-16; save it as UTF-8)" if data.startswith(_UTF16_BOMS) else ""
    return line, f"not valid UTF-8: byte 0x{bad} at column {column}{hint}"


def decode_text(data: bytes, path: str, problems: ProblemList) -> str | None:
    """Decode a whole file as UTF-8 (BOM stripped, CRLF read as LF); None after recording a problem."""
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, message = _decode_problem(data, exc)
        problems.add(path, line, message)
        return None
    return text.replace("\r\n", "\n")


def decode_lines(data: bytes, path: str, problems: ProblemList) -> list[str | None]:
    """Decode a JSON Lines file line by line; an undecodable line is recorded and becomes None.

    Lines are split on LF only (never on Unicode line separators, which may appear in strings).
    """
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
    lines: list[str | None] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        raw = raw.removesuffix(b"\r")
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            _, message = _decode_problem(raw, exc)
            problems.add(path, number, message)
            lines.append(None)
    return lines


def line_of(text: str, offset: int) -> int:
    """1-based line number of a character offset."""
    return text.count("\n", 0, offset) + 1


def _skip_ws(text: str, index: int) -> int:
    while index < len(text) and text[index] in _JSON_WHITESPACE:
        index += 1
    return index


def array_spans(text: str, key: str) -> list[tuple[int, int]]:
    """Character spans of the elements of the array under top-level ``key`` of a JSON document.

    ``text`` must already be known to parse. Returns an empty list when the key is absent or its
    value is not an array.
    """
    decoder = json.JSONDecoder()
    index = _skip_ws(text, 0)
    if index >= len(text) or text[index] != "{":
        return []
    index = _skip_ws(text, index + 1)
    while index < len(text) and text[index] != "}":
        name, index = decoder.raw_decode(text, index)
        index = _skip_ws(text, _skip_ws(text, index) + 1)  # past the colon
        if name == key and text[index] == "[":
            return _element_spans(text, index, decoder)
        _, index = decoder.raw_decode(text, index)
        index = _skip_ws(text, index)
        if index < len(text) and text[index] == ",":
            index = _skip_ws(text, index + 1)
    return []


def _element_spans(text: str, index: int, decoder: json.JSONDecoder) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    index = _skip_ws(text, index + 1)
    while index < len(text) and text[index] != "]":
        _, end = decoder.raw_decode(text, index)
        spans.append((index, end))
        index = _skip_ws(text, end)
        if index < len(text) and text[index] == ",":
            index = _skip_ws(text, index + 1)
    return spans


def locate(text: str, start: int, end: int, keys: Sequence[str | int]) -> int:
    """Best-effort line of a nested field inside ``text[start:end]``.

    Searches forward for each string key of the path in turn (``"key"`` followed by a colon) and
    returns the line of the last one found; the line of ``start`` when none is found.
    """
    offset = start
    found = start
    for key in keys:
        if not isinstance(key, str):
            continue
        pattern = re.compile(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:")
        match = pattern.search(text, offset, end)
        if match is None:
            break
        found = offset = match.start()
    return line_of(text, found)


def json_key_lines(text: str) -> dict[tuple[str | int, ...], int]:
    """The line of every value of a JSON document, by its path (object keys and array indexes).

    A member's line is the line of its key (where an editor shows the problem); an array element's
    is the line where it starts. ``text`` must already be known to parse. An empty dict when the
    document nests too deeply to walk.
    """
    lines: dict[tuple[str | int, ...], int] = {}
    decoder = json.JSONDecoder()
    breaks = [i for i, ch in enumerate(text) if ch == "\n"]

    def line_of(offset: int) -> int:
        return bisect.bisect_left(breaks, offset) + 1

    def walk(index: int, path: tuple[str | int, ...], line: int) -> int:
        lines[path] = line
        index = _skip_ws(text, index)
        opener = text[index]
        if opener not in "{[":
            return decoder.raw_decode(text, index)[1]
        closer = "}" if opener == "{" else "]"
        index = _skip_ws(text, index + 1)
        position = 0
        while text[index] != closer:
            if opener == "{":
                name, after = decoder.raw_decode(text, index)
                key: str | int = name
                start = _skip_ws(text, _skip_ws(text, after) + 1)  # past the colon
                key_line = line_of(index)
            else:
                key, start, key_line = position, index, line_of(index)
            index = _skip_ws(text, walk(start, (*path, key), key_line))
            position += 1
            if text[index] == ",":
                index = _skip_ws(text, index + 1)
        return index + 1

    try:
        walk(0, (), line_of(_skip_ws(text, 0)))
    except RecursionError:
        return {}
    return lines


def line_at(lines: dict[tuple[str | int, ...], int], keys: Sequence[str | int]) -> int | None:
    """The line of the deepest value of ``keys`` that exists in ``lines`` (see :func:`json_key_lines`)."""
    for end in range(len(keys), -1, -1):
        found = lines.get(tuple(keys[:end]))
        if found is not None:
            return found
    return None
