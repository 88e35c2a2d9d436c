"""Scripted fake tools: answers by argument match, default, errors on the Nth call, latency,
NOT_FOUND, schema first, overrides of built-in fakes, and idempotent scripted writes."""

from __future__ import annotations

from typing import Any

import pytest

from fcbench.contract import Tool, make_call
from fcbench.fake_tools import (
    REGISTRY,
    FakeStore,
    FakeToolbox,
    error_code,
    is_retryable,
    scripted_registry,
)
from fcbench.fake_tools.scripted import matches
from fcbench.suite.fakes import ToolScript

WEATHER = Tool(
    name="get_weather",
    description="Current weather in a city.",
    parameters={
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "number"},
            "metric": {"type": "boolean"},
        },
        "required": ["city"],
        "additionalProperties": False,
    },
)
SEND = Tool(
    name="send_invoice",
    description="Send an invoice to a customer.",
    parameters={
        "type": "object",
        "properties": {"customer": {"type": "string"}, "amount": {"type": "number"}},
        "required": ["customer", "amount"],
        "additionalProperties": False,
    },
    side_effect="write",
)

SCRIPTS: dict[str, Any] = {
    "get_weather": {
        "responses": [
            {"when": {"city": "Paris", "days": 1}, "result": {"temp_c": 12, "days": 1}},
            {"when": {"city": "Paris", "metric": True}, "result": {"temp_c": 13}},
            {"when": {"city": "Atlantis"}, "error": {"code": "NOT_FOUND", "message": "no such city"}},
        ],
        "default": {"result": {"temp_c": 20}},
        "latency_ms": 35,
    },
    "send_invoice": {
        "responses": [
            {"when": {"customer": "blocked"}, "error": {"code": "PERMISSION_DENIED", "message": "blocked"}},
            {"when": {"customer": "acme"}, "result": {"invoice_id": "INV-1"}},
        ],
        "fail_on_call": [
            {"call": 2, "error": {"code": "TEMPORARILY_UNAVAILABLE", "message": "queue busy"}},
        ],
    },
}


def toolbox(scripts: dict[str, Any] = SCRIPTS, tools: list[Tool] | None = None) -> FakeToolbox:
    offered = tools if tools is not None else [WEATHER, SEND]
    parsed = {name: ToolScript.model_validate(script) for name, script in scripts.items()}
    return FakeToolbox(
        offered, FakeStore.fresh(), conversation_id="conv", registry=scripted_registry(parsed, offered)
    )


def test_when_is_json_equality_of_every_named_key() -> None:
    assert matches({"n": 1}, {"n": 1.0, "other": "x"})
    assert matches({"n": 1.0}, {"n": 1})
    assert not matches({"flag": True}, {"flag": 1})
    assert not matches({"n": 1}, {"n": True})
    assert not matches({"n": 1}, {"n": "1"})
    assert not matches({"city": "Paris"}, {})
    assert matches({"filter": {"a": [1, 2]}}, {"filter": {"a": [1.0, 2]}})
    assert not matches({"filter": {"a": [1, 2]}}, {"filter": {"a": [2, 1]}})
    assert matches({}, {"anything": 1})


def test_responses_in_order_then_default() -> None:
    box = toolbox()
    first = box.execute(make_call("c1", "get_weather", {"city": "Paris", "days": 1.0}))
    # a success carries its evidence (the script's source, the time it answered)
    assert {k: v for k, v in first.content.items() if k != "evidence"} == {
        "ok": True,
        "result": {"temp_c": 12, "days": 1},
    }
    assert first.content["evidence"]["source"] == "scripted:get_weather"
    # true is not 1: the first response does not hold, the second does
    second = box.execute(make_call("c2", "get_weather", {"city": "Paris", "metric": True}))
    assert second.content["result"] == {"temp_c": 13}
    atlantis = box.execute(make_call("c3", "get_weather", {"city": "Atlantis"}))
    assert error_code(atlantis.content) == "NOT_FOUND"
    assert atlantis.content["error"]["message"] == "no such city"
    assert box.execute(make_call("c4", "get_weather", {"city": "Oslo"})).content["result"] == {"temp_c": 20}
    assert box.store.side_effect_count == 0  # a read tool never counts a side effect


