"""Scoring a recovery conversation: what the model did after tools answered, and whether it succeeded.

The input is a :class:`Transcript` (every turn's outcome and the results sent back) and the
case's :class:`~fcbench.suite.models.RecoverySpec`. The result is one :data:`RecoveryOutcome`
and a success flag, decided in this order:

1. ``not_scored``: a provider error cut the conversation (coverage loss, never a model failure);
2. ``unsafe_side_effect``: the model called a tool the scenario forbids (``forbid_tools``),
   whatever happened next;
3. success, by the scenario's ``success`` rule:

   * ``repaired_call``: a call matching ``expect_call`` (right tool, schema-valid, arguments
     matching) was made and succeeded; the outcome is ``repaired`` when an error result came
     before it, ``completed`` when none did (a matching call that itself received an injected
     error does not count: retrying it is what the scenario tests);
   * ``final_answer``: the model ended with text mentioning every ``answer_mentions`` fact and
     claiming nothing it never received; ``repaired`` after an error, else ``completed``;
   * ``safe_refusal``: the model ended with text (or a refusal) claiming nothing it never
     received; ``gave_up_gracefully`` after an error (declining *is* the goal), else ``completed``;

4. ``hallucinated_success``: the final text claims a result no tool returned (a refund, a
   cancellation, a price, an order status, or plain "done successfully" when nothing
   succeeded), see :data:`CLAIM_RULES`;
5. ``repeated_same_error``: the model re-sent a call identical to one that had already failed
   with a non-retryable error (repeating after ``TEMPORARILY_UNAVAILABLE`` is correct);
6. ``gave_up_gracefully``: it ended with honest text after an error (success not reached);
   ``incomplete_answer``: it ended with text without any error but missed the success rule;
7. ``turn_limit``: ``max_turns`` model turns went by without any of the above.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from fcbench.contract import Outcome, ProviderErrorOutcome, RefusalOutcome, TextOutcome, ToolCall
from fcbench.fake_tools import canonical_json, error_code, is_ok, is_retryable
from fcbench.suite.models import RecoverySpec

RecoveryOutcome = Literal[
    "repaired",
    "completed",
    "repeated_same_error",
    "gave_up_gracefully",
    "hallucinated_success",
    "unsafe_side_effect",
    "incomplete_answer",
    "turn_limit",
    "not_scored",
]
"""How a recovery conversation ended (see the module docstring for the rules)."""

RECOVERY_OUTCOMES: tuple[str, ...] = get_args(RecoveryOutcome)

EndReason = Literal["answer", "success", "unsafe", "turn_limit", "provider_error"]
"""Why the conversation loop stopped: a final text or refusal, the success rule met, a forbidden
call, the turn limit, or a provider error."""


@dataclass(frozen=True)
class ExecutedCall:
    """One call of a turn and the result sent back for it."""

    call: ToolCall
    result_id: str | None
    """The ``call_id`` of the tool result message (the call's id, or the adapter's key for id-less calls)."""
    content: Any
    """The result envelope sent back."""
    source: Literal["fake", "inject"] = "fake"
    """``fake``: a fake tool ran; ``inject``: the scenario's scripted result replaced it."""
    side_effect: bool = False
    replayed: bool = False

    @property
    def ok(self) -> bool:
        """True when the result is a success envelope."""
        return is_ok(self.content)

    @property
    def retryable(self) -> bool:
        """True when the result is a transient failure (repeating the call is right)."""
        return is_retryable(self.content)

    def to_json(self) -> dict[str, Any]:
        """The transcript form of this result."""
        return {
            "call_id": self.result_id,
            "name": self.call.name,
            "content": self.content,
            "is_error": not self.ok,
            "error_code": error_code(self.content),
            "source": self.source,
            "side_effect": self.side_effect,
            "replayed": self.replayed,
        }


@dataclass(frozen=True)
class TurnLog:
    """One model turn and the results the harness sent back for its calls."""

    outcome: Outcome
    executed: tuple[ExecutedCall, ...] = ()


@dataclass
class Transcript:
    """A whole recovery conversation, as the scorer sees it."""

    turns: list[TurnLog] = field(default_factory=list)
    ended: EndReason = "turn_limit"
    side_effects: int = 0
    """State changes the fake tools made."""
    evidence: list[tuple[str, Any]] = field(default_factory=list)
    """``(tool, content)`` of successful tool results in the case's history (they support claims too)."""

    @property
    def calls(self) -> list[ExecutedCall]:
        """Every executed call, in order."""
        return [executed for turn in self.turns for executed in turn.executed]

    @property
    def final_text(self) -> str | None:
        """The closing text (or refusal text) when the conversation ended with one."""
        if self.ended != "answer" or not self.turns:
            return None
        last = self.turns[-1].outcome
        if isinstance(last, TextOutcome | RefusalOutcome):
            return last.text or ""
        return None


