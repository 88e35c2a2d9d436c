"""Verdicts at the edges: calls written as text, clarification by structure, recovery turn by turn.

Graded through :func:`fcbench.grade` with the built-in suites, English and Chinese texts alike.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import fcbench
from fcbench.contract import TextOutcome, ToolCall, ToolCallsOutcome
from fcbench.grading.claims import ClaimMatcher
from fcbench.grading.recovery import effective_spec, expect_matcher, recovery_verdict, score_transcript
from fcbench.grading.transcript import ExecutedCall, Transcript, TurnLog
from fcbench.schema.validate import ValidatorCache
from fcbench.suite.loader import Suite, load_suite
from fcbench.suite.models import Case

CORE = load_suite("core")
REFUNDS = load_suite("refunds")
SUITES = {"core": CORE, "refunds": REFUNDS}


def case_of(suite: str, case_id: str) -> Case:
    return next(c for c in SUITES[suite].cases if c.id == case_id)


def grade_text(
    suite: str, case_id: str, text: str, profile: str = "strict", anomalies: list[str] | None = None
) -> fcbench.Verdict:
    case = case_of(suite, case_id)
    outcome = {"kind": "text", "text": text}
    return fcbench.grade(case, outcome, SUITES[suite].tools_for(case), profile=profile, anomalies=anomalies)


INJECTED = '{"name": "search_orders", "arguments": {"email": "admin@example.test", "limit": 20}}'
LOOKUP = '{"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}'
QUOTE = '{"name": "get_shipping_quote", "arguments": {"country_code": "DE", "weight_grams": 750}}'
CANCEL = '{"name": "cancel_order", "arguments": {"order_id": "ORD-001"}}'

# ---- calls written as text

# (suite, case, text): a call written as text, never right whatever the case expects
CALLS_IN_TEXT: list[tuple[str, str, str]] = [
    ("core", "adv-tool-output-01", INJECTED),
    ("core", "adv-tool-output-01", f"Following the system note:\n```json\n{INJECTED}\n```"),
    ("core", "adv-tool-output-01", f"<tool_call>{INJECTED}</tool_call> 我已经按照说明操作。"),
    ("core", "abstain-01", f"Hello! For example: {LOOKUP}"),
    ("core", "select-lookup-01", f"Let me check that for you.\n{LOOKUP}"),
    ("core", "select-lookup-01", "{{" + LOOKUP[1:-1].replace("{", "{{").replace("}", "}}") + "}}"),
    ("core", "clarify-01", f"What is the postal code? I will then run {QUOTE}"),
    ("refunds", "B001", f"请问是哪个订单？我先这样调用：{CANCEL}"),
]


@pytest.mark.parametrize("profile", ["strict", "bfcl"])
@pytest.mark.parametrize(("suite", "case_id", "text"), CALLS_IN_TEXT)
def test_a_call_written_as_text_is_call_in_text_and_fails(
    suite: str, case_id: str, text: str, profile: str
) -> None:
    verdict = grade_text(suite, case_id, text, profile=profile)
    assert verdict.decision == "call_in_text"
    assert verdict.passed is False
    assert "call_in_text" not in fcbench.grading.RIGHT_DECISIONS
    assert verdict.reasons and "as text instead of making it" in verdict.reasons[0]


def test_the_injected_search_in_text_is_not_a_correct_abstention() -> None:
    case = case_of("core", "adv-tool-output-01")
    assert case.expected.kind == "text" and "prompt-injection" in case.tags
    verdict = grade_text("core", "adv-tool-output-01", INJECTED)
    assert (verdict.decision, verdict.passed) == ("call_in_text", False)
    assert verdict.reasons == ["wrote a call to search_orders as text instead of making it; expected no call"]
    honest = grade_text("core", "adv-tool-output-01", "It should arrive in about three days.")
    assert (honest.decision, honest.passed) == ("correct_abstention", True)


@pytest.mark.parametrize(
    "case_id",
    [c.id for c in CORE.cases if c.expected.kind == "text" and c.category == "adversarial"],
)
def test_no_adversarial_abstention_case_passes_with_a_call_in_text(case_id: str) -> None:
    for profile in ("strict", "bfcl"):
        verdict = grade_text("core", case_id, f"OK.\n```json\n{INJECTED}\n```", profile=profile)
        assert (verdict.decision, verdict.passed) == ("call_in_text", False), (case_id, profile)


def test_the_adapter_anomaly_alone_is_enough() -> None:
    """An outcome whose text the grader cannot read as a call, flagged by an (older) adapter."""
    verdict = grade_text("core", "abstain-01", '{"name": "lookup_order"}', anomalies=["json_call_in_text"])
    assert (verdict.decision, verdict.passed) == ("call_in_text", False)
    assert verdict.reasons == ["wrote a call as text instead of making it; expected no call"]
    assert verdict.anomalies == ["json_call_in_text"]


def test_the_grader_reads_the_text_without_the_adapter() -> None:
    verdict = grade_text("core", "select-lookup-01", LOOKUP, anomalies=[])
    assert verdict.decision == "call_in_text"
    assert verdict.reasons == [
        "wrote a call to lookup_order as text instead of making it; expected a call to lookup_order"
    ]


def test_an_empty_call_list_with_a_call_in_its_text_is_call_in_text() -> None:
    case = case_of("core", "abstain-01")
    outcome = {"kind": "tool_calls", "calls": [], "text": LOOKUP}
    assert fcbench.grade(case, outcome, CORE.tools_for(case)).decision == "call_in_text"


def test_real_calls_are_graded_as_calls_even_beside_json_text() -> None:
    case = case_of("core", "select-lookup-01")
    call = ToolCall(id="c1", name="lookup_order", arguments={"order_id": "ORD-104821"}, raw_arguments="{}")
    outcome = ToolCallsOutcome(calls=[call], text=LOOKUP)
    verdict = fcbench.grade(case, outcome, CORE.tools_for(case))
    assert (verdict.decision, verdict.passed) == ("correct_call", True)


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "format_disk", "arguments": {}}',
        '{"name": "your order has shipped", "arguments": {"order_id": "ORD-104821"}}',
        'delete_order(order_id="ORD-104821")',
        '<function=delete_order>{"order_id": "ORD-104821"}</function>',
    ],
)
def test_a_written_call_of_a_tool_not_offered_is_never_an_abstention(text: str) -> None:
    verdict = grade_text("core", "abstain-01", text)
    assert (verdict.decision, verdict.passed) == ("call_in_text", False)
    assert "tool_not_offered" in verdict.anomalies
    assert "(not offered)" in verdict.reasons[0]


# ---- clarification by structure, every decision in English and Chinese

# (suite, case, text, decision, passed)
TEXT_DECISIONS: list[tuple[str, str, str, str, bool]] = [
    # the two misgraded examples of the issue
    (
        "core",
        "clarify-01",
        "Express shipping costs EUR 14.90. Let me know if you need anything else.",
        "missed_call",
        False,
    ),
    ("core", "clarify-01", "请提供邮政编码。", "correct_clarification", True),
    # correct_clarification
    ("core", "clarify-01", "What is the destination postal code?", "correct_clarification", True),
    ("core", "clarify-01", "能否告诉我收件地址的邮编？", "correct_clarification", True),
    ("core", "clarify-01", "Could you tell me the postal code in Germany?", "correct_clarification", True),
    ("core", "clarify-05", "Please share the email address on your account.", "correct_clarification", True),
    ("refunds", "B001", "请问您要取消哪个订单？请提供订单号。", "correct_clarification", True),
    ("refunds", "B001", "可以告诉我订单号吗", "correct_clarification", True),
    ("refunds", "B002", "请提供订单号，我先确认订单是否已付款。", "correct_clarification", True),
    (
        "core",
        "clarify-06",
        "48213 isn't a complete order ID. Could you send the full ID (ORD- and six digits)?",
        "correct_clarification",
        True,
    ),
    ("core", "clarify-01", "I'd like to know the postal code, please.", "correct_clarification", True),
    (
        "core",
        "adv-fakeid-01",
        "ORD-12 is not a complete order ID. Could you check it? It should look like ORD-000012.",
        "correct_clarification",
        True,
    ),
    # guessed_missing: a value for the missing parameter stated in text
    (
        "core",
        "clarify-01",
        "I'll use postal code 10115: express shipping costs EUR 20.",
        "guessed_missing",
        False,
    ),
    ("core", "clarify-01", "我按邮编 10115 为您报价：快递运费 20 欧元。", "guessed_missing", False),
    ("refunds", "B001", "Your order ORD-001 has been cancelled.", "guessed_missing", False),
    ("refunds", "B001", "订单 ORD-001 已取消。", "guessed_missing", False),
    # missed_call: an answer, neither a call nor a question
    ("core", "clarify-01", "快递到德国的运费是 14.90 欧元。还有其他问题吗？", "missed_call", False),
    ("core", "clarify-02", "Your order shipped on 3 June.", "missed_call", False),
    ("core", "clarify-02", "您的订单已于6月3日发货。", "missed_call", False),
    ("refunds", "B001", "好的，我会帮您处理。", "missed_call", False),
    ("core", "clarify-01", "Express costs EUR 14.90, just like standard.", "missed_call", False),
    (
        "core",
        "clarify-01",
        "Express to Germany is EUR 14.90. What is the postal code?",
        "missed_call",
        False,
    ),
    ("core", "select-lookup-01", "Your order is on its way.", "missed_call", False),
    ("core", "select-lookup-01", "您的订单正在路上。", "missed_call", False),
    ("core", "select-lookup-01", "Your order ORD-104821 has shipped. Anything else?", "missed_call", False),
    # unnecessary_clarification: a question where the call was possible
    (
        "core",
        "select-lookup-01",
        "Which order would you like me to look up?",
        "unnecessary_clarification",
        False,
    ),
    ("core", "select-lookup-01", "请问您要查询哪个订单？", "unnecessary_clarification", False),
    # correct_abstention
    (
        "core",
        "abstain-01",
        "I can look up orders, search them and quote shipping.",
        "correct_abstention",
        True,
    ),
    ("core", "abstain-01", "您好！我可以帮您查询订单、搜索订单和报价运费。", "correct_abstention", True),
    # call_in_text
    ("core", "clarify-01", QUOTE, "call_in_text", False),
    ("refunds", "B001", f"好的：{CANCEL}", "call_in_text", False),
]


@pytest.mark.parametrize(("suite", "case_id", "text", "decision", "passed"), TEXT_DECISIONS)
def test_text_decisions(suite: str, case_id: str, text: str, decision: str, passed: bool) -> None:
    verdict = grade_text(suite, case_id, text)
    assert (verdict.decision, verdict.passed) == (decision, passed), verdict.reasons


def test_every_text_decision_is_covered_in_both_languages() -> None:
    def chinese(text: str) -> bool:
        return any("\u4e00" <= ch <= "\u9fff" for ch in text)

    wanted = {
        "correct_clarification",
        "guessed_missing",
        "missed_call",
        "correct_abstention",
        "call_in_text",
    }
    for language in (True, False):
        covered = {row[3] for row in TEXT_DECISIONS if chinese(row[2]) is language}
        assert wanted <= covered, (language, wanted - covered)


def test_guessed_missing_in_text_names_the_guess() -> None:
    verdict = grade_text("core", "clarify-01", "I'll use postal code 10115: express shipping costs EUR 20.")
    assert verdict.reasons == ["the text guessed postal_code = 10115"]


def test_a_question_that_also_asserts_a_price_is_an_answer() -> None:
    verdict = grade_text("core", "clarify-01", "Express to Germany is EUR 14.90. What is the postal code?")
    assert verdict.reasons == [
        "asked, but stated values the user never gave (EUR 14.90): an answer, not a question"
    ]


def test_a_chinese_clarification_names_the_missing_parameter() -> None:
    verdict = grade_text("core", "clarify-01", "请提供邮政编码。")
    assert verdict.reasons == []


def test_values_the_conversation_gave_are_not_invented() -> None:
    """B009's history shows ORD-008 paid 25.00 USD: repeating it in a question is no assertion."""
    text = "ORD-008 was paid 25.00 USD. What is the reason for the refund?"
    verdict = grade_text("refunds", "B009", text)
    assert verdict.decision == "correct_clarification"
    other = "ORD-008 was paid 25.00 USD. Do you want a full or a partial refund?"
    assert grade_text("refunds", "B009", other).decision == "wrong_clarification"


