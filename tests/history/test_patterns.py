"""The patterns one scored observation shows, and their stable ids."""

from __future__ import annotations

from typing import Any

from fcbench.history.patterns import Observed, blank_values, describe, failure_type, pattern_id, patterns_of


def observed(verdict: dict[str, Any], **kw: Any) -> Observed:
    base: dict[str, Any] = {
        "model": "m-1",
        "verdict": verdict,
        "passed": verdict.get("passed") is True,
        "tags": [],
        "calls": ["get_shipping_quote"],
        "all_calls": ["get_shipping_quote"],
        "expected": ["get_shipping_quote"],
        "side_effects": {},
        "anomalies": [],
    }
    base.update(kw)
    return Observed(**base)


def described(obs: Observed) -> list[str]:
    return [describe(p.kind, dict(p.fields)) for p in patterns_of(obs)]


def test_argument_shapes_name_the_key_and_the_tool() -> None:
    verdict = {
        "passed": False,
        "decision": "correct_call",
        "wrong": [
            {"key": "weight_grams", "expected": 750, "actual": "750"},
            {"key": "postal_code", "expected": "02139", "actual": 2139},
            {"key": "country_code", "expected": "US", "actual": "us"},
            {"key": "service", "expected": "standard", "actual": "express", "note": "tolerant"},
        ],
        "unexpected": ["verbose"],
        "missing": ["service"],
    }
    shown = described(observed(verdict, tags=["types"]))
    assert "writes numbers as strings in `weight_grams` (get_shipping_quote)" in shown
    assert "writes strings as numbers in `postal_code` (get_shipping_quote)" in shown
    assert "changes the letter case of `country_code` (get_shipping_quote)" in shown
    assert "adds the unknown key `verbose` (get_shipping_quote)" in shown
    assert "drops the required key `service` (get_shipping_quote)" in shown
    assert "fails cases tagged types" in shown
    assert not any("`service` (get_shipping_quote)" in s and "wrong value" in s for s in shown)  # tolerant
    assert failure_type(verdict) == "bad_arguments"


def test_a_key_of_a_later_call_belongs_to_that_calls_tool() -> None:
    verdict = {"passed": False, "decision": "correct_call", "missing": ["calls[1].order_id"]}
    shown = described(observed(verdict, calls=["search_orders", "cancel_order"]))
    assert "drops the required key `order_id` (cancel_order)" in shown


def test_a_wrong_decision_names_the_expected_and_the_called_tool() -> None:
    verdict = {"passed": False, "decision": "wrong_tool"}
    shown = described(observed(verdict, calls=["search_orders"], expected=["lookup_order"]))
    assert shown[0] == "wrong_tool: lookup_order -> search_orders"
    assert failure_type(verdict) == "wrong_tool"


def test_a_write_before_any_read_is_an_order_pattern_when_a_read_tool_was_offered() -> None:
    verdict = {"passed": False, "decision": "correct_call", "recovery": {"success": False, "outcome": "x"}}
    effects = {"lookup_order": "read", "cancel_order": "write"}
    first_write = observed(verdict, all_calls=["cancel_order", "lookup_order"], side_effects=effects)
    assert "calls write tool cancel_order without a read tool first" in described(first_write)
    read_first = observed(verdict, all_calls=["lookup_order", "cancel_order"], side_effects=effects)
    assert not any("without a read tool" in s for s in described(read_first))
    assert failure_type(verdict) == "recovery: x"


def test_a_passing_observation_shows_only_its_anomalies() -> None:
    verdict = {"passed": True, "decision": "correct_call", "unexpected": ["verbose"]}
    assert described(observed(verdict, anomalies=["finish_reason_mismatch"], tags=["t"])) == [
        "anomaly finish_reason_mismatch"
    ]


def test_ids_are_stable_and_depend_on_every_defining_field() -> None:
    one = pattern_id("m-1", "argument", {"tool": "a", "key": "k", "shape": "unknown_key"})
    assert one == pattern_id("m-1", "argument", {"shape": "unknown_key", "key": "k", "tool": "a"})
    assert one != pattern_id("m-2", "argument", {"tool": "a", "key": "k", "shape": "unknown_key"})
    assert len(one) == 12 and int(one, 16) >= 0


def test_reasons_are_blanked_so_cases_share_them() -> None:
    assert blank_values('weight_grams: expected 3000, got "3"') == "weight_grams: expected N, got …"
    assert blank_values("(+3 more) 'x' ORD-104821 v2") == "(+N more) … ORD-N v2"
