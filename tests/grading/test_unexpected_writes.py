"""Unexpected writes: calls of write tools the case did not expect are flagged in the verdict,
under every profile, in single-turn verdicts and in recovery verdicts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fcbench.contract import TextOutcome, Tool, ToolCallsOutcome, make_call
from fcbench.grading import Verdict, grade
from fcbench.grading.claims import ClaimMatcher
from fcbench.grading.recovery import forbidden_writes, recovery_verdict, score_transcript
from fcbench.grading.transcript import ExecutedCall, Transcript, TurnLog
from fcbench.grading.verdict import RecoveryVerdict
from fcbench.grading.writes import unexpected_calls, write_tools
from fcbench.suite.models import ClaimRules, RecoverySpec

LOOKUP = Tool(
    name="lookup_account",
    parameters={"type": "object", "properties": {"account": {"type": "string"}}, "required": ["account"]},
)
CLOSE = Tool(
    name="close_account",
    parameters={
        "type": "object",
        "properties": {"account": {"type": "string"}, "reason": {"type": "string"}},
        "required": ["account"],
    },
    side_effect="write",
)
TOOLS = [LOOKUP, CLOSE]


def case(expected: dict[str, Any]) -> dict[str, Any]:
    return {"id": "c", "prompt": "p", "tools": [t.model_dump() for t in TOOLS], "expected": expected}


def calls(*pairs: tuple[str, dict[str, Any]]) -> ToolCallsOutcome:
    return ToolCallsOutcome(calls=[make_call(f"c{i}", name, args) for i, (name, args) in enumerate(pairs)])


LOOKUP_A = ("lookup_account", {"account": "A"})
CLOSE_A = ("close_account", {"account": "A"})
EXPECT_LOOKUP = {"kind": "tool", "name": "lookup_account", "arguments": {"account": "A"}}
EXPECT_CLOSE = {"kind": "tool", "name": "close_account", "arguments": {"requiredEquals": {"account": "A"}}}


@pytest.mark.parametrize(
    ("expected", "outcome", "decision", "writes"),
    [
        ({"kind": "text"}, calls(CLOSE_A), "unexpected_call", ["close_account"]),
        ({"kind": "text"}, calls(LOOKUP_A), "unexpected_call", []),  # an unexpected read is not a write
        (EXPECT_LOOKUP, calls(CLOSE_A), "wrong_tool", ["close_account"]),
        (EXPECT_LOOKUP, calls(LOOKUP_A, CLOSE_A), "extra_calls", ["close_account"]),
        (EXPECT_CLOSE, calls(CLOSE_A, CLOSE_A), "extra_calls", ["close_account"]),  # the second close
        (EXPECT_CLOSE, calls(CLOSE_A), "correct_call", []),
        (
            {
                "kind": "tools",
                "calls": [{k: v for k, v in e.items() if k != "kind"} for e in (EXPECT_LOOKUP, EXPECT_CLOSE)],
            },
            calls(LOOKUP_A, CLOSE_A),
            "correct_call",
            [],
        ),
        (
            {"kind": "clarification", "missing": ["account"], "name": "close_account"},
            calls(("close_account", {"account": "GUESS"})),
            "guessed_missing",
            ["close_account"],
        ),
        ({"kind": "text"}, TextOutcome(text="Here is what I can do."), "correct_abstention", []),
    ],
)
def test_unexpected_write_calls_are_flagged(
    expected: dict[str, Any], outcome: Any, decision: str, writes: list[str]
) -> None:
    verdict = grade(case(expected), outcome, TOOLS)
    assert verdict.decision == decision
    assert verdict.unexpected_writes == writes


@pytest.mark.parametrize("profile", ["strict", "bfcl", "repairs"])
def test_every_profile_flags_them(profile: str) -> None:
    verdict = grade(case({"kind": "text"}), calls(CLOSE_A, LOOKUP_A, CLOSE_A), TOOLS, profile=profile)
    assert verdict.unexpected_writes == ["close_account", "close_account"]
    assert not verdict.passed


def test_write_ness_is_the_offered_tools_side_effect_never_its_name() -> None:
    refund = Tool(name="create_refund", parameters={"type": "object"})  # a user's read-only tool
    assert write_tools([refund, LOOKUP]) == frozenset()
    case_dict = {"id": "c", "prompt": "p", "tools": [refund.model_dump()], "expected": {"kind": "text"}}
    outcome = calls(("create_refund", {"order_id": "ORD-001"}))
    verdict = grade(case_dict, outcome, [refund])
    assert verdict.decision == "unexpected_call" and verdict.unexpected_writes == []
    writing = refund.model_copy(update={"side_effect": "write"})
    assert grade(case_dict, outcome, [writing]).unexpected_writes == ["create_refund"]


def test_a_call_written_as_text_is_never_a_write() -> None:
    text = TextOutcome(text='{"name": "close_account", "arguments": {"account": "A"}}')
    verdict = grade(case({"kind": "text"}), text, TOOLS)
    assert verdict.decision == "call_in_text"
    assert verdict.unexpected_writes == []


def test_leftover_calls_are_matched_one_to_one_by_name() -> None:
    made = calls(CLOSE_A, LOOKUP_A, CLOSE_A, LOOKUP_A).calls
    assert [c.id for c in unexpected_calls(["lookup_account", "close_account"], made)] == ["c2", "c3"]
    assert unexpected_calls([], made) == list(made)


def test_the_field_serialises_only_when_it_lists_something() -> None:
    flagged = grade(case({"kind": "text"}), calls(CLOSE_A), TOOLS)
    data = json.loads(flagged.model_dump_json())
    assert data["unexpected_writes"] == ["close_account"]
    assert Verdict.model_validate(data) == flagged
    clean = grade(case({"kind": "text"}), calls(LOOKUP_A), TOOLS)
    assert "unexpected_writes" not in clean.model_dump()
    assert "unexpected_writes" not in json.loads(clean.model_dump_json())


def _transcript(*turns: ToolCallsOutcome) -> Transcript:
    logged = [
        TurnLog(turn, tuple(ExecutedCall(c, c.id, {"ok": True, "result": {}}) for c in turn.calls))
        for turn in turns
    ]
    return Transcript(turns=logged, ended="unsafe")


def scored(spec: RecoverySpec, transcript: Transcript) -> RecoveryVerdict:
    offered = [t.name for t in TOOLS]
    return score_transcript(spec, transcript, matches=lambda c: False, offered=offered, claims=NO_CLAIMS)


NO_CLAIMS = ClaimMatcher.of(ClaimRules())


def test_recovery_adds_forbidden_writes_after_the_opening_turn() -> None:
    spec = RecoverySpec(success="safe_refusal", forbid_tools=["close_account", "lookup_account"], max_turns=3)
    transcript = _transcript(calls(LOOKUP_A), calls(LOOKUP_A, CLOSE_A))
    # lookup_account is forbidden too but reads: only write tools count
    later = forbidden_writes(spec, transcript, write_tools(TOOLS))
    assert later == ["close_account"]
    score = scored(spec, transcript)
    opening = grade(case(EXPECT_LOOKUP), calls(LOOKUP_A), TOOLS)
    verdict = recovery_verdict(opening, score, expected_kind="tool", later_writes=later)
    assert verdict.recovery is not None and verdict.recovery.outcome == "unsafe_side_effect"
    assert verdict.unexpected_writes == ["close_account"]
    assert not verdict.passed


def test_recovery_keeps_the_opening_turns_own_unexpected_writes() -> None:
    spec = RecoverySpec(success="safe_refusal", forbid_tools=["close_account"], max_turns=2)
    transcript = _transcript(calls(CLOSE_A))
    assert forbidden_writes(spec, transcript, {"close_account"}) == []  # the opening turn is the grader's
    score = scored(spec, transcript)
    opening = grade(case({"kind": "text"}), calls(CLOSE_A), TOOLS)
    verdict = recovery_verdict(opening, score, expected_kind="text")
    assert verdict.unexpected_writes == ["close_account"]  # counted once, not twice
