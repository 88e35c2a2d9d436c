"""One fault taxonomy across dialects: every mock fault, every dialect, streamed and not, over HTTP.

Each test sends one real request through the runner's path (:func:`fcbench.run.observe.observe_single_turn`:
adapter ``build_request`` -> ``Transport.exchange`` -> adapter parser -> grader) to the mock provider,
with one fault forced by the ``X-Fcbench-Fault`` header and no retries, so the fault itself is what
gets classified. A fault must get the same provider-error code in every dialect (the table in the
:mod:`fcbench.transport` docstring, which is checked against :data:`EXPECTED` here), and the grader
must leave it ``not_scored``: a corrupted or cut wire is never the model's unparseable arguments or
text. Faults that are not errors (``slow_first_byte``, ``split_args``), and stream faults sent with
a non-streamed request, must give exactly the fault-free outcome and verdict.

The last tests corrupt recorded streams event by event, without HTTP: any single event whose data
is not a JSON object is ``bad_response`` in every dialect, while a well-formed event of an unknown
type stays an ``unknown_event`` anomaly on a scored turn.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

import fcbench.transport
from fcbench import Verdict, adapters, grade, normalised_outcome_key
from fcbench.contract import ProviderErrorOutcome
from fcbench.endpoints import Endpoint
from fcbench.mock.faults import FAULT_HEADER, FAULT_NAMES
from fcbench.mock.server import base_urls
from fcbench.pricing import PriceTable
from fcbench.run.observe import ObservationContext, observe_single_turn
from fcbench.run.plan import Planned, Target
from fcbench.schema.validate import ValidatorCache
from fcbench.store.records import Record
from fcbench.suite.loader import Suite, load_suite
from fcbench.transport import RetryPolicy, Transport

EXPECTED: dict[str, str | None] = {
    "rate_limit": "rate_limited",
    "server_error": "server",
    "overload": "overloaded",
    "auth_error": "auth",
    "slow_first_byte": None,
    "timeout": "timeout",
    "stream_cut": "bad_response",
    "stream_error": "overloaded",  # the in-stream error event the mock sends is an overload
    "malformed_json": "bad_response",
    "split_args": None,
    "huge_body": "too_large",
    "gzip_bomb": "too_large",
}
"""Mock fault -> the provider-error code every dialect must give it (None: not an error)."""

STREAM_ONLY = frozenset({"stream_error", "split_args"})
"""Faults the mock applies to streams only: a non-streamed request is answered as if fault-free."""
BODY_ONLY = frozenset({"huge_body", "gzip_bomb"})
"""Faults the mock applies to non-streamed bodies only: a stream is answered as if fault-free."""

HEADER_VALUE = {
    "rate_limit": "rate_limit=0",
    "slow_first_byte": "slow_first_byte=50",
    "timeout": "timeout=5",
    "huge_body": "huge_body=40",
}
"""Fault header values: no long retry hint, a short delay, a hang longer than the client timeout."""

CLIENT_TIMEOUT_S = 10.0
HANG_TIMEOUT_S = 0.5
"""Client timeout of the ``timeout`` fault (the mock hangs 5 s, so the client gives up first)."""

MODEL = "sim-careful"
CASES = ("types-01", "abstain-01")
"""A tool-expected case (four arguments) and a text-expected one."""

MODEL_CODES = frozenset({"unparseable_arguments", "empty_arguments", "arguments_not_object"})
"""Anomalies of a model's arguments: a wire fault must never produce them."""


SUITE: Suite = load_suite("core")


def _endpoint(mock_server: str, dialect: str) -> Endpoint:
    urls = base_urls(mock_server)
    if dialect not in urls:
        pytest.skip(f"the mock provider does not speak {dialect!r}")
    return Endpoint(name=f"taxonomy-{dialect}", dialect=dialect, base_url=urls[dialect], key_required=False)


