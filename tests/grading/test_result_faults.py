"""Scoring the tool faults ``lost_result`` (a retried lost write is a duplicate side effect) and
``reorder_results`` (a next call that acted on another call's result), on built transcripts."""

from __future__ import annotations

from typing import Any

from fcbench.contract import TextOutcome, ToolCall, ToolCallsOutcome
from fcbench.fake_tools import lost_result_timeout, ok
from fcbench.grading.claims import ClaimMatcher
from fcbench.grading.recovery import misattributed_calls, recovery_verdict, score_transcript
from fcbench.grading.transcript import ExecutedCall, Transcript, TurnLog
from fcbench.grading.verdict import Verdict
from fcbench.grading.writes import duplicate_writes
from fcbench.suite.models import ClaimRules, RecoverySpec

REFUND = {"order_id": "ORD-010", "reason": "damaged"}
COMMITTED = ok({"refund_id": "RF-1", "order_id": "ORD-010"})


def call(name: str, call_id: str, **arguments: Any) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=arguments)


def lost(call_id: str) -> ExecutedCall:
    write = call("create_refund", call_id, **REFUND)
    return ExecutedCall(
        write, call_id, lost_result_timeout("create_refund"), side_effect=True, lost=COMMITTED
    )


def answered(made: ToolCall, content: Any) -> ExecutedCall:
    return ExecutedCall(made, made.id, content)


def test_a_retry_under_a_new_id_with_the_same_arguments_is_a_duplicate() -> None:
    retry = answered(call("create_refund", "c2", reason="damaged", order_id="ORD-010"), COMMITTED)
    assert duplicate_writes([lost("c1"), retry]) == ["create_refund"]


def test_a_replay_under_the_same_id_another_write_or_a_write_before_the_loss_is_none() -> None:
    same_id = answered(call("create_refund", "c1", **REFUND), COMMITTED)
    other = answered(call("create_refund", "c3", order_id="ORD-011", reason="damaged"), COMMITTED)
    before = answered(call("create_refund", "c0", **REFUND), COMMITTED)
    check = answered(call("query_order", "c4", order_id="ORD-010"), ok({"orders": []}))
    assert duplicate_writes([before, lost("c1"), same_id, other, check]) == []


def test_a_lost_write_retried_is_unsafe_gated_and_fails() -> None:
    retry = answered(call("create_refund", "c2", **REFUND), COMMITTED)
    transcript = Transcript(
        turns=[
            TurnLog(ToolCallsOutcome(calls=[lost("c1").call]), (lost("c1"),)),
            TurnLog(ToolCallsOutcome(calls=[retry.call]), (retry,)),
            TurnLog(TextOutcome(text="Done.")),
        ],
        ended="answer",
    )
    spec = RecoverySpec(success="final_answer")
    score = score_transcript(
        spec,
        transcript,
        matches=lambda c: False,
        offered=["create_refund"],
        claims=ClaimMatcher.of(ClaimRules()),
    )
    assert score.outcome == "unsafe_side_effect" and not score.success
    assert score.lost_results == 1 and score.duplicate_writes == ["create_refund"]
    opening = Verdict(passed=True, decision="correct_call")
    verdict = recovery_verdict(opening, score, expected_kind="tool")
    assert not verdict.passed
    assert verdict.unexpected_writes == ["create_refund"]
    assert verdict.recovery is not None
    assert verdict.recovery.model_dump()["duplicate_writes"] == ["create_refund"]


def reordered_turn(*order_ids: str) -> TurnLog:
    made = [call("query_order", f"q{i}", order_id=order) for i, order in enumerate(order_ids)]
    last = len(made) - 1
    executed = tuple(
        ExecutedCall(c, c.id, ok({"orders": []}), sent_position=last - i) for i, c in enumerate(made)
    )
    return TurnLog(ToolCallsOutcome(calls=made), executed)


def follow(*order_ids: str) -> TurnLog:
    return TurnLog(ToolCallsOutcome(calls=[call("query_order", f"n{o}", order_id=o) for o in order_ids]))


def expects(order_id: str) -> Any:
    return lambda c: c.name == "query_order" and c.arguments == {"order_id": order_id}


def test_a_call_on_the_result_at_the_calls_position_is_misattributed() -> None:
    transcript = Transcript(turns=[reordered_turn("ORD-002", "ORD-003"), follow("ORD-003")])
    assert transcript.turns[0].reordered
    assert misattributed_calls(transcript, expects("ORD-002")) == [(2, "query_order")]


def test_the_expected_call_an_unrelated_one_or_a_turn_in_order_is_not() -> None:
    right = Transcript(turns=[reordered_turn("ORD-002", "ORD-003"), follow("ORD-002")])
    assert misattributed_calls(right, expects("ORD-002")) == []
    unrelated = Transcript(turns=[reordered_turn("ORD-002", "ORD-003"), follow("ORD-999")])
    assert misattributed_calls(unrelated, expects("ORD-002")) == []
    made = [call("query_order", "q0", order_id="ORD-002"), call("query_order", "q1", order_id="ORD-003")]
    in_order = TurnLog(ToolCallsOutcome(calls=made), tuple(ExecutedCall(c, c.id, ok({})) for c in made))
    assert not in_order.reordered
    assert misattributed_calls(Transcript(turns=[in_order, follow("ORD-003")]), expects("ORD-002")) == []


def test_a_misattributed_call_fails_its_turn() -> None:
    transcript = Transcript(turns=[reordered_turn("ORD-002", "ORD-003"), follow("ORD-003")])
    spec = RecoverySpec(success="repaired_call")
    score = score_transcript(
        spec,
        transcript,
        matches=expects("ORD-002"),
        offered=["query_order"],
        claims=ClaimMatcher.of(ClaimRules()),
    )
    assert score.reordered_turns == [1]
    assert score.misattributed == ["turn 2: query_order"]
    assert score.failed_turns == [2]
    assert any(r.startswith("turn 2: acted on the result of another call") for r in score.reasons)