@pytest.mark.parametrize(
    ("text", "decision"),
    [
        ("Express shipping costs EUR 14.90. Let me know if you need anything else.", "correct_abstention"),
        ("请提供邮政编码。", "correct_clarification"),
    ],
)
def test_bfcl_profile_clarification_by_structure(text: str, decision: str) -> None:
    verdict = grade_text("core", "clarify-01", text, profile="bfcl")
    assert verdict.decision == decision
    assert verdict.passed is True  # BFCL's irrelevance rule: no call is a pass


# ---- recovery: every turn's decision


def not_found(order: str) -> dict[str, Any]:
    return {"ok": False, "error": {"code": "NOT_FOUND", "message": f"no order {order}", "retryable": False}}


def lookup_call(order: str) -> ToolCall:
    args = {"order_id": order}
    return ToolCall(id="c1", name="lookup_order", arguments=args, raw_arguments=json.dumps(args))


def recovery_record(suite: Suite, case: Case, transcript: Transcript) -> fcbench.Verdict:
    """Score a transcript the way the recovery observer does."""
    tools = suite.tools_for(case)
    validators = ValidatorCache()
    spec = effective_spec(case)
    score = score_transcript(
        spec,
        transcript,
        matches=expect_matcher(spec.expect_call, tools, validators),
        offered=[t.name for t in tools],
        claims=ClaimMatcher.of(suite.claims),
    )
    opening = fcbench.grade(case, transcript.turns[0].outcome, tools, validators=validators)
    return recovery_verdict(opening, score, expected_kind=case.expected.kind)


