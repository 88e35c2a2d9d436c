"""The mock's fast JSON encoding writes exactly the bytes ``json`` writes, whatever the value.

Replies and stream events are encoded by msgspec when that gives json's bytes, and by json when it
does not (floats json writes with an exponent, ``NaN``, ``Infinity``, keys and integers msgspec
cannot take). Any difference would change a simulated model's replies.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.contract.json_text import COMPACT_JSON, compact_json, parse_json
from fcbench.mock.common import SseEvent


def expected(value: Any) -> bytes:
    return COMPACT_JSON.encode(value).encode()


FLOATS = [
    0.0,
    -0.0,
    1.0,
    0.1,
    1e-4,
    9.99e-5,
    1e-5,
    1e-7,
    5e-324,
    1e16,
    9_999_999_999_999_998.0,
    1.2345678901234568e17,
    -3e22,
    1.5e300,
    math.inf,
    -math.inf,
    math.nan,
]


@pytest.mark.parametrize("number", FLOATS)
def test_every_kind_of_float_is_written_as_json_writes_it(number: float) -> None:
    for value in (number, [number], {"x": number}, {"a": [1, {"b": number}], "c": "text"}):
        assert compact_json(value) == expected(value)


def test_values_msgspec_cannot_take_are_written_by_json() -> None:
    for value in ({1: "int key"}, {1.5: 2}, {1e16: 2}, {True: 1}, {None: 1}, [2**70], {"n": -(2**80)}):
        assert compact_json(value) == expected(value)


def test_a_float_marker_byte_inside_text_does_not_hide_a_float() -> None:
    # "\u02ff" is 0xcb 0xbf in UTF-8, like the start of a float64 in msgpack
    for value in (["\u02ff", 1e-7], {"\u02ff": 1e20}, ["ˋ" * 3, 2.5, "\u02ff"]):
        assert compact_json(value) == expected(value)
    # integers holding a 0xcb byte (a time stamp, a token count of 203), with and without floats
    for number in (0x6B0FCB21, 203, 0xCB7FF00000000000 >> 8, 0xCB_3FF8_0000_0000_00):
        for value in (
            {"created": number},
            [number, 1e-7],
            [number, 2.5, math.nan],
            {"a": number, "b": 1e300},
        ):
            assert compact_json(value) == expected(value)


def test_text_is_escaped_as_json_escapes_it() -> None:
    value = {"s": '\x00\x1f\x7f\u2028\u2029 é 中 "quoted" \\ / \n\t\r\b\f 😀'}
    assert compact_json(value) == expected(value)


def test_a_lone_surrogate_fails_as_it_always_did() -> None:
    with pytest.raises(UnicodeEncodeError):
        expected(["\ud800"])
    with pytest.raises(UnicodeEncodeError):
        compact_json(["\ud800"])


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(JSON_VALUES)
def test_any_json_value_is_written_byte_for_byte_as_json_writes_it(value: Any) -> None:
    try:
        wanted = expected(value)
    except UnicodeEncodeError:
        with pytest.raises(UnicodeEncodeError):
            compact_json(value)
        return
    assert compact_json(value) == wanted
    if not isinstance(value, str):  # an event's text data is sent as it is
        event = SseEvent("name", value)
        assert event.data_bytes() == wanted
        assert event.data_text() == wanted.decode()


TEXTS = [
    b'{"a":1,"b":2,"a":3}',
    b"[1e400, -1e400]",
    b"[NaN, Infinity, -Infinity]",
    b"[-0, -0.0, 1.0, 1E5, 0.1e1, 4.9e-324, 9007199254740993]",
    b"[123456789012345678901234567890, 1.7976931348623157e308]",
    b'["\\ud800", "\\ud83d\\ude00", "\\u00e9", "\xc3\xa9", "a\x7fb"]',
    b'\xef\xbb\xbf{"model": "x"}',
    '{"model": "é"}'.encode("utf-16"),
    b'["a\x01b"]',
    b"[1,]",
    b"[01]",
    b'{"a":1}x',
    b"",
    b"\xff",
]


def parsed(raw: bytes) -> tuple[str, str]:
    """``repr`` of what ``json.loads`` makes of ``raw``, or its error."""
    try:
        return "value", repr(json.loads(raw))
    except ValueError as exc:
        return type(exc).__name__, str(exc)


def test_request_bodies_are_parsed_as_json_parses_them() -> None:
    for raw in TEXTS:
        try:
            got = "value", repr(parse_json(raw))
        except ValueError as exc:
            got = type(exc).__name__, str(exc)
        assert got == parsed(raw), raw


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES, st.sampled_from([(",", ":"), (", ", ": ")]), st.booleans())
def test_any_json_text_is_parsed_as_json_parses_it(
    value: Any, separators: tuple[str, str], ascii_only: bool
) -> None:
    try:
        raw = json.dumps(value, separators=separators, ensure_ascii=ascii_only).encode()
    except UnicodeEncodeError:
        raw = json.dumps(value, separators=separators).encode()
    assert repr(parse_json(raw)) == repr(json.loads(raw))


@settings(max_examples=300, deadline=None)
@given(st.from_regex(r"-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,30})?([eE][-+]?[0-9]{1,3})?", fullmatch=True))
def test_numbers_are_read_to_the_same_value(number: str) -> None:
    raw = f'{{"n": {number}}}'.encode()
    assert repr(parse_json(raw)) == repr(json.loads(raw))
