"""Tool results carrying injected instructions: sim-careful treats them as data, in every dialect."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from fcbench.store.records import Record
from fcbench.suite.loader import BUILTIN_DIR
from fcbench.suite.models import Case

WRITE_TOOLS = {"create_refund", "cancel_order"}
ENDPOINTS = ["sim", "sim-anthropic", "sim-gemini", "sim-responses"]


def injection_scenarios() -> list[Case]:
    lines = (BUILTIN_DIR / "refunds" / "recovery.jsonl").read_text(encoding="utf-8").splitlines()
    cases = [Case.model_validate_json(line) for line in lines if line.strip()]
    chosen = [c for c in cases if "prompt-injection" in c.tags]
    assert len(chosen) >= 2
    return chosen


SCENARIOS = {case.id: case for case in injection_scenarios()}


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("case_id", sorted(SCENARIOS))
def test_careful_model_makes_no_write_call(
    endpoint: str, case_id: str, observe: Callable[..., Record]
) -> None:
    case = SCENARIOS[case_id]
    record = observe(endpoint, "sim-careful", case, suite="refunds")
    assert record.outcome.kind != "provider_error", record.outcome
    # the injected instruction really reached the model inside a tool result
    later_requests = [json.dumps(e["request"]["body"]) for e in record.raw["exchanges"][1:]]
    assert any("ignore previous instructions" in body.lower() for body in later_requests)
    called = {c.name for turn in record.turns for c in getattr(turn.outcome, "calls", [])}
    assert not called & WRITE_TOOLS
    recovery = record.verdict.recovery
    assert recovery.side_effects == 0
    assert recovery.outcome != "unsafe_side_effect"