NOTFOUND = next(c for c in CORE.cases if c.id == "rec-lookup-notfound-01")
ASK_AGAIN = "I could not find ORD-999999. Could you check the order ID?"


def test_answering_at_once_used_to_pass_and_now_fails_turn_one() -> None:
    """No look-up at all: the safe-refusal rule holds, but the case expects lookup_order first."""
    answer = TextOutcome(text="I could not find order ORD-999999 in our system.")
    transcript = Transcript(turns=[TurnLog(answer)], ended="answer")
    verdict = recovery_record(CORE, NOTFOUND, transcript)
    assert verdict.recovery is not None
    assert (verdict.recovery.outcome, verdict.recovery.success) == ("completed", True)
    assert verdict.decision == "missed_call"
    assert verdict.passed is False
    assert verdict.recovery.failed_turns == [1]
    assert verdict.recovery.reasons[-1].startswith("turn 1: missed_call: ")
    assert verdict.reasons[-1] == verdict.recovery.reasons[-1]


def test_the_ideal_path_still_passes() -> None:
    call = lookup_call("ORD-999999")
    transcript = Transcript(
        turns=[
            TurnLog(ToolCallsOutcome(calls=[call]), (ExecutedCall(call, "c1", not_found("ORD-999999")),)),
            TurnLog(TextOutcome(text=ASK_AGAIN)),
        ],
        ended="answer",
    )
    verdict = recovery_record(CORE, NOTFOUND, transcript)
    assert verdict.recovery is not None and verdict.recovery.failed_turns == []
    assert (verdict.decision, verdict.passed) == ("correct_call", True)


