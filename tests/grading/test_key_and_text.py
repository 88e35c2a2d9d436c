"""The stability key and the reading of text answers."""

from __future__ import annotations

from typing import Any

import pytest

from fcbench.grading import grade, normalised_outcome_key
from fcbench.grading.text import asked_parameters, asks_question, parameter_terms


def calls(*pairs: tuple[str, Any], raw: str | None = None) -> dict[str, Any]:
    return {
        "kind": "tool_calls",
        "calls": [
            {"id": f"id_{i}_{raw}", "name": name, "arguments": args, "raw_arguments": raw}
            for i, (name, args) in enumerate(pairs)
        ],
    }


A = ("lookup_order", {"order_id": "ORD-100001"})
B = ("search_orders", {"email": "sam@example.test", "limit": 5})


def test_key_ignores_key_order_ids_call_order_and_integral_floats() -> None:
    verdict = {"decision": "extra_calls"}
    one = normalised_outcome_key(calls(A, B), verdict)
    reordered = calls(("search_orders", {"limit": 5.0, "email": "sam@example.test"}), A, raw="x")
    assert normalised_outcome_key(reordered, verdict) == one
    assert one.startswith("extra_calls:")
    assert len(one.split(":")[1]) == 16


def test_key_distinguishes_values_types_and_decisions() -> None:
    verdict = {"decision": "correct_call"}
    base = normalised_outcome_key(calls(A), verdict)
    assert normalised_outcome_key(calls(("lookup_order", {"order_id": "ORD-100002"})), verdict) != base
    assert normalised_outcome_key(calls(("lookup_order", {"order_id": ["ORD-100001"]})), verdict) != base
    assert normalised_outcome_key(calls(A), {"decision": "wrong_tool"}) != base
    assert normalised_outcome_key(
        calls(("search_orders", {"limit": "5"})), verdict
    ) != normalised_outcome_key(calls(("search_orders", {"limit": 5})), verdict)


def test_key_ignores_text_but_not_unparsed_arguments(
    seed: dict[str, Any], core_tools: list[dict[str, Any]]
) -> None:
    first = {"kind": "text", "text": "Hello there!"}
    second = {"kind": "text", "text": "Hi, how can I help?"}
    v1, v2 = grade(seed["abstain-01"], first, core_tools), grade(seed["abstain-01"], second, core_tools)
    assert normalised_outcome_key(first, v1) == normalised_outcome_key(second, v2)
    broken_a = {
        "kind": "tool_calls",
        "calls": [{"name": "lookup_order", "raw_arguments": "{oops", "parse_error": "e"}],
    }
    broken_b = {
        "kind": "tool_calls",
        "calls": [{"name": "lookup_order", "raw_arguments": "{nope", "parse_error": "e"}],
    }
    verdict = grade(seed["select-lookup-01"], broken_a, core_tools)
    assert normalised_outcome_key(broken_a, verdict) != normalised_outcome_key(broken_b, verdict)
    assert normalised_outcome_key(broken_a, verdict) == normalised_outcome_key(broken_a, verdict.model_dump())


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("What is the destination postal code?", True),
        ("Could you share the postal code", True),
        ("Please provide the postal code.", True),
        ("Thanks. Which country is it going to", True),
        ("¿Cuál es el código postal", True),
        ("I'll need the postal code to quote that.", True),
        ("Can't do that, sorry.", False),
        ("Cannot cancel orders.", False),
        ("Do not worry, it ships tomorrow.", False),
        ("Your order ORD-104821 has shipped.", False),
        ("", False),
        (None, False),
    ],
)
def test_asks_question(text: str | None, asks: bool) -> None:
    assert asks_question(text) is asks


def test_asked_parameters() -> None:
    terms = {
        name: parameter_terms(name) for name in ("postal_code", "weightGrams", "order_id", "email", "country")
    }
    assert asked_parameters(["What is the postal code?"], terms) == ["postal_code"]
    assert asked_parameters(["What's the ZIP?"], terms) == ["postal_code"]
    assert asked_parameters(["How heavy is it, in grams?"], terms) == ["weightGrams"]
    assert asked_parameters(["Which order_id?"], terms) == ["order_id"]
    assert asked_parameters(["What is your email address?"], terms) == ["email"]  # not an address
    assert asked_parameters(["Wohin in Deutschland?"], terms) == []  # "land" only as a word
    assert asked_parameters(["In welches Land?"], terms) == ["country"]
    extra = {"order_id": parameter_terms("order_id", {"asks_about": ["receipt"]}, ["invoice"])}
    assert asked_parameters(["Do you have the receipt or the invoice?"], extra) == ["order_id"]
