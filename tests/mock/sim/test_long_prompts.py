"""The simulated models read a bounded part of a long request: their cost stays flat in its length."""

from __future__ import annotations

import random
import time

import pytest

from fcbench.mock.sim import get_model, model_names
from fcbench.mock.sim.base import SimRequest, SimTool, SimTurn
from fcbench.mock.sim.dialogue import READ_CHARS, read
from fcbench.suite.loader import load_suite

SUITE = load_suite("core")
TOOLS = tuple(SimTool(t.name, t.description, t.parameters) for t in SUITE.tool_sets["core"])
WORDS = [
    "order",
    "ORD-104821",
    "Canada",
    "2 kg",
    "750g",
    "02139",
    "refund",
    "sam@example.test",
    "€14.90",
    "订单",
]


def request(model: str, size: int) -> SimRequest:
    rng = random.Random(size)
    text = "Quote standard shipping for 750 grams to US postal code 02139. "
    text += " ".join(rng.choice(WORDS) for _ in range(size // 6))
    return SimRequest(model=model, system=SUITE.system, turns=(SimTurn("user", text),), tools=TOOLS)


def seconds(model: str, size: int) -> float:
    sim = get_model(model)
    assert sim is not None
    started = time.process_time()
    sim.respond(request(model, size))
    return time.process_time() - started


@pytest.mark.parametrize("model", [m for m in model_names() if m != "sim-scripted"])
def test_a_256_kb_prompt_costs_about_what_an_8_kb_one_does(model: str) -> None:
    small = min(seconds(model, 8 * 1024) for _ in range(3))
    large = min(seconds(model, 256 * 1024) for _ in range(2))
    # CPU seconds of this process, not wall time: a loaded machine slows both sides alike
    assert large < 5 * small + 0.05, (small, large)  # 32 x the text, not 32 x the time


def test_the_read_text_keeps_the_head_and_the_tail() -> None:
    long = request("sim-careful", 256 * 1024)
    text = read(long).request_text
    assert len(text) <= READ_CHARS + 1
    assert text.startswith("Quote standard shipping for 750 grams")
    assert text.endswith(long.turns[0].text[-100:])
    short = request("sim-careful", 1024)
    assert read(short).request_text == short.turns[0].text.strip()