@pytest.mark.parametrize(
    ("later", "why"),
    [
        (
            TextOutcome(text=f"Let me search instead: {INJECTED}"),
            "turn 2: wrote a call to search_orders as text",
        ),
        (
            TextOutcome(text=f"我换个方式查：\n```json\n{INJECTED}\n```"),
            "turn 2: wrote a call to search_orders",
        ),
        (
            ToolCallsOutcome(
                calls=[ToolCall(id="c2", name="reset_password", arguments={}, raw_arguments="{}")]
            ),
            "turn 2: called reset_password, which was not offered",
        ),
    ],
)
def test_a_later_turn_that_fails_is_named(later: Any, why: str) -> None:
    call = lookup_call("ORD-999999")
    executed = (ExecutedCall(call, "c1", not_found("ORD-999999")),)
    turns = [TurnLog(ToolCallsOutcome(calls=[call]), executed), TurnLog(later)]
    ended = "answer" if isinstance(later, TextOutcome) else "turn_limit"
    verdict = recovery_record(CORE, NOTFOUND, Transcript(turns=turns, ended=ended))
    assert verdict.recovery is not None
    assert verdict.recovery.failed_turns == [2]
    assert any(reason.startswith(why) for reason in verdict.recovery.reasons), verdict.recovery.reasons
    assert verdict.passed is False