def observe(
    mock_server: str, dialect: str, stream: bool, case_id: str, fault: str | None, timeout_s: float
) -> Record:
    """One observation of ``case_id`` (mode ``stream`` or ``selection``) with the ``X-Fcbench-Fault``
    value ``fault`` (None: no fault)."""
    headers = {FAULT_HEADER: fault} if fault else {}

    async def go() -> Record:
        transport = Transport(timeout_s=timeout_s, retry=RetryPolicy(max_retries=0))
        ctx = ObservationContext(
            run_id="fault-taxonomy",
            suite=SUITE,
            transport=transport,
            prices=PriceTable({}),
            validators=ValidatorCache(),
            api_keys={f"taxonomy-{dialect}": "sim-key"},
            temperature=0.0,
            max_tokens=256,
            seed=7,
            headers=lambda planned, turn: headers,
        )
        target = Target(_endpoint(mock_server, dialect), MODEL)
        mode = "stream" if stream else "selection"
        planned = Planned(seq=0, target=target, case=SUITE.case(case_id), repeat=0, mode=mode)
        try:
            return (await observe_single_turn(ctx, planned))()
        finally:
            await transport.aclose()

    return asyncio.run(go())


_CLEAN: dict[tuple[str, bool, str], Record] = {}


def clean(mock_server: str, dialect: str, stream: bool, case_id: str) -> Record:
    """The fault-free observation (cached per dialect, streaming and case)."""
    key = (dialect, stream, case_id)
    if key not in _CLEAN:
        _CLEAN[key] = observe(mock_server, dialect, stream, case_id, None, CLIENT_TIMEOUT_S)
    return _CLEAN[key]


def _verdict(record: Record) -> Verdict:
    assert record.verdict is not None
    return record.verdict


def _summary(record: Record) -> dict[str, Any]:
    """What the model is scored on, without the call ids the mock derives per request."""
    return {
        "key": normalised_outcome_key(record.outcome, _verdict(record)),
        "verdict": _verdict(record).model_dump(),
        "anomalies": sorted(a.code for a in record.anomalies),
    }


@pytest.mark.parametrize("case_id", CASES)
@pytest.mark.parametrize("fault", FAULT_NAMES)
@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("dialect", adapters.dialects())
def test_every_fault_is_classified_the_same_in_every_dialect(
    mock_server: str, dialect: str, stream: bool, fault: str, case_id: str
) -> None:
    baseline = clean(mock_server, dialect, stream, case_id)
    assert baseline.outcome.kind != "provider_error", baseline.outcome
    assert _verdict(baseline).passed, _verdict(baseline).reasons
    timeout_s = HANG_TIMEOUT_S if fault == "timeout" else CLIENT_TIMEOUT_S
    record = observe(mock_server, dialect, stream, case_id, HEADER_VALUE.get(fault, fault), timeout_s)
    assert record.attempts == 1
    skipped = (fault in STREAM_ONLY and not stream) or (fault in BODY_ONLY and stream)
    expected = None if skipped else EXPECTED[fault]
    if expected is None:
        assert _summary(record) == _summary(baseline)
        return
    assert isinstance(record.outcome, ProviderErrorOutcome), (
        f"{dialect} {'stream' if stream else 'json'} {fault}: scored as the model's "
        f"{record.outcome.kind} (anomalies {[a.code for a in record.anomalies]})"
    )
    assert record.outcome.code == expected, record.outcome.message
    assert not MODEL_CODES & {a.code for a in record.anomalies}
    assert _verdict(record).decision == "not_scored" and not _verdict(record).passed
    verdict = grade(SUITE.case(case_id), record.outcome, SUITE.tools_for(SUITE.case(case_id)))
    assert verdict.decision == "not_scored" and not verdict.passed


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("dialect", adapters.dialects())
def test_a_gateway_timeout_answer_is_a_timeout_in_every_dialect(
    mock_server: str, dialect: str, stream: bool
) -> None:
    """The ``timeout`` fault with a hang shorter than the client's patience: the mock answers 504."""
    record = observe(mock_server, dialect, stream, CASES[0], "timeout=0.05", CLIENT_TIMEOUT_S)
    assert isinstance(record.outcome, ProviderErrorOutcome), record.outcome
    assert (record.outcome.code, record.outcome.status) == ("timeout", 504)
    assert _verdict(record).decision == "not_scored"


