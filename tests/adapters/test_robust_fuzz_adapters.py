"""Every adapter's parsers survive damaged real payloads and arbitrary JSON.

Allowed results: a canonical turn (any outcome kind, documented anomalies, a known provider error
code such as ``bad_response``), or an :class:`~fcbench.errors.FcbenchError` with a message. Any other
exception fails the test. Inputs start from real recorded traffic (``tests/fixtures/wire``).
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from robust_checks import FUZZ, allowed
from robust_wire import (
    NASTY_STRINGS,
    arbitrary_json,
    bodies,
    damaged_json,
    damaged_stream,
    streams,
    vocabulary,
)

from fcbench import adapters
from fcbench.contract import ProviderErrorOutcome

DIALECTS = sorted(adapters.BUILTIN_ADAPTERS)
OFFERED = ["get_weather", "lookup_order", "secret_retrieval_tool", "get_country"]


def test_every_dialect_has_recorded_bodies_and_streams() -> None:
    for dialect in DIALECTS:
        assert bodies(dialect), dialect
        assert streams(dialect), dialect


@pytest.mark.parametrize("dialect", DIALECTS)
def test_unharmed_recordings_parse(dialect: str) -> None:
    adapter = adapters.get(dialect)
    for body in bodies(dialect):
        allowed(lambda body=body: adapter.parse_response(body, OFFERED))
    for events in streams(dialect):
        allowed(lambda events=events: adapter.parse_stream(list(events), OFFERED))


@pytest.mark.parametrize("dialect", DIALECTS)
def test_parse_response_on_damaged_recordings(dialect: str) -> None:
    adapter = adapters.get(dialect)

    @FUZZ
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        body = data.draw(st.sampled_from(bodies(dialect)))
        damaged = data.draw(damaged_json(body, dialect))
        offered = data.draw(st.one_of(st.none(), st.just(OFFERED)))
        allowed(lambda: adapter.parse_response(damaged, offered))

    run()


@pytest.mark.parametrize("dialect", DIALECTS)
def test_parse_stream_on_damaged_recordings(dialect: str) -> None:
    adapter = adapters.get(dialect)

    @FUZZ
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        events = data.draw(st.sampled_from(streams(dialect)))
        damaged = data.draw(damaged_stream(events, dialect))
        allowed(lambda: adapter.parse_stream(damaged, OFFERED))

    run()


@pytest.mark.parametrize("dialect", DIALECTS)
def test_parse_response_on_arbitrary_json(dialect: str) -> None:
    adapter = adapters.get(dialect)

    @FUZZ
    @given(body=arbitrary_json(dialect))
    def run(body: dict[str, Any]) -> None:
        allowed(lambda: adapter.parse_response(body, OFFERED))

    run()


@pytest.mark.parametrize("dialect", DIALECTS)
def test_parse_stream_on_arbitrary_events(dialect: str) -> None:
    adapter = adapters.get(dialect)
    words = vocabulary(dialect)
    names = st.one_of(st.none(), st.sampled_from(words), st.text(max_size=12))
    data_texts = st.one_of(
        arbitrary_json(dialect).map(json.dumps),
        st.sampled_from(NASTY_STRINGS),
        st.just("[DONE]"),
        st.text(max_size=40),
    )

    @FUZZ
    @given(events=st.lists(st.tuples(names, data_texts), max_size=12))
    def run(events: list[tuple[str | None, str]]) -> None:
        allowed(lambda: adapter.parse_stream(events, OFFERED))

    run()


@pytest.mark.parametrize("dialect", DIALECTS)
def test_error_bodies_and_retry_hints_never_raise(dialect: str) -> None:
    adapter = adapters.get(dialect)
    error_bodies = [b for b in bodies(dialect, ok_only=False) if isinstance(b, dict) and "error" in b]
    body_strategy = st.one_of(
        arbitrary_json(dialect),
        st.sampled_from(error_bodies).flatmap(lambda b: damaged_json(b, dialect))
        if error_bodies
        else st.none(),
        st.text(max_size=60),
        st.binary(max_size=60),
        st.none(),
    )
    hint_values = st.one_of(
        st.sampled_from(["1", "0", "-5", "nan", "inf", "1e400", "Wed, 21 Oct 2015 07:28:00 GMT", "soon", ""]),
        st.text(max_size=12),
    )
    header_strategy = st.dictionaries(
        st.sampled_from(["retry-after", "retry-after-ms", "content-type", "x-request-id"]),
        hint_values,
        max_size=3,
    )

    @FUZZ
    @given(status=st.integers(min_value=100, max_value=599), body=body_strategy, headers=header_strategy)
    def run(status: int, body: Any, headers: dict[str, str]) -> None:
        error = adapter.parse_error(status, body, headers)
        assert isinstance(error, ProviderErrorOutcome)
        allowed(lambda: _as_turn(error))
        hint = adapter.retry_after_seconds(status, body, headers)
        assert hint is None or (isinstance(hint, float | int) and not math.isnan(hint) and hint >= 0), hint

    run()


def _as_turn(error: ProviderErrorOutcome) -> Any:
    from fcbench.adapters.base import ParsedTurn

    return ParsedTurn(outcome=error)
