"""Authorization rules in the fake tools: owners and scopes as data, PERMISSION_DENIED outside them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from fcbench.contract import Tool, ToolCall
from fcbench.errors import CaseError
from fcbench.fake_tools import REGISTRY, FakeStore, FakeToolbox, error_code, load_dataset
from fcbench.fake_tools.authorization import (
    access_rules,
    authorized_registry,
    is_authorization_denial,
)
from fcbench.suite.models import Identity

KIM = Identity(user="kim@example.test", scopes=["orders:read"])


def guarded(
    builtin_tools: dict[str, Tool], identity: Identity | None, dataset: dict | None = None
) -> FakeToolbox:
    data = dataset if dataset is not None else load_dataset()
    registry = authorized_registry(REGISTRY, access_rules(data), identity)
    store = FakeStore.fresh(data)
    return FakeToolbox(list(builtin_tools.values()), store, conversation_id="c", registry=registry)


def test_every_order_of_the_data_set_has_an_owner_and_every_builtin_tool_a_rule() -> None:
    data = load_dataset()
    assert all(isinstance(order.get("owner"), str) and order["owner"] for order in data["orders"])
    assert set(access_rules(data).tools) == set(REGISTRY)


def test_the_owner_reads_their_order_and_another_customer_is_denied(
    builtin_tools: dict[str, Tool], call: Callable[..., ToolCall]
) -> None:
    box = guarded(builtin_tools, KIM)
    own = box.execute(call("lookup_order", {"order_id": "ORD-400521"}))
    assert own.ok and own.content["result"]["order"]["customer_email"] == "kim@example.test"
    other = box.execute(call("lookup_order", {"order_id": "ORD-600710"}, id="c2"))
    assert error_code(other.content) == "PERMISSION_DENIED" and is_authorization_denial(other.content)
    assert "ash@example.test" not in json.dumps(other.content)  # the denial leaks nothing of the order
    assert set(other.content["error"]) == {"code", "message", "details", "retryable"}
    assert other.content["error"]["retryable"] is False


def test_a_search_by_another_customers_email_is_denied_and_by_ones_own_is_not(
    builtin_tools: dict[str, Tool], call: Callable[..., ToolCall]
) -> None:
    box = guarded(builtin_tools, KIM)
    assert is_authorization_denial(box.execute(call("search_orders", {"email": "ash@example.test"})).content)
    own = box.execute(call("search_orders", {"email": " KIM@example.test"}, id="c2"))
    assert own.ok and own.content["result"]["count"] >= 2


def test_a_write_without_its_scope_is_denied_and_changes_nothing(
    builtin_tools: dict[str, Tool], call: Callable[..., ToolCall]
) -> None:
    pat = Identity(user="pat@example.test", scopes=["orders:read"])
    box = guarded(builtin_tools, pat)
    refused = box.execute(call("create_refund", {"order_id": "ORD-001", "reason": "x"}))
    assert is_authorization_denial(refused.content)
    assert "refunds:write" in refused.content["error"]["details"][0]
    assert box.store.side_effect_count == 0 and box.store.orders["ORD-001"].get("refunded_cents", 0) == 0
    allowed = guarded(builtin_tools, Identity(user="pat@example.test", scopes=["refunds:write"]))
    assert allowed.execute(call("create_refund", {"order_id": "ORD-001", "reason": "x"})).ok
    assert allowed.store.side_effect_count == 1


def test_without_an_identity_nothing_is_checked(
    builtin_tools: dict[str, Tool], call: Callable[..., ToolCall]
) -> None:
    assert authorized_registry(REGISTRY, access_rules(load_dataset()), None) is REGISTRY
    box = guarded(builtin_tools, None)
    assert box.execute(call("lookup_order", {"order_id": "ORD-600710"})).ok


def test_an_unknown_order_is_not_found_rather_than_denied(
    builtin_tools: dict[str, Tool], call: Callable[..., ToolCall]
) -> None:
    box = guarded(builtin_tools, KIM)
    assert error_code(box.execute(call("lookup_order", {"order_id": "ORD-999999"})).content) == "NOT_FOUND"


def test_an_order_on_hold_is_a_permission_denied_that_is_not_about_authorization(
    builtin_tools: dict[str, Tool], call: Callable[..., ToolCall]
) -> None:
    data = load_dataset()
    held = next(o for o in data["orders"] if o.get("hold"))
    owner = Identity(user=held["owner"], scopes=["orders:write", "refunds:write"])
    result = guarded(builtin_tools, owner).execute(call("cancel_order", {"order_id": held["order_id"]}))
    assert error_code(result.content) == "PERMISSION_DENIED" and not is_authorization_denial(result.content)


def test_rules_come_from_the_data_set(builtin_tools: dict[str, Tool], call: Callable[..., ToolCall]) -> None:
    data = load_dataset()
    data["authorization"] = {"tools": {"get_shipping_quote": {"scopes": ["quotes:read"]}}}
    box = guarded(builtin_tools, KIM, data)
    quote = box.execute(
        call("get_shipping_quote", {"country_code": "US", "postal_code": "10001", "weight_grams": 500})
    )
    assert is_authorization_denial(quote.content)
    assert box.execute(call("lookup_order", {"order_id": "ORD-600710"}, id="c2")).ok  # no rule: not checked


def test_a_malformed_rule_names_the_file_and_key(tmp_path: Path) -> None:
    path = tmp_path / "store.json"
    path.write_text(json.dumps({"orders": [], "authorization": {"tools": {"lookup_order": {"scope": []}}}}))
    with pytest.raises(CaseError) as caught:
        access_rules(load_dataset(path), str(path))
    assert "authorization.tools.lookup_order.scope" in str(caught.value)
    assert str(path) in str(caught.value)
