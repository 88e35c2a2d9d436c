"""Choosing by meaning or by position: offered the same tools in every order, ``sim-careful`` calls
the tool that means what was asked, while ``sim-eager`` (trait ``first_match``) calls the first
offered of the tools that fit about as well; a tool that fits clearly better wins whatever the order."""

from __future__ import annotations

from itertools import permutations
from typing import Any

import pytest
from simkit import ask, case, only_call, tools

ORDERS = list(permutations(tools("tool-order")))
"""Every order of the ``tool-order`` suite's four tools (24)."""
PROMPTS = [
    case(c["id"], "tool-order")
    for c in map(
        lambda i: {"id": i}, ["order-items-01", "order-invoice-01", "order-status-01", "order-tracking-01"]
    )
]


def _picks(model: str, prompt: str) -> list[str]:
    return [only_call(ask(model, prompt, suite="tool-order", offered=order))[0] for order in ORDERS]


@pytest.mark.parametrize("wanted", PROMPTS, ids=lambda c: c["id"])
def test_the_careful_model_picks_by_meaning_in_every_order(wanted: dict[str, Any]) -> None:
    picks = _picks("sim-careful", str(wanted["prompt"]))
    assert set(picks) == {wanted["expected"]["name"]}


@pytest.mark.parametrize("wanted", PROMPTS, ids=lambda c: c["id"])
def test_the_eager_model_picks_the_first_offered_of_the_tools_that_fit(wanted: dict[str, Any]) -> None:
    picks = _picks("sim-eager", str(wanted["prompt"]))
    fitting = set(picks)  # the tools that fit about equally: the same set whatever the order
    assert len(fitting) >= 2 and wanted["expected"]["name"] in fitting
    for pick, order in zip(picks, ORDERS, strict=True):
        assert pick == next(tool.name for tool in order if tool.name in fitting)


def test_a_tool_that_fits_clearly_better_wins_in_every_order() -> None:
    prompt = str(case("types-01")["prompt"])
    for order in permutations(tools("core")):
        assert only_call(ask("sim-eager", prompt, offered=order))[0] == "get_shipping_quote"
