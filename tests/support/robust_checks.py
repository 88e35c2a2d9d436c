"""Shared assertions: what an adapter may return for any input, and hypothesis settings for CI."""

from __future__ import annotations

import json
import typing
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, settings

from fcbench.adapters.base import ParsedTurn
from fcbench.contract import (
    ANOMALY_CODES,
    ProviderErrorCode,
    ProviderErrorOutcome,
    RefusalOutcome,
    TextOutcome,
    ToolCallsOutcome,
    parse_outcome,
)
from fcbench.errors import FcbenchError

KNOWN_ERROR_CODES = frozenset(typing.get_args(ProviderErrorCode))
"""Every canonical provider error code."""

FUZZ = settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
"""Modest, reproducible fuzzing: the same examples on every machine, no example database."""


def check_turn(turn: Any) -> None:
    """``turn`` is a canonical turn: a known outcome kind, documented anomalies, JSON-representable."""
    assert isinstance(turn, ParsedTurn), type(turn)
    outcome = turn.outcome
    assert isinstance(outcome, ToolCallsOutcome | TextOutcome | RefusalOutcome | ProviderErrorOutcome)
    if isinstance(outcome, ProviderErrorOutcome):
        assert outcome.code in KNOWN_ERROR_CODES, outcome.code
        assert outcome.message.strip(), "a provider error must say what was wrong"
    if isinstance(outcome, ToolCallsOutcome):
        assert outcome.calls, "a tool_calls outcome needs at least one call"
        for call in outcome.calls:
            assert isinstance(call.name, str)
            assert (call.parse_error is None) or call.arguments is None
    for item in turn.anomalies:
        assert item.code in ANOMALY_CODES, item.code
    # The outcome is canonical data: it re-validates from its own dump and is JSON-representable
    # (ASCII escapes keep even lone surrogates representable; the transport makes them storable).
    again = parse_outcome(outcome.model_dump())
    assert json.dumps(again.model_dump(), ensure_ascii=True) == json.dumps(
        outcome.model_dump(), ensure_ascii=True
    )
    json.dumps(turn.model_dump(), ensure_ascii=True)


def allowed(call: Callable[[], Any]) -> Any:
    """Run ``call``: a canonical turn is checked, an FcbenchError needs a message, nothing else may escape."""
    try:
        result = call()
    except FcbenchError as exc:
        assert str(exc).strip(), "an FcbenchError must say what was wrong"
        return exc
    check_turn(result)
    return result
