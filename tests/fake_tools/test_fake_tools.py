"""The fake tools: schema validation first, every error code, business rules, idempotent writes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from fcbench.contract import Tool, ToolCall, make_call
from fcbench.errors import CaseError
from fcbench.fake_tools import (
    ERROR_CODES,
    REGISTRY,
    FakeStore,
    FakeToolbox,
    error_code,
    idempotency_key,
    is_retryable,
    load_dataset,
)
from fcbench.suite.loader import load_suite

Call = Callable[..., ToolCall]


def code(toolbox: FakeToolbox, call: ToolCall) -> str | None:
    return error_code(toolbox.execute(call).content)


SUCCEEDING_CALLS = {
    "lookup_order": {"order_id": "ORD-104821"},
    "search_orders": {"email": "SAM@example.test", "status": "shipped"},
    "get_shipping_quote": {"country_code": "US", "postal_code": "02139", "weight_grams": 750},
    "query_order": {"status": "pending"},
    "cancel_order": {"order_id": "ORD-009", "reason": "wrong item"},
    "create_refund": {"order_id": "ORD-004", "reason": "broken", "amount": 10},
}
"""One call of each built-in tool that its fake answers with a success."""


def test_the_builtin_suites_declare_write_on_the_tools_whose_fakes_change_the_store(
    builtin_tools: dict[str, Tool], call: Call
) -> None:
    assert set(builtin_tools) <= set(REGISTRY) == set(SUCCEEDING_CALLS)
    for name, tool in builtin_tools.items():
        box = FakeToolbox([tool], FakeStore.fresh(), conversation_id="c")
        run = box.execute(call(name, SUCCEEDING_CALLS[name]))
        assert run.ok, (name, run.content)
        assert run.side_effect == (tool.side_effect == "write") == box.writes(name), name


def test_a_builtin_fake_offered_as_read_is_no_write(builtin_tools: dict[str, Tool], call: Call) -> None:
    read_refund = builtin_tools["create_refund"].model_copy(update={"side_effect": "read"})
    box = FakeToolbox([read_refund], FakeStore.fresh(), conversation_id="c")
    assert not box.writes("create_refund")
    refund = call("create_refund", SUCCEEDING_CALLS["create_refund"])
    first, again = box.execute(refund), box.execute(refund)
    assert first.key is None and not again.replayed  # no idempotency table for a read


def test_schema_is_checked_before_anything_runs(toolbox: FakeToolbox, call: Call) -> None:
    run = toolbox.execute(call("lookup_order", {"order_id": "ORD-10482"}))
    assert run.content["ok"] is False
    error = run.content["error"]
    assert error["code"] == "INVALID_ARGUMENTS"
    assert error["retryable"] is False
    assert any("order_id" in detail and "does not match" in detail for detail in error["details"])
    # no coercion: a number where a string is due is rejected, not converted
    assert code(
        toolbox, call("get_shipping_quote", {"country_code": "US", "postal_code": 2139, "weight_grams": 750})
    ) == ("INVALID_ARGUMENTS")
    assert code(
        toolbox,
        call("get_shipping_quote", {"country_code": "US", "postal_code": "02139", "weight_grams": "750"}),
    ) == ("INVALID_ARGUMENTS")
    extra = toolbox.execute(call("cancel_order", {"order_id": "ORD-002", "force": True}))
    assert error_code(extra.content) == "INVALID_ARGUMENTS"
    assert toolbox.store.side_effect_count == 0
    assert toolbox.store.orders["ORD-002"]["status"] == "pending"


def test_unparseable_and_non_object_arguments(toolbox: FakeToolbox) -> None:
    broken = make_call("c1", "lookup_order", '{"order_id": "ORD-1048')
    run = toolbox.execute(broken)
    assert error_code(run.content) == "INVALID_ARGUMENTS"
    assert "not valid JSON" in run.content["error"]["details"][0]
    assert code(toolbox, make_call("c2", "lookup_order", "[1, 2]")) == "INVALID_ARGUMENTS"


def test_unknown_and_unimplemented_tools(builtin_tools: dict[str, Tool], call: Call) -> None:
    extra = Tool(name="delete_order", parameters={"type": "object", "properties": {}}, side_effect="write")
    box = FakeToolbox([builtin_tools["lookup_order"], extra], FakeStore.fresh(), conversation_id="c")
    assert code(box, call("create_refund", {"order_id": "ORD-001", "reason": "x"})) == "UNKNOWN_TOOL"
    assert code(box, call("delete_order", {})) == "NOT_IMPLEMENTED"
    assert box.writes("delete_order") and not box.writes("lookup_order")


def test_lookup_search_and_query_succeed(toolbox: FakeToolbox, call: Call) -> None:
    run = toolbox.execute(call("lookup_order", {"order_id": "ORD-104821"}))
    assert run.ok
    order = run.content["result"]["order"]
    assert order["status"] == "shipped" and order["total"] == 59.9
    found = toolbox.execute(call("search_orders", {"email": "SAM@example.test", "status": "shipped"}))
    assert [o["order_id"] for o in found.content["result"]["orders"]] == ["ORD-104821"]
    limited = toolbox.execute(call("search_orders", {"email": "sam@example.test", "limit": 2}))
    assert limited.content["result"]["count"] == 4
    assert len(limited.content["result"]["orders"]) == 2 and limited.content["result"]["truncated"] is True
    one = toolbox.execute(call("query_order", {"order_id": "ORD-013"}))
    assert one.content["result"]["orders"][0]["refunded"] is True
    pending = toolbox.execute(call("query_order", {"status": "pending"}))
    ids = [o["order_id"] for o in pending.content["result"]["orders"]]
    assert ids == ["ORD-002", "ORD-009", "ORD-012", "ORD-015"]


def test_not_found_codes(toolbox: FakeToolbox, call: Call) -> None:
    assert code(toolbox, call("lookup_order", {"order_id": "ORD-999999"})) == "NOT_FOUND"
    assert code(toolbox, call("search_orders", {"email": "nobody@example.test"})) == "NOT_FOUND"
    assert code(toolbox, call("query_order", {"order_id": "ORD-099"})) == "NOT_FOUND"
    assert code(toolbox, call("create_refund", {"order_id": "ORD-099", "reason": "x"})) == "NOT_FOUND"
    quote = {"country_code": "ZZ", "postal_code": "1", "weight_grams": 10}
    assert code(toolbox, call("get_shipping_quote", quote)) == "NOT_FOUND"


def test_shipping_quote_rules_and_prices(toolbox: FakeToolbox, call: Call) -> None:
    lost_zero = {"country_code": "US", "postal_code": "2139", "weight_grams": 750}
    run = toolbox.execute(call("get_shipping_quote", lost_zero))
    assert error_code(run.content) == "INVALID_ARGUMENTS"
    assert "leading zeros" in run.content["error"]["details"][0]
    base = {"country_code": "US", "postal_code": "02139", "weight_grams": 750}
    standard = toolbox.execute(call("get_shipping_quote", base)).content["result"]
    express = toolbox.execute(call("get_shipping_quote", base | {"service": "express"})).content["result"]
    assert standard["price"] == {"amount": 8.99, "currency": "USD"}  # 5.99 + 2 started 500 g steps of 1.50
    assert express["price"] == {"amount": 16.18, "currency": "USD"}  # x 1.8
    assert express["delivery_days"] == {"min": 1, "max": 2}
    again = toolbox.execute(call("get_shipping_quote", base, id="other")).content["result"]
    assert again == standard


def test_conflicts_on_write_tools(toolbox: FakeToolbox, call: Call) -> None:
    unpaid = toolbox.execute(call("create_refund", {"order_id": "ORD-012", "reason": "changed my mind"}))
    assert error_code(unpaid.content) == "CONFLICT"
    assert "nothing to refund" in unpaid.content["error"]["message"]
    assert (
        code(toolbox, call("create_refund", {"order_id": "ORD-013", "reason": "again"}, id="c2"))
        == "CONFLICT"
    )
    assert code(toolbox, call("cancel_order", {"order_id": "ORD-001"}, id="c3")) == "CONFLICT"
    assert code(toolbox, call("cancel_order", {"order_id": "ORD-003"}, id="c4")) == "CONFLICT"
    assert toolbox.store.side_effect_count == 0


def test_permission_denied_for_held_orders(toolbox: FakeToolbox, call: Call) -> None:
    refund = toolbox.execute(call("create_refund", {"order_id": "ORD-016", "reason": "faulty"}))
    assert error_code(refund.content) == "PERMISSION_DENIED"
    assert not is_retryable(refund.content)
    assert code(toolbox, call("query_order", {"order_id": "ORD-016"}, id="c2")) is None


def test_temporarily_unavailable_then_success(toolbox: FakeToolbox, call: Call) -> None:
    first = toolbox.execute(call("query_order", {"order_id": "ORD-018"}))
    assert error_code(first.content) == "TEMPORARILY_UNAVAILABLE"
    assert is_retryable(first.content) and first.content["error"]["retryable"] is True
    second = toolbox.execute(call("query_order", {"order_id": "ORD-018"}))
    assert second.ok


def test_every_error_code_is_reachable(builtin_tools: dict[str, Tool], call: Call) -> None:
    extra = Tool(name="archive_order", parameters={"type": "object"})
    box = FakeToolbox([*builtin_tools.values(), extra], FakeStore.fresh(), conversation_id="all-codes")
    calls = [
        call("lookup_order", {"order_id": "bad"}),
        call("lookup_order", {"order_id": "ORD-999999"}),
        call("create_refund", {"order_id": "ORD-012", "reason": "r"}),
        call("lookup_order", {"order_id": "ORD-500610"}),
        call("cancel_order", {"order_id": "ORD-016"}),
        call("no_such_tool", {}),
        call("archive_order", {}),
    ]
    seen = {error_code(box.execute(c, call_id=f"id{i}").content) for i, c in enumerate(calls)}
    assert seen == set(ERROR_CODES)


def test_cancel_and_partial_then_full_refund(toolbox: FakeToolbox, call: Call) -> None:
    cancelled = toolbox.execute(call("cancel_order", {"order_id": "ORD-009", "reason": "wrong item"}))
    assert cancelled.ok and cancelled.side_effect
    assert toolbox.store.orders["ORD-009"]["status"] == "cancelled"
    half = toolbox.execute(
        call("create_refund", {"order_id": "ORD-007", "amount": 40, "reason": "missing item"}, id="r1")
    )
    assert (
        half.ok
        and half.content["result"]["amount"] == 40.0
        and not half.content["result"]["refunded_in_full"]
    )
    too_much = toolbox.execute(
        call("create_refund", {"order_id": "ORD-007", "amount": 41, "reason": "x"}, id="r2")
    )
    assert error_code(too_much.content) == "INVALID_ARGUMENTS"
    rest = toolbox.execute(call("create_refund", {"order_id": "ORD-007", "reason": "rest"}, id="r3"))
    assert rest.content["result"]["amount"] == 40.0 and rest.content["result"]["refunded_in_full"]
    assert [e.tool for e in toolbox.store.side_effects] == ["cancel_order", "create_refund", "create_refund"]


def test_replayed_write_call_has_exactly_one_side_effect(toolbox: FakeToolbox, call: Call) -> None:
    refund = call("create_refund", {"order_id": "ORD-004", "reason": "broken", "amount": 10}, id="call_7")
    first = toolbox.execute(refund)
    replay = toolbox.execute(refund)
    reordered = make_call(
        "call_7", "create_refund", '{"amount": 10, "reason": "broken", "order_id": "ORD-004"}'
    )
    third = toolbox.execute(reordered)
    assert first.ok and first.side_effect
    assert replay.replayed and not replay.side_effect and replay.content == first.content
    assert third.replayed and third.content == first.content
    assert toolbox.store.side_effect_count == 1
    assert toolbox.store.replayed == 2
    assert toolbox.store.orders["ORD-004"]["refunded_cents"] == 1000
    # a new call id is a new request: it runs (and here refunds again)
    fresh = toolbox.execute(
        call("create_refund", {"order_id": "ORD-004", "reason": "broken", "amount": 10}, id="call_8")
    )
    assert fresh.ok and not fresh.replayed and toolbox.store.side_effect_count == 2


def test_retryable_failures_are_not_remembered(builtin_tools: dict[str, Tool], call: Call) -> None:
    dataset = load_dataset()
    for order in dataset["orders"]:
        if order["order_id"] == "ORD-010":
            order["unavailable_first"] = 1
    box = FakeToolbox(list(builtin_tools.values()), FakeStore.fresh(dataset), conversation_id="c")
    # reads fail first; writes are not flaky, so check that a remembered result is only a final one
    refund = call("create_refund", {"order_id": "ORD-012", "reason": "x"})
    assert error_code(box.execute(refund).content) == "CONFLICT"
    assert len(box.store.replays) == 1
    assert (
        error_code(box.execute(call("query_order", {"order_id": "ORD-010"})).content)
        == "TEMPORARILY_UNAVAILABLE"
    )
    assert len(box.store.replays) == 1


def test_idempotency_key_inputs() -> None:
    base = idempotency_key("conv", "call_1", "create_refund", {"order_id": "ORD-001", "reason": "r"})
    assert base == idempotency_key("conv", "call_1", "create_refund", {"reason": "r", "order_id": "ORD-001"})
    assert len(base) == 64 and int(base, 16) >= 0
    others = {
        idempotency_key("conv2", "call_1", "create_refund", {"order_id": "ORD-001", "reason": "r"}),
        idempotency_key("conv", "call_2", "create_refund", {"order_id": "ORD-001", "reason": "r"}),
        idempotency_key("conv", "call_1", "cancel_order", {"order_id": "ORD-001", "reason": "r"}),
        idempotency_key("conv", "call_1", "create_refund", {"order_id": "ORD-001", "reason": "R"}),
    }
    assert base not in others and len(others) == 4


def test_stores_are_independent(builtin_tools: dict[str, Tool], call: Call) -> None:
    one = FakeToolbox(list(builtin_tools.values()), FakeStore.fresh(), conversation_id="a")
    two = FakeToolbox(list(builtin_tools.values()), FakeStore.fresh(), conversation_id="a")
    assert one.execute(call("cancel_order", {"order_id": "ORD-002"})).ok
    assert two.store.orders["ORD-002"]["status"] == "pending"
    assert two.execute(call("cancel_order", {"order_id": "ORD-002"})).ok
    assert FakeStore.fresh().orders["ORD-002"]["status"] == "pending"


def test_custom_dataset_file(tmp_path: Path) -> None:
    path = tmp_path / "store.json"
    path.write_text(json.dumps({"orders": [{"order_id": "ORD-777777", "status": "paid", "paid": True}]}))
    store = FakeStore.fresh(load_dataset(path))
    assert list(store.orders) == ["ORD-777777"]
    path.write_text('{"orders": 3}')
    with pytest.raises(CaseError, match="orders"):
        load_dataset(path)


def test_suite_histories_agree_with_the_data_set() -> None:
    """Tool results written into case histories describe the same world the fake tools serve."""
    orders = FakeStore.fresh().orders
    suite = load_suite("refunds")
    checked = 0
    for case in suite.cases:
        for message in case.history:
            content = getattr(message, "content", None)
            if getattr(message, "role", "") != "tool" or not isinstance(content, dict):
                continue
            listed = content.get("orders") or (content.get("result") or {}).get("orders") or []
            for shown in listed:
                order = orders[shown["order_id"]]
                assert order["status"] == shown["status"], case.id
                assert round(order["total_cents"] / 100, 2) == shown["total"], case.id
                refunded = order.get("refunded_cents", 0) >= order["total_cents"]
                assert refunded == shown["refunded"], case.id
                checked += 1
    assert checked >= 5
