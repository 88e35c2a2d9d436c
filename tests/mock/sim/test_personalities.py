"""sim-eager, sim-sloppy and sim-flaky: each fails in its own recognisable, deterministic way."""

from __future__ import annotations

import json

import simkit
from simkit import ask, only_call

from fcbench.mock.sim.base import SimReply
from fcbench.schema.validate import SchemaValidator

PROMPTS = [
    "Where is order ORD-104821?",
    "Show my shipped orders. My email is sam@example.test.",
    "Quote standard shipping for 750 grams to US postal code 02139.",
    "Shipping quote for 1 kg to ca, M5V 3L9.",
    "Find ORD-104821. My email is sam@example.test.",
    "How much does it cost to ship 2500 grams to postal code 10115 in DE by express?",
    "List the last 5 delivered orders for kim@example.test.",
    "Look up order ORD-730042 please.",
]


def _invalid(reply: SimReply) -> bool:
    if reply.kind != "calls":
        return False
    tools = {t.name: t for t in simkit.tools()}
    for call in reply.calls:
        try:
            args = json.loads(call.arguments_json)
        except ValueError:
            return True
        if not SchemaValidator(tools[call.name].parameters).validate(args).valid:
            return True
    return False


# -- eager ---------------------------------------------------------------------------------------------
def test_eager_invents_the_missing_postal_code() -> None:
    name, args = only_call(ask("sim-eager", "How much is express shipping to Germany for 750 grams?"))
    assert name == "get_shipping_quote"
    assert isinstance(args["postal_code"], str) and args["postal_code"]
    assert args["country_code"] == "DE" and args["weight_grams"] == 750


def test_eager_calls_on_requests_careful_declines_but_not_on_greetings() -> None:
    assert ask("sim-eager", "Hello! What can you help me with?").kind == "text"
    for prompt in [
        "Can you check on my order?",
        "Show me my shipped orders.",
        "Cancel every order on my account.",
    ]:
        assert ask("sim-careful", prompt).kind == "text"
        assert ask("sim-eager", prompt).kind == "calls", prompt


def test_eager_skips_the_status_check_before_a_refund() -> None:
    name, args = only_call(
        ask("sim-eager", "Refund ORD-005, one of the two items never arrived.", suite="refunds")
    )
    assert name == "create_refund" and args["order_id"] == "ORD-005"


def test_eager_ignores_bounds_that_careful_honours() -> None:
    prompt = "List the last 50 orders for sam@example.test."
    _, careful = only_call(ask("sim-careful", prompt))
    _, eager = only_call(ask("sim-eager", prompt))
    assert careful["limit"] == 20
    assert eager["limit"] == 50
    tool = simkit.compat_tool("probe_string_length")
    text = 'Save the gift message "Happy birthday to the best sister in the whole wide world, love you"'
    _, args = only_call(ask("sim-eager", text, offered=(tool,)))
    assert len(args["message"]) > 40


# -- sloppy --------------------------------------------------------------------------------------------
def test_sloppy_picks_the_right_tool_with_loose_values() -> None:
    name, args = only_call(
        ask("sim-sloppy", "Quote standard shipping for 750 grams to US postal code 02139.")
    )
    assert name == "get_shipping_quote"
    assert args["weight_grams"] == "750"
    assert args["country_code"] == "us"
    assert args["postal_code"] == 2139
    name, args = only_call(ask("sim-sloppy", "Shipping quote for 1 kg to ca, M5V 3L9."))
    assert args["country_code"] == "ca" and args["weight_grams"] == "1"


def test_sloppy_sometimes_adds_a_parameter_the_schema_does_not_have() -> None:
    tools = {t.name: t for t in simkit.tools()}
    extras = 0
    for prompt in PROMPTS:
        reply = ask("sim-sloppy", prompt)
        assert reply == ask("sim-sloppy", prompt)
        for call in reply.calls:
            allowed = set(tools[call.name].parameters["properties"])
            extras += bool(set(json.loads(call.arguments_json)) - allowed)
    assert 0 < extras < len(PROMPTS)


def test_ranking_careful_beats_the_others_on_schema_validity() -> None:
    invalid = {model: sum(_invalid(ask(model, p)) for p in PROMPTS) for model in simkit.MODELS}
    assert invalid["sim-careful"] == 0
    assert invalid["sim-sloppy"] >= len(PROMPTS) // 2
    assert invalid["sim-careful"] <= invalid["sim-flaky"] <= invalid["sim-sloppy"]


# -- flaky ---------------------------------------------------------------------------------------------
def test_flaky_is_deterministic_per_request_and_occurrence() -> None:
    for prompt in PROMPTS:
        for occurrence in range(4):
            first = ask("sim-flaky", prompt, occurrence=occurrence)
            assert first == ask("sim-flaky", prompt, occurrence=occurrence)


def test_flaky_varies_across_occurrences() -> None:
    varied = 0
    broken = 0
    for prompt in PROMPTS:
        replies = [ask("sim-flaky", prompt, occurrence=n) for n in range(8)]
        varied += len({(r.kind, r.text, r.calls) for r in replies}) > 1
        for reply in replies:
            for call in reply.calls:
                try:
                    json.loads(call.arguments_json)
                except ValueError:
                    broken += 1
    assert varied >= len(PROMPTS) // 3
    assert broken >= 1
    mostly_right = sum(
        ask("sim-flaky", PROMPTS[0], occurrence=n) == ask("sim-careful", PROMPTS[0]) for n in range(8)
    )
    assert mostly_right >= 4


def test_flaky_sometimes_ignores_a_required_tool_choice() -> None:
    replies = [ask("sim-flaky", "Hello there!", tool_choice="required", occurrence=n) for n in range(12)]
    kinds = {r.kind for r in replies}
    assert kinds == {"text", "calls"}
    assert all(
        ask("sim-careful", "Hello there!", tool_choice="required", occurrence=n).kind == "calls"
        for n in range(3)
    )
