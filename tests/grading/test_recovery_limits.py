"""Recovery scoring of conversations that hit a limit: the deadline outcome, the limits carried into
the verdict (and left out of it when none was hit), calls cut by ``max_calls_per_turn``."""

from __future__ import annotations

import json

from fcbench.contract import TextOutcome, ToolCall, ToolCallsOutcome, make_call
from fcbench.fake_tools import limit_exceeded, ok
from fcbench.grading.claims import ClaimMatcher
from fcbench.grading.recovery import score_transcript
from fcbench.grading.transcript import ExecutedCall, Transcript, TurnLog
from fcbench.grading.verdict import RECOVERY_OUTCOMES, LimitHit, RecoveryVerdict
from fcbench.suite.models import ClaimRules, RecoverySpec

NO_CLAIMS = ClaimMatcher.of(ClaimRules())
LOOKUP = make_call("c1", "lookup_order", {"order_id": "ORD-104821"})
FOUND = ok({"order": {"order_id": "ORD-104821", "status": "shipped"}})


def never(call: ToolCall) -> bool:
    return False


def score(spec: RecoverySpec, tr: Transcript) -> RecoveryVerdict:
    return score_transcript(spec, tr, matches=never, offered=["lookup_order"], claims=NO_CLAIMS)


def test_a_conversation_stopped_by_its_deadline_is_a_deadline_failure() -> None:
    hit = LimitHit(limit="deadline", turn=1, value=0.61, bound=0.3)
    tr = Transcript(
        turns=[TurnLog(ToolCallsOutcome(calls=[LOOKUP]), (ExecutedCall(LOOKUP, "c1", FOUND),))],
        ended="deadline",
        limits_hit=[hit],
    )
    result = score(RecoverySpec(success="final_answer", deadline_s=0.3), tr)
    assert (result.outcome, result.success, result.turns) == ("deadline", False, 1)
    assert result.reasons == ["no resolution before the conversation deadline (0.3 s)"]
    assert result.limits_hit == [hit]
    assert "deadline" in RECOVERY_OUTCOMES


def test_limits_hit_are_serialised_only_when_any() -> None:
    plain = RecoveryVerdict(outcome="completed", success=True, turns=1)
    assert "limits_hit" not in plain.model_dump(mode="json")
    cut = LimitHit(limit="max_calls_per_turn", turn=1, calls=["c9"], value=9, bound=8)
    data = plain.model_copy(update={"limits_hit": [cut]}).model_dump(mode="json")
    assert data["limits_hit"] == [
        {"limit": "max_calls_per_turn", "turn": 1, "calls": ["c9"], "value": 9, "bound": 8}
    ]
    assert RecoveryVerdict.model_validate(json.loads(json.dumps(data))).limits_hit == [cut]


def test_a_cut_call_is_an_error_result_but_making_it_again_is_no_repeat() -> None:
    cut = ExecutedCall(LOOKUP, "c1", limit_exceeded(9, 8), source="limit")
    again = make_call("c2", "lookup_order", {"order_id": "ORD-104821"})
    tr = Transcript(
        turns=[
            TurnLog(ToolCallsOutcome(calls=[LOOKUP]), (cut,)),
            TurnLog(ToolCallsOutcome(calls=[again]), (ExecutedCall(again, "c2", FOUND),)),
            TurnLog(TextOutcome(text="It has shipped.")),
        ],
        ended="answer",
    )
    result = score(RecoverySpec(success="final_answer", answer_mentions=["shipped"]), tr)
    assert (result.outcome, result.success, result.errors) == ("repaired", True, 1)
    assert cut.to_json()["source"] == "limit" and cut.to_json()["error_code"] == "LIMIT_EXCEEDED"
    assert "truncated_from_bytes" not in cut.to_json()