# -- the documented table ----------------------------------------------------------------------------

_FAULT_CELL = re.compile(r"^``(?P<fault>[a-z_]+)``$")


def test_the_transport_docstring_documents_this_taxonomy() -> None:
    rows = {}
    for line in (fcbench.transport.__doc__ or "").splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        match = _FAULT_CELL.match(cells[0])
        if match and len(cells) == 3:
            rows[match["fault"]] = cells[-1]
    documented = {
        fault: ("none: scored" if code is None else f"``{code}``") for fault, code in EXPECTED.items()
    }
    documented["stream_error"] = "the event's code"
    assert rows == documented
    assert set(EXPECTED) == set(FAULT_NAMES)


# -- corrupted events, without HTTP ------------------------------------------------------------------


def _events(record: Record) -> list[tuple[str | None, str]]:
    return [(name, data) for name, data in record.raw["response"]["events"]]


def _cut(data: str) -> str:
    text = data.strip()
    return text[: max(1, len(text) // 2)]


@pytest.mark.parametrize("case_id", CASES)
@pytest.mark.parametrize("dialect", adapters.dialects())
def test_any_single_corrupted_event_is_a_bad_response(mock_server: str, dialect: str, case_id: str) -> None:
    baseline = clean(mock_server, dialect, True, case_id)
    events = _events(baseline)
    adapter = adapters.get(dialect)
    offered = [tool.name for tool in SUITE.tools_for(SUITE.case(case_id))]
    assert adapter.parse_stream(events, offered).outcome.kind == baseline.outcome.kind
    positions = [i for i, (_, data) in enumerate(events) if data.strip()]
    assert positions
    for position in positions:
        broken = list(events)
        name, data = broken[position]
        broken[position] = (name, _cut(data))
        turn = adapter.parse_stream(broken, offered)
        assert isinstance(turn.outcome, ProviderErrorOutcome), (position, data, turn.outcome)
        assert turn.outcome.code == "bad_response", (position, turn.outcome)
        for not_an_object in ("[1, 2]", '"text"', "42"):
            broken[position] = (name, not_an_object)
            turn = adapter.parse_stream(broken, offered)
            assert isinstance(turn.outcome, ProviderErrorOutcome), (position, not_an_object, turn.outcome)
            assert turn.outcome.code == "bad_response"


UNKNOWN_EVENTS: dict[str, tuple[int, tuple[str | None, str]]] = {
    "anthropic-messages": (1, ("mystery_event", json.dumps({"type": "mystery_event"}))),
    "bedrock-converse": (1, ("mysteryEvent", json.dumps({"p": "abc"}))),
    "gemini-interactions": (1, (None, json.dumps({"event_type": "interaction.mystery"}))),
    "gemini": (1, ("mystery_event", json.dumps({"candidates": []}))),
    "openai-chat": (-1, (None, json.dumps({"object": "late"}))),  # after [DONE]
    "openai-responses": (1, ("response.mystery", json.dumps({"type": "response.mystery"}))),
}
"""A well-formed event of a type the dialect does not know, and where to put it (-1: at the end)."""


def test_every_dialect_has_an_unknown_event() -> None:
    assert sorted(UNKNOWN_EVENTS) == adapters.dialects()


@pytest.mark.parametrize("dialect", sorted(UNKNOWN_EVENTS))
def test_a_well_formed_unknown_event_stays_an_anomaly(mock_server: str, dialect: str) -> None:
    baseline = clean(mock_server, dialect, True, CASES[0])
    events = _events(baseline)
    position, extra = UNKNOWN_EVENTS[dialect]
    events.insert(len(events) if position < 0 else position, extra)
    offered = [tool.name for tool in SUITE.tools_for(SUITE.case(CASES[0]))]
    turn = adapters.get(dialect).parse_stream(events, offered)
    assert turn.outcome == baseline.outcome
    assert [a.code for a in turn.anomalies] == ["unknown_event"]
