"""A recovery conversation as the scorer sees it: each model turn, the results sent back for its
calls (and every delivery of them to the fake tools), and why the conversation ended.

The loop (:mod:`fcbench.run.recovery`) writes it; :mod:`fcbench.grading.recovery` scores it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from fcbench.contract import Outcome, RefusalOutcome, TextOutcome, ToolCall
from fcbench.fake_tools import error_code, is_ok, is_retryable
from fcbench.grading.verdict import LimitHit

EndReason = Literal["answer", "success", "unsafe", "turn_limit", "deadline", "provider_error"]
"""Why the conversation loop stopped: a final text or refusal, the success rule met, a forbidden
call, the turn limit, the conversation deadline, or a provider error."""


@dataclass(frozen=True)
class Delivery:
    """One delivery of a call to the fake tools (a call is delivered more than once only under a
    tool fault such as ``duplicate_delivery``)."""

    content: Any
    """The result envelope this delivery produced."""
    side_effect: bool = False
    """True when this delivery changed the store."""
    replayed: bool = False
    """True when this delivery was answered from the idempotency table (no execution)."""

    def to_json(self) -> dict[str, Any]:
        """The transcript form of this delivery."""
        return {"content": self.content, "side_effect": self.side_effect, "replayed": self.replayed}


@dataclass(frozen=True)
class ExecutedCall:
    """One call of a turn and the result sent back for it."""

    call: ToolCall
    result_id: str | None
    """The ``call_id`` of the tool result message (the call's id, or the adapter's key for id-less calls)."""
    content: Any
    """The result envelope sent back."""
    source: Literal["fake", "inject", "limit"] = "fake"
    """``fake``: a fake tool ran; ``inject``: the scenario's scripted result replaced it;
    ``limit``: not executed, over the turn's ``max_calls_per_turn`` (a ``LIMIT_EXCEEDED`` result)."""
    side_effect: bool = False
    """True when a delivery of this call changed the store."""
    replayed: bool = False
    """True when the result sent back came from the idempotency table."""
    deliveries: tuple[Delivery, ...] = ()
    """Every delivery to the fake tools, in order, when there was more than one (the last one's
    result is ``content``); empty for an ordinary single delivery."""
    original_bytes: int | None = None
    """Set when ``content`` is a truncation envelope: the size of the result before it was cut
    (bytes of canonical JSON, over ``max_result_bytes``)."""
    lost: Any = None
    """Tool fault ``lost_result``: the result the fake tool produced for this write, which committed,
    and which the model never got (``content`` is then the timeout sent instead); None otherwise."""
    sent_position: int | None = None
    """Tool fault ``reorder_results``: where among its turn's results this one was sent (from 0);
    None when the turn's results were sent in call order."""

    @property
    def lost_result(self) -> bool:
        """True when this write committed but its result was replaced by a timeout."""
        return self.lost is not None

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
        return (
            {
                "call_id": self.result_id,
                "name": self.call.name,
                "content": self.content,
                "is_error": not self.ok,
                "error_code": error_code(self.content),
                "source": self.source,
                "side_effect": self.side_effect,
                "replayed": self.replayed,
            }
            | ({"deliveries": [d.to_json() for d in self.deliveries]} if self.deliveries else {})
            | ({"truncated_from_bytes": self.original_bytes} if self.original_bytes is not None else {})
            | ({"lost_result": self.lost} if self.lost is not None else {})
            | ({"sent_position": self.sent_position} if self.sent_position is not None else {})
        )


@dataclass(frozen=True)
class TurnLog:
    """One model turn and the results the harness sent back for its calls."""

    outcome: Outcome
    executed: tuple[ExecutedCall, ...] = ()

    @property
    def reordered(self) -> bool:
        """True when this turn's results were sent out of call order (tool fault ``reorder_results``)."""
        return any(c.sent_position is not None and c.sent_position != i for i, c in enumerate(self.executed))


@dataclass
class Transcript:
    """A whole recovery conversation, as the scorer sees it."""

    turns: list[TurnLog] = field(default_factory=list)
    ended: EndReason = "turn_limit"
    side_effects: int = 0
    """State changes the fake tools made."""
    replayed: int = 0
    """Write deliveries the fake tools answered from their idempotency table."""
    evidence: list[tuple[str, Any]] = field(default_factory=list)
    """``(tool, content)`` of successful tool results in the case's history (they support claims too)."""
    limits_hit: list[LimitHit] = field(default_factory=list)
    """Every conversation limit hit, in order (the loop records them)."""

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


__all__ = ["Delivery", "EndReason", "ExecutedCall", "Transcript", "TurnLog"]
