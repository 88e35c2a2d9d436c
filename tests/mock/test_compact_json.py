"""The mock's fast JSON encoding writes exactly the bytes ``json`` writes, whatever the value.

Replies and stream events are encoded by msgspec when that gives json's bytes, and by json when it
does not (floats json writes with an exponent, ``NaN``, ``Infinity``, keys and integers msgspec
cannot take). Any difference would change a simulated model's replies.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.mock.common import COMPACT_JSON, SseEvent, compact_json


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
