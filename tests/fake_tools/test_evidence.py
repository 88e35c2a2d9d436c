"""Evidence on fake-tool results (``{"source", "retrieved_at"}``) and the result envelopes of the
conversation limits: a call not executed (``LIMIT_EXCEEDED``) and a result too large (truncated)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from datetime import datetime

import pytest

from fcbench.contract import Tool, ToolCall, canonical_json
from fcbench.fake_tools import (
    ERROR_CODES,
    LIMIT_EXCEEDED,
    FakeStore,
    FakeToolbox,
    error_code,
    fail,
    is_ok,
    is_retryable,
    limit_exceeded,
    ok,
    result_bytes,
    scripted_registry,
    truncated,
    utc_now,
    with_evidence,
)
from fcbench.suite.fakes import ToolScript

Call = Callable[..., ToolCall]


def ticking() -> Callable[[], str]:
    """A clock answering a new fixed second at each reading."""
    seconds = itertools.count()
    return lambda: f"2026-01-05T09:30:{next(seconds):02d}.000Z"


def test_a_builtin_success_carries_its_evidence(builtin_tools: dict[str, Tool], call: Call) -> None:
    box = FakeToolbox(list(builtin_tools.values()), FakeStore.fresh(), conversation_id="c", clock=ticking())
    run = box.execute(call("lookup_order", {"order_id": "ORD-104821"}))
    assert run.content["ok"] is True and run.content["result"]["order"]["order_id"] == "ORD-104821"
    assert run.content["evidence"] == {
        "source": "fake:lookup_order",
        "retrieved_at": "2026-01-05T09:30:00.000Z",
    }


def test_the_default_clock_is_rfc3339_utc(toolbox: FakeToolbox, call: Call) -> None:
    stamp = toolbox.execute(call("lookup_order", {"order_id": "ORD-104821"})).content["evidence"][
        "retrieved_at"
    ]
    assert stamp.endswith("Z") and len(stamp) == len("2026-01-05T09:30:00.000Z")
    parsed = datetime.fromisoformat(stamp)
    assert parsed.utcoffset() is not None and parsed.utcoffset().total_seconds() == 0
    assert utc_now() >= stamp  # the same format sorts by time


def test_failures_carry_no_evidence(toolbox: FakeToolbox, call: Call) -> None:
    for arguments in ({"order_id": "ORD-999999"}, {"order_id": 5}):
        run = toolbox.execute(call("lookup_order", arguments))
        assert not run.ok and "evidence" not in run.content
    assert "evidence" not in toolbox.execute(call("no_such_tool", {})).content


def test_a_replayed_write_keeps_the_first_evidence(builtin_tools: dict[str, Tool], call: Call) -> None:
    box = FakeToolbox(list(builtin_tools.values()), FakeStore.fresh(), conversation_id="c", clock=ticking())
    refund = call("create_refund", {"order_id": "ORD-007", "amount": 10, "reason": "late"}, id="r1")
    first, again = box.execute(refund), box.execute(refund)
    assert again.replayed and again.content == first.content  # byte for byte, evidence included
    assert first.content["evidence"]["source"] == "fake:create_refund"
    assert first.content["evidence"]["retrieved_at"] == "2026-01-05T09:30:00.000Z"


WEATHER = Tool(
    name="get_weather",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


@pytest.mark.parametrize(
    ("script", "source"),
    [
        ({"default": {"result": {"temp_c": 20}}}, "scripted:get_weather"),
        ({"default": {"result": {"temp_c": 20}}, "evidence_source": "weather-api"}, "weather-api"),
    ],
)
def test_a_scripted_success_carries_the_scripts_source(
    script: dict[str, object], source: str, call: Call
) -> None:
    registry = scripted_registry({"get_weather": ToolScript.model_validate(script)}, [WEATHER])
    box = FakeToolbox([WEATHER], FakeStore.fresh(), conversation_id="c", registry=registry, clock=ticking())
    run = box.execute(call("get_weather", {"city": "Paris"}))
    assert run.content == {
        "ok": True,
        "result": {"temp_c": 20},
        "evidence": {"source": source, "retrieved_at": "2026-01-05T09:30:00.000Z"},
    }


def test_a_scripted_error_carries_no_evidence(call: Call) -> None:
    script = ToolScript.model_validate({"default": {"error": {"code": "NOT_FOUND", "message": "no"}}})
    registry = scripted_registry({"get_weather": script}, [WEATHER])
    box = FakeToolbox([WEATHER], FakeStore.fresh(), conversation_id="c", registry=registry)
    assert "evidence" not in box.execute(call("get_weather", {"city": "Paris"})).content


def test_with_evidence_leaves_failures_and_stamped_results_alone() -> None:
    failure = fail("NOT_FOUND", "missing")
    assert with_evidence(failure, "s", "t") is failure
    stamped = with_evidence(ok({"a": 1}), "first", "t1")
    assert with_evidence(stamped, "second", "t2") is stamped


def test_limit_exceeded_is_a_retryable_failure_outside_the_fake_tools_codes() -> None:
    envelope = limit_exceeded(10, 8)
    assert error_code(envelope) == LIMIT_EXCEEDED and is_retryable(envelope) and not is_ok(envelope)
    assert "10 tool calls" in envelope["error"]["message"] and "at most 8" in envelope["error"]["message"]
    assert LIMIT_EXCEEDED not in ERROR_CODES  # only the conversation loop answers it


def test_a_result_within_the_limit_is_not_truncated() -> None:
    small = with_evidence(ok({"rows": ["a"] * 10}), "fake:t", "2026-01-05T09:30:00.000Z")
    assert truncated(small, 1024) is None
    assert truncated(small, result_bytes(small)) is None  # exactly at the limit is within it


@pytest.mark.parametrize("row", ["paid 12.00 EUR", 'quote " and \\ backslash', "é€😀 non-ASCII", "\x01\x02"])
def test_a_large_success_is_cut_to_the_limit(row: str) -> None:
    big = with_evidence(ok({"rows": [row] * 2000}), "fake:export", "2026-01-05T09:30:00.000Z")
    size = result_bytes(big)
    cut = truncated(big, 2048)
    assert cut is not None
    assert result_bytes(cut) <= 2048 and result_bytes(cut) > 2048 - 64  # cut close to the limit
    assert (cut["ok"], cut["truncated"], cut["original_bytes"], cut["max_result_bytes"]) == (
        True,
        True,
        size,
        2048,
    )
    assert cut["evidence"] == big["evidence"]
    assert canonical_json(big).startswith(cut["partial"]) and cut["partial"]
    json.dumps(cut)  # plain JSON


def test_a_large_failure_keeps_its_code_and_retryability() -> None:
    big = fail("TEMPORARILY_UNAVAILABLE", "busy", ["x" * 100] * 100)
    cut = truncated(big, 1024)
    assert cut is not None and result_bytes(cut) <= 1024
    assert not is_ok(cut) and error_code(cut) == "TEMPORARILY_UNAVAILABLE" and is_retryable(cut)
    assert "evidence" not in cut