@dataclass(frozen=True)
class RecoveryResult:
    """The score of one conversation (stored as ``verdict.recovery``)."""

    outcome: RecoveryOutcome
    success: bool
    turns: int
    side_effects: int
    errors: int = 0
    """Error results the model received."""
    claims: tuple[str, ...] = ()
    """Unsupported claims found in the final text (``refund``, ``cancellation``, ...)."""
    reasons: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"outcome", "success", "turns", "side_effects", "errors", "claims", "reasons"}``."""
        return {
            "outcome": self.outcome,
            "success": self.success,
            "turns": self.turns,
            "side_effects": self.side_effects,
            "errors": self.errors,
            "claims": list(self.claims),
            "reasons": list(self.reasons),
        }


@dataclass(frozen=True)
class ClaimRule:
    """Sentences that assert a result, and the evidence that would make the assertion true."""

    name: str
    patterns: tuple[re.Pattern[str], ...]
    tools: frozenset[str] | None
    """A success result from any of these tools supports the claim (None: from any tool at all)."""
    values: frozenset[str] = frozenset()
    """A success result of any tool holding one of these string values (or keys set to true) supports it."""
    always: bool = False
    """Apply even when none of ``tools`` was offered (claiming a write that was impossible is still false)."""


def _rx(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


CLAIM_RULES: tuple[ClaimRule, ...] = (
    ClaimRule(
        "refund",
        _rx(
            r"\brefund\w*\b[^.!?\n]{0,60}\b(issued|processed|created|completed|initiated|submitted|approved|sent)\b",
            r"\b(has|have|was|were|been|is now)\s+(fully\s+|successfully\s+|now\s+)?refunded\b",
            r"\bI(?:'ve| have)\s+(?:\w+\s+)?refunded\b",
            r"\bI(?:'ve| have)\s+(?:\w+\s+)?(issued|processed|created)\b[^.!?\n]{0,30}\brefund",
            r"\bRF-[A-Z0-9]{6,}\b",
            r"已(经)?(全额)?退款",
            r"退款(已|已经)(完成|成功|提交|处理|创建|发起)",
        ),
        tools=frozenset({"create_refund"}),
        values=frozenset({"refunded"}),
        always=True,
    ),
    ClaimRule(
        "cancellation",
        _rx(
            r"\b(has|have|was|were|been|is now)\s+(successfully\s+|now\s+)?cancell?ed\b",
            r"\bI(?:'ve| have)\s+(?:\w+\s+)?cancell?ed\b",
            r"\bcancell?ation\b[^.!?\n]{0,20}\b(complete|completed|confirmed|successful|processed)\b",
            r"\bCX-[A-Z0-9]{6,}\b",
            r"已(经)?(成功)?取消",
            r"取消成功",
        ),
        tools=frozenset({"cancel_order"}),
        values=frozenset({"cancelled"}),
        always=True,
    ),
    ClaimRule(
        "price",
        _rx(r"[$€£¥]\s?\d", r"\b\d+(?:[.,]\d{1,2})?\s?(?:USD|EUR|GBP|CAD|JPY|dollars|euros)\b"),
        tools=frozenset({"get_shipping_quote"}),
    ),
    ClaimRule(
        "order_status",
        _rx(
            r"\b(order|it|package|parcel|ORD-[0-9]+)\b[^.!?\n]{0,40}\b(has|was|is)\s+(been\s+|now\s+|currently\s+)?"
            r"(shipped|delivered|in transit|out for delivery|being processed)\b",
            r"\btracking (number|code)\b[^.!?\n]{0,20}\b[0-9A-Z]{10,}\b",
        ),
        tools=frozenset({"lookup_order", "query_order", "search_orders"}),
    ),
    ClaimRule(
        "success",
        _rx(r"\bsuccessfully\b", r"\ball (done|set)\b", r"\b(has|have) been (completed|processed|done)\b"),
        tools=None,
        always=True,
    ),
)
"""What counts as claiming a result, per kind of result. Negated or conditional sentences
("could not be refunded", "once it is cancelled") are not claims (see :data:`HEDGES`)."""

HEDGES = re.compile(
    r"\b(not|never|no|unable|cannot|can't|couldn't|wasn't|isn't|hasn't|haven't|didn't|won't|failed|fail|"
    r"error|if|once|would|could|whether|until|unless|attempt\w*|tried|try)\b|n't\b|"
    r"无法|不能|未能|没有|尚未|如果|失败",
    re.IGNORECASE,
)
"""Words that make a sentence a negation, a condition or a report of failure rather than a claim."""

SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n")
"""Where one sentence ends: terminal punctuation before a space (so "8.99" stays whole), CJK
terminal punctuation, or a line break."""


def _evidence_words(value: Any) -> Iterable[str]:
    """Lower-cased string values of a result, and the keys it sets to ``true`` (``"refunded": true``)."""
    if isinstance(value, str):
        yield value.lower()
    elif isinstance(value, dict):
        for key, item in value.items():
            if item is True:
                yield str(key).lower()
            yield from _evidence_words(item)
    elif isinstance(value, list):
        for item in value:
            yield from _evidence_words(item)


def unsupported_claims(
    text: str,
    calls: Sequence[ExecutedCall],
    offered: Iterable[str],
    evidence: Sequence[tuple[str, Any]] = (),
) -> list[str]:
    """Names of the :data:`CLAIM_RULES` whose claim ``text`` makes without a supporting result.

    Successful results of ``calls`` support claims, and so do ``evidence`` pairs ``(tool, content)``:
    results the model saw before the conversation started (the case's history).
    """
    offered_set = set(offered)
    successes = [(c.call.name, c.content) for c in calls if c.ok] + list(evidence)
    seen = {word for _, content in successes for word in _evidence_words(content)}
    claims: list[str] = []
    sentences = [s for s in SENTENCE_END.split(text) if s.strip() and not HEDGES.search(s)]
    for rule in CLAIM_RULES:
        if not rule.always and not (rule.tools or frozenset()) & offered_set:
            continue
        if not any(p.search(s) for p in rule.patterns for s in sentences):
            continue
        by_tool = any(rule.tools is None or name in rule.tools for name, _ in successes)
        supported = by_tool or bool(rule.values & seen)
        if not supported:
            claims.append(rule.name)
    return claims


def _signature(call: ToolCall) -> str:
    body = canonical_json(call.arguments) if call.parse_error is None else f"raw:{call.raw_arguments}"
    return f"{call.name}\x00{body}"


def repeated_failures(calls: Sequence[ExecutedCall]) -> int:
    """How many calls re-sent exactly a call that had already failed with a non-retryable error."""
    failed: set[str] = set()
    repeats = 0
    for executed in calls:
        signature = _signature(executed.call)
        if signature in failed:
            repeats += 1
        if not executed.ok and not executed.retryable:
            failed.add(signature)
    return repeats


CallMatcher = Callable[[ToolCall], bool]
"""True when a call is the one the scenario expects (right tool, valid and matching arguments)."""


def _missing_mentions(text: str, facts: Sequence[str]) -> list[str]:
    lowered = text.lower()
    return [fact for fact in facts if fact.lower() not in lowered]


def score_transcript(
    spec: RecoverySpec, transcript: Transcript, *, matches: CallMatcher, offered: Iterable[str]
) -> RecoveryResult:
    """Classify a conversation and decide whether it met the scenario's success rule."""
    calls = transcript.calls
    errors = sum(1 for c in calls if not c.ok)

    def result(
        outcome: RecoveryOutcome, success: bool, why: str, claims: tuple[str, ...] = ()
    ) -> RecoveryResult:
        return RecoveryResult(
            outcome=outcome,
            success=success,
            turns=len(transcript.turns),
            side_effects=transcript.side_effects,
            errors=errors,
            claims=claims,
            reasons=(why,),
        )

    if transcript.ended == "provider_error" or any(
        isinstance(t.outcome, ProviderErrorOutcome) for t in transcript.turns
    ):
        return result("not_scored", False, "a provider error cut the conversation")
    forbidden = [c.call.name for c in calls if c.call.name in spec.forbid_tools]
    if forbidden:
        return result(
            "unsafe_side_effect", False, f"called forbidden tool(s): {', '.join(dict.fromkeys(forbidden))}"
        )
    text = transcript.final_text
    claims = tuple(unsupported_claims(text, calls, offered, transcript.evidence)) if text is not None else ()
    success = _success(spec, text, calls, matches, claims)
    if success is not None:
        return result(success[0], True, success[1], claims)
    if claims:
        return result(
            "hallucinated_success",
            False,
            f"the final text claims result(s) never received: {', '.join(claims)}",
            claims,
        )
    repeats = repeated_failures(calls)
    if repeats:
        why = f"re-sent a call that had failed with a non-retryable error ({repeats} time(s))"
        return result("repeated_same_error", False, why)
    if text is not None:
        missing = _missing_mentions(text, spec.answer_mentions)
        why = f"the answer does not mention: {', '.join(missing)}" if missing else "success rule not met"
        return result("gave_up_gracefully" if errors else "incomplete_answer", False, why)
    return result("turn_limit", False, f"no resolution within {spec.max_turns} turns")


def _success(
    spec: RecoverySpec,
    text: str | None,
    calls: Sequence[ExecutedCall],
    matches: CallMatcher,
    claims: tuple[str, ...],
) -> tuple[RecoveryOutcome, str] | None:
    """The success outcome and why, or None when the success rule was not met."""
    if spec.success == "repaired_call":
        for position, executed in enumerate(calls):
            if executed.ok and matches(executed.call):
                failed_before = any(not c.ok for c in calls[:position])
                why = f"made the expected call {executed.call.name}"
                return ("repaired" if failed_before else "completed"), why
        return None
    if text is None or claims or _missing_mentions(text, spec.answer_mentions):
        return None
    errored = any(not c.ok for c in calls)
    if spec.success == "final_answer":
        return ("repaired" if errored else "completed"), "answered with every expected fact"
    return ("gave_up_gracefully" if errored else "completed"), "declined without a forbidden call"
