"""A write whose result is lost (tool fault ``lost_result``): it commits in the fake, the model is
answered with a timeout that says nothing of the write, and the store keeps the real result."""

from __future__ import annotations

from collections.abc import Callable

from fcbench.contract import Tool, ToolCall
from fcbench.fake_tools import FakeStore, FakeToolbox, error_code, is_ok, is_retryable, lost_result_timeout

REFUND = {"order_id": "ORD-010", "reason": "damaged"}


def test_the_timeout_is_a_retryable_failure_that_claims_nothing() -> None:
    timeout = lost_result_timeout("create_refund")
    assert error_code(timeout) == "TEMPORARILY_UNAVAILABLE" and is_retryable(timeout)
    assert not is_ok(timeout) and "evidence" not in timeout
    assert "create_refund" in timeout["error"]["message"]
    assert "refund" not in timeout["error"]["message"].replace("create_refund", "")


def test_behind_the_timeout_the_write_committed_once(
    builtin_tools: dict[str, Tool], call: Callable[..., ToolCall]
) -> None:
    store = FakeStore.fresh()
    box = FakeToolbox(
        [builtin_tools["create_refund"], builtin_tools["query_order"]], store, conversation_id="c"
    )
    committed = box.execute(call("create_refund", REFUND, id="c1"))
    assert committed.ok and committed.side_effect and store.side_effect_count == 1
    status = box.execute(call("query_order", {"order_id": "ORD-010"}, id="c2"))
    assert status.content["result"]["orders"][0]["refunded"] is True  # what a status check finds
    replay = box.execute(call("create_refund", REFUND, id="c1"))
    assert replay.replayed and replay.content == committed.content  # the same call id: no second refund
    retry = box.execute(call("create_refund", REFUND, id="c3"))
    assert error_code(retry.content) == "CONFLICT" and store.side_effect_count == 1