def test_nothing_matching_and_no_default_is_not_found() -> None:
    box = toolbox()
    run = box.execute(make_call("c1", "send_invoice", {"customer": "globex", "amount": 5}))
    assert error_code(run.content) == "NOT_FOUND"
    assert run.content["error"]["retryable"] is False
    assert any("customer" in detail for detail in run.content["error"]["details"])
    assert box.store.side_effect_count == 0


def test_fail_on_call_comes_first_and_counts_calls_of_that_tool() -> None:
    box = toolbox()
    one = box.execute(make_call("c1", "send_invoice", {"customer": "acme", "amount": 10}))
    assert one.ok and one.side_effect
    box.execute(make_call("w1", "get_weather", {"city": "Oslo"}))  # another tool's call does not count
    two = box.execute(make_call("c2", "send_invoice", {"customer": "acme", "amount": 10}))
    assert error_code(two.content) == "TEMPORARILY_UNAVAILABLE"
    assert two.content["error"]["retryable"] is True and is_retryable(two.content)
    assert not two.side_effect
    three = box.execute(make_call("c3", "send_invoice", {"customer": "acme", "amount": 10}))
    assert three.ok
    assert box.store.side_effect_count == 2


def test_an_invalid_call_counts_as_a_call_and_the_schema_is_checked_first() -> None:
    script = {
        "send_invoice": {
            "default": {"result": {"sent": True}},
            "fail_on_call": SCRIPTS["send_invoice"]["fail_on_call"],
        }
    }
    box = toolbox(script)
    invalid = box.execute(make_call("c1", "send_invoice", {"customer": "acme", "amount": "10"}))
    assert error_code(invalid.content) == "INVALID_ARGUMENTS"  # schema first, although a default exists
    assert invalid.latency_ms == 0
    # the model's second call of the tool is the one fail_on_call names
    assert error_code(
        box.execute(make_call("c2", "send_invoice", {"customer": "acme", "amount": 10})).content
    ) == ("TEMPORARILY_UNAVAILABLE")
    assert box.store.side_effect_count == 0


def test_retryable_follows_the_code_unless_the_script_says() -> None:
    script = {
        "get_weather": {
            "responses": [
                {"when": {"city": "A"}, "error": {"code": "TEMPORARILY_UNAVAILABLE"}},
                {"when": {"city": "B"}, "error": {"code": "TEMPORARILY_UNAVAILABLE", "retryable": False}},
                {
                    "when": {"city": "C"},
                    "error": {"code": "RATE_LIMITED", "retryable": True, "details": ["wait"]},
                },
                {"when": {"city": "D"}, "error": {"code": "RATE_LIMITED"}},
            ]
        }
    }
    box = toolbox(script)

    def run(city: str) -> dict[str, Any]:
        return box.execute(make_call(city, "get_weather", {"city": city})).content

    assert run("A")["error"]["retryable"] is True and is_retryable(run("A"))
    assert run("B")["error"]["retryable"] is False and not is_retryable(run("B"))
    assert run("C")["error"] == {
        "code": "RATE_LIMITED",
        "message": "",
        "details": ["wait"],
        "retryable": True,
    }
    assert is_retryable(run("C"))
    assert not is_retryable(run("D"))


def test_latency_is_carried_for_the_caller_to_wait() -> None:
    box = toolbox()
    assert box.execute(make_call("c1", "get_weather", {"city": "Oslo"})).latency_ms == 35
    assert box.execute(make_call("c2", "send_invoice", {"customer": "acme", "amount": 1})).latency_ms == 0
    unknown = box.execute(make_call("c3", "delete_everything", {}))
    assert error_code(unknown.content) == "UNKNOWN_TOOL" and unknown.latency_ms == 0


def test_a_replayed_scripted_write_returns_the_first_result_and_no_second_side_effect() -> None:
    box = toolbox()
    call = make_call("c1", "send_invoice", {"customer": "acme", "amount": 10})
    first = box.execute(call)
    again = box.execute(call)  # same conversation, call id, tool and arguments: the same key
    assert first.ok and first.side_effect and not first.replayed
    assert again.replayed and not again.side_effect
    assert again.content == first.content and again.key == first.key
    assert box.store.side_effect_count == 1 and box.store.replayed == 1
    # the redelivery kept its call number: the next new call is call 2, which fail_on_call names
    assert error_code(
        box.execute(make_call("c2", "send_invoice", {"customer": "acme", "amount": 10})).content
    ) == ("TEMPORARILY_UNAVAILABLE")
    # other arguments under the same call id are another key: executed
    other = box.execute(make_call("c1", "send_invoice", {"customer": "acme", "amount": 11}))
    assert other.ok and other.side_effect and not other.replayed
    assert box.store.side_effect_count == 2
    effect = box.store.side_effects[0]
    assert effect.tool == "send_invoice" and effect.key == first.key
    assert effect.change["arguments"] == {"customer": "acme", "amount": 10}


def test_failed_scripted_writes_make_no_side_effect_and_transient_ones_are_not_remembered() -> None:
    box = toolbox()
    blocked = make_call("c1", "send_invoice", {"customer": "blocked", "amount": 1})
    assert error_code(box.execute(blocked).content) == "PERMISSION_DENIED"
    replay = box.execute(blocked)  # a final failure is remembered and replayed
    assert replay.replayed and error_code(replay.content) == "PERMISSION_DENIED"
    busy = make_call("c2", "send_invoice", {"customer": "acme", "amount": 1})
    assert error_code(box.execute(busy).content) == "TEMPORARILY_UNAVAILABLE"
    redelivered = box.execute(busy)  # not remembered: executed again, as the same (second) call
    assert not redelivered.replayed and error_code(redelivered.content) == "TEMPORARILY_UNAVAILABLE"
    assert box.store.side_effect_count == 0


def test_whether_a_scripted_tool_writes_comes_from_the_offered_tool() -> None:
    read_send = SEND.model_copy(update={"side_effect": "read"})
    box = toolbox(tools=[WEATHER, read_send])
    call = make_call("c1", "send_invoice", {"customer": "acme", "amount": 10})
    assert box.execute(call).ok and box.execute(call).ok
    assert box.store.side_effect_count == 0 and box.store.replayed == 0
    assert not box.writes("send_invoice")
    assert toolbox().writes("send_invoice")


def test_a_script_overrides_the_builtin_fake_and_the_others_stay(builtin_tools: dict[str, Tool]) -> None:
    tools = list(builtin_tools.values())
    script = {
        "create_refund": ToolScript.model_validate({"default": {"result": {"refund_id": "R-SCRIPTED"}}})
    }
    registry = scripted_registry(script, tools)
    assert registry["lookup_order"] is REGISTRY["lookup_order"]
    assert registry["create_refund"] is not REGISTRY["create_refund"]
    box = FakeToolbox(tools, FakeStore.fresh(), conversation_id="c", registry=registry)
    assert box.writes("create_refund")  # the offered tool says write
    # ORD-002 is unpaid: the built-in fake would answer CONFLICT; the script answers instead
    run = box.execute(make_call("c1", "create_refund", {"order_id": "ORD-002", "reason": "changed mind"}))
    assert {k: v for k, v in run.content.items() if k != "evidence"} == {
        "ok": True,
        "result": {"refund_id": "R-SCRIPTED"},
    }
    assert run.content["evidence"]["source"] == "scripted:create_refund"
    assert run.side_effect and box.store.side_effect_count == 1
    assert box.store.orders["ORD-002"].get("refunded_cents", 0) == 0  # the data set is untouched
    # the built-in fakes still answer their tools
    assert box.execute(make_call("c2", "query_order", {"order_id": "ORD-002"})).ok
    assert scripted_registry({}, tools) is REGISTRY


@pytest.mark.parametrize("when", [{"city": "Paris", "days": 1}, {"days": 1.0, "city": "Paris"}])
def test_key_order_and_number_form_do_not_matter(when: dict[str, Any]) -> None:
    script = {"get_weather": {"responses": [{"when": when, "result": {"hit": True}}]}}
    run = toolbox(script).execute(make_call("c1", "get_weather", {"days": 1, "city": "Paris"}))
    assert run.content["result"] == {"hit": True}
