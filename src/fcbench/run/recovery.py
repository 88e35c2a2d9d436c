"""The recovery conversation loop and its observer (mode ``recovery``).

A recovery case is played as a conversation over the target's own tool-result protocol:

1. the messages start as the case's history plus its prompt;
2. each turn goes through the one observation kernel (:func:`fcbench.run.observe.send_turn`:
   tool choice ``auto``, not streamed);
3. every call of the reply is executed on its own, in order: by the scenario's scripted result
   when an ``inject`` entry names this call (the Nth call of that tool in the conversation),
   otherwise by the fake tools (:mod:`fcbench.fake_tools`) over a store private to this
   conversation: the suite's scripted fakes (``fakes.json``,
   :func:`fcbench.fake_tools.scripted_registry`) layered over the built-in ones; a fake's
   ``latency_ms`` is waited for (``asyncio.sleep``) after each execution; for a case with an
   ``identity`` the data set's authorization rules guard them
   (:func:`fcbench.fake_tools.authorization.authorized_registry`: a call outside the user's
   rights is ``PERMISSION_DENIED``), the user is the signed-in customer of listings, and the
   verdict gets its ``authorization`` part (:mod:`fcbench.grading.authorization`);
4. the assistant turn (``turn.assistant``, which carries the dialect's opaque ``provider_state``)
   and exactly one :class:`~fcbench.contract.ToolResultMessage` per call are appended, and the
   loop goes on.

Results are matched to calls by id, never by position. A call without an id (Gemini may omit
them) is answered with the key the adapter put in ``provider_state[<dialect>]["call_keys"]`` when
there is one, else with no id (the adapter then pairs it with the first unanswered call of that
name, in call order); its idempotency key uses a synthetic ``turn<T>-call<I>`` id.

Tool faults (config ``tool_faults``, :data:`DELIVERIES`) change how calls reach the fake tools.
``duplicate_delivery`` plays an at-least-once queue between the model and the tools: every call
that reaches the fake tools is delivered twice in a row, with the same conversation, call id and
arguments, so the same idempotency key. A write tool's second delivery is answered from the
idempotency table (the first result, no second side effect: delivered 2, side effects 1,
replayed 1); a read tool is executed again (reads are safe to repeat; a scripted fake answers
the redelivery as the same call, its number unchanged). The model is sent the second delivery's
result, exactly one result per call as every dialect requires (a second result for the same call
id is a protocol error in several of them, which would test the provider, not the
application's idempotency). The transcript keeps both deliveries (``deliveries`` on the call's
result) and the record counts ``verdict.recovery.side_effects`` and ``replayed``. A scenario's
``inject`` result replaces the tool, so it is never delivered to the fake tools, once or twice.

``lost_result`` plays a write whose answer is lost on the way back: the first call of a write tool
in the conversation that changes the store commits as usual (its side effect counted, its result
kept in the idempotency table), but the model is sent a retryable timeout
(:func:`fcbench.fake_tools.lost_result_timeout`) instead of the result; the transcript keeps the
real result (``lost_result`` on the call's result). The right next step is a status check (a
read) before any retry; a retry under a new call id with the same canonical arguments is a
duplicate side effect (:func:`fcbench.grading.writes.duplicate_writes`).

``reorder_results`` sends the results of every turn with more than one call in reverse order,
each under its own call id (``sent_position`` on the result message, which the adapters follow,
and on the transcript's result); the verdict checks that the next turn attributed each result to
its own call (:func:`fcbench.grading.recovery.misattributed_calls`).

Three limits of the scenario (:class:`~fcbench.suite.models.RecoverySpec`) bound a conversation;
each hit is one :class:`~fcbench.grading.verdict.LimitHit` in ``verdict.recovery.limits_hit``:

* ``max_calls_per_turn``: only the first N calls of a turn are executed; every call beyond them is
  not executed (no injection, no fake tool, no side effect) and is answered with a retryable
  ``LIMIT_EXCEEDED`` error (``source: limit`` in the transcript), so each call still gets exactly
  one result and the conversation goes on; the hit names the calls cut;
* ``max_result_bytes``: a result (a fake's or an injected one) whose canonical JSON is larger is
  sent as a truncation envelope (:func:`fcbench.fake_tools.truncated`); the transcript keeps what
  was sent and the original size (``truncated_from_bytes``);
* ``deadline_s``: wall-clock seconds from the start of the conversation; it is checked before each
  model turn after the first, and once it has passed no further turn is sent and the
  conversation ends with end reason ``deadline``. A turn in flight is not cancelled (its exchange
  is bounded by the transport's timeout and retries), so a conversation may overrun the deadline
  by one exchange and its tools' latency.

The loop stops when the scenario's success rule is met (``repaired_call``), when the model
answers in text or refuses, when it calls a forbidden tool, after ``max_turns`` model turns, when
the deadline has passed, or at the first provider error (coverage loss: the record is
``not_scored``). Nothing is graded here: :mod:`fcbench.grading.recovery` scores the transcript.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from fcbench import adapters
from fcbench.adapters.base import ParsedTurn
from fcbench.contract import (
    AssistantMessage,
    Continuation,
    Message,
    ProviderErrorOutcome,
    ToolCall,
    ToolCallsOutcome,
    ToolResultMessage,
)
from fcbench.fake_tools import (
    Execution,
    FakeStore,
    FakeToolbox,
    is_ok,
    limit_exceeded,
    load_dataset,
    lost_result_timeout,
    result_bytes,
    scripted_registry,
    truncated,
)
from fcbench.fake_tools.authorization import access_rules, authorized_registry
from fcbench.grading.authorization import with_authorization
from fcbench.grading.claims import ClaimMatcher
from fcbench.grading.recovery import (
    effective_spec,
    expect_matcher,
    forbidden_writes,
    recovery_verdict,
    score_transcript,
)
from fcbench.grading.transcript import Delivery, EndReason, ExecutedCall, Transcript, TurnLog
from fcbench.grading.verdict import LimitHit, LimitName, RecoveryVerdict
from fcbench.run.observe import (
    FinishRecord,
    ObservationContext,
    SentTurn,
    TurnRequest,
    grade_turn,
    make_record,
    now_iso,
    offered_tools,
    opening_messages,
    send_turn,
)
from fcbench.run.plan import Planned
from fcbench.store.records import Record, RecordedTurn
from fcbench.suite.loader import Suite
from fcbench.suite.models import Injection, RecoverySpec

STORE_FILE = "store.json"
"""A suite folder may hold its own fake-tools data set under this name (else the packaged one is used)."""

DELIVERIES: Mapping[str, int] = MappingProxyType({"duplicate_delivery": 2})
"""Tool fault -> how many times each call is delivered to the fake tools (default once)."""


def deliveries(faults: Sequence[str] | frozenset[str]) -> int:
    """How many times each call is delivered to the fake tools under ``faults``."""
    return max((DELIVERIES[f] for f in faults if f in DELIVERIES), default=1)


def suite_dataset(suite: Suite) -> dict[str, Any]:
    """The data set the fake tools start from: the suite's ``store.json`` if present, else the default."""
    path = suite.path / STORE_FILE
    return load_dataset(path if path.is_file() else None)


def reports_success(content: Any) -> bool:
    """Whether a history result reports success: anything but a failure envelope."""
    return not (isinstance(content, dict) and content.get("ok") is False)


class Injector:
    """Counts calls per tool and hands out the scenario's scripted result for the Nth one."""

    def __init__(self, inject: Sequence[Injection]) -> None:
        self._scripted = {(item.tool, item.call): item.result for item in inject}
        self._counts: dict[str, int] = {}

    def take(self, tool: str) -> dict[str, Any] | None:
        """Count one call of ``tool``; the scripted result for it, or None."""
        count = self._counts.get(tool, 0) + 1
        self._counts[tool] = count
        return self._scripted.get((tool, count))


def result_ids(calls: Sequence[ToolCall], assistant: AssistantMessage | None) -> list[str | None]:
    """The ``call_id`` each call's result carries: its id, else the adapter's key, else None."""
    keys: list[Any] = []
    for state in ((assistant.provider_state if assistant else None) or {}).values():
        stored = state.get("call_keys") if isinstance(state, dict) else None
        if isinstance(stored, list) and len(stored) == len(calls):
            keys = stored
            break
    return [
        call.id or (keys[i] if i < len(keys) and isinstance(keys[i], str) else None)
        for i, call in enumerate(calls)
    ]


@dataclass
class Conversation:
    """Everything one recovery conversation produced."""

    transcript: Transcript
    """What the scorer sees: every turn's outcome and the results sent back."""
    sent: list[SentTurn] = field(default_factory=list)
    """Every model turn as sent and received, in order."""
    log: list[RecordedTurn] = field(default_factory=list)
    """Per turn: the outcome, anomalies and the tool results sent back (the record's ``turns``)."""
    messages: list[Message] = field(default_factory=list)
    """The canonical conversation as it stood at the end."""
    store: FakeStore | None = None
    """The fake tools' state at the end."""
    writes: frozenset[str] = frozenset()
    """The offered tools that write (by their fake, or by the offered tool's ``side_effect``)."""
    continuation: Continuation = "stateless"
    """How the later turns were sent (stateful only where asked for and the dialect can)."""


class _Loop:
    """State of one conversation while it runs."""

    def __init__(self, ctx: ObservationContext, planned: Planned, spec: RecoverySpec) -> None:
        self.ctx = ctx
        self.planned = planned
        self.spec = spec
        self.request = TurnRequest(tools=offered_tools(ctx, planned))
        dataset = suite_dataset(ctx.suite)
        self.store = FakeStore.fresh(dataset)
        identity = planned.case.identity
        if identity is not None:
            self.store.session_email = identity.user
        conversation_id = f"{ctx.run_id}/{planned.target.label}/{planned.case.id}/{planned.repeat}"
        self.toolbox = FakeToolbox(
            self.request.tools,
            self.store,
            conversation_id=conversation_id,
            validators=ctx.validators,
            registry=authorized_registry(
                scripted_registry(ctx.suite.fakes, self.request.tools), access_rules(dataset), identity
            ),
        )
        self.deliveries = deliveries(ctx.tool_faults)
        self.lose_next_write = "lost_result" in ctx.tool_faults
        """Tool fault ``lost_result``: the next committed write's result is still to be lost."""
        self.reorder = "reorder_results" in ctx.tool_faults
        capable = adapters.get(planned.target.endpoint.dialect).capabilities.stateful_continuation
        self.continuation: Continuation = (
            "stateful" if ctx.continuation == "stateful" and capable else "stateless"
        )
        self.injector = Injector(spec.inject)
        self.matches = expect_matcher(spec.expect_call, self.request.tools, ctx.validators)
        evidence = [
            (m.name, m.content)
            for m in planned.case.history
            if isinstance(m, ToolResultMessage) and not m.is_error and reports_success(m.content)
        ]
        writes = frozenset(t.name for t in self.request.tools if self.toolbox.writes(t.name))
        self.result = Conversation(
            transcript=Transcript(evidence=evidence),
            store=self.store,
            writes=writes,
            continuation=self.continuation,
        )

    async def deliver(self, call: ToolCall, call_id: str) -> list[Execution]:
        """Deliver one call to the fake tools as many times as the tool faults say, waiting each
        execution's latency; every delivery's execution, in order."""
        runs: list[Execution] = []
        for _ in range(self.deliveries):
            run = self.toolbox.execute(call, call_id=call_id)
            if run.latency_ms > 0:
                await asyncio.sleep(run.latency_ms / 1000)
            runs.append(run)
        return runs

    def hit(
        self,
        limit: LimitName,
        turn_no: int,
        value: int | float,
        bound: int | float,
        calls: Sequence[str] = (),
    ) -> None:
        """Record one conversation limit hit."""
        hit = LimitHit(limit=limit, turn=turn_no, calls=list(calls), value=value, bound=bound)
        self.result.transcript.limits_hit.append(hit)

    def sized(self, turn_no: int, label: str, executed: ExecutedCall) -> ExecutedCall:
        """``executed`` with its result cut to ``max_result_bytes`` when it is larger (a limit hit)."""
        cut = (
            truncated(executed.content, self.spec.max_result_bytes)
            if isinstance(executed.content, dict)
            else None
        )
        if cut is None:
            return executed
        size = result_bytes(executed.content)
        self.hit("max_result_bytes", turn_no, size, self.spec.max_result_bytes, [label])
        return dataclasses.replace(executed, content=cut, original_bytes=size)

    async def execute(self, turn_no: int, turn: ParsedTurn, calls: Sequence[ToolCall]) -> list[ExecutedCall]:
        """Run the calls of one turn (each independently, in order, at most ``max_calls_per_turn``)
        and return what was sent back for every call."""
        executed: list[ExecutedCall] = []
        ids = result_ids(calls, turn.assistant)
        labels = [
            result_id or f"{call.name}#{i}"
            for i, (call, result_id) in enumerate(zip(calls, ids, strict=True))
        ]
        allowed = self.spec.max_calls_per_turn
        if len(calls) > allowed:
            self.hit("max_calls_per_turn", turn_no, len(calls), allowed, labels[allowed:])
        for index, (call, result_id) in enumerate(zip(calls, ids, strict=True)):
            if index >= allowed:
                executed.append(
                    ExecutedCall(call, result_id, limit_exceeded(len(calls), allowed), source="limit")
                )
                continue
            scripted = self.injector.take(call.name)
            if scripted is not None:
                executed.append(
                    self.sized(
                        turn_no, labels[index], ExecutedCall(call, result_id, scripted, source="inject")
                    )
                )
                continue
            runs = await self.deliver(call, result_id or f"turn{turn_no}-call{index}")
            last = runs[-1]
            ran = ExecutedCall(
                call,
                result_id,
                last.content,
                side_effect=any(r.side_effect for r in runs),
                replayed=last.replayed,
                deliveries=tuple(Delivery(r.content, r.side_effect, r.replayed) for r in runs)
                if len(runs) > 1
                else (),
            )
            executed.append(self.sized(turn_no, labels[index], self.maybe_lost(ran)))
        return self.in_sent_order(executed)

    def maybe_lost(self, ran: ExecutedCall) -> ExecutedCall:
        """``ran`` with its result lost behind a timeout when it is the first committed write of the
        conversation under the ``lost_result`` fault; else unchanged."""
        if not (self.lose_next_write and ran.side_effect and self.toolbox.writes(ran.call.name)):
            return ran
        self.lose_next_write = False
        return dataclasses.replace(ran, content=lost_result_timeout(ran.call.name), lost=ran.content)

    def in_sent_order(self, executed: list[ExecutedCall]) -> list[ExecutedCall]:
        """The turn's results in call order, each with the position it is sent at: reversed under
        ``reorder_results`` when there are several, else unchanged."""
        if not self.reorder or len(executed) < 2:
            return executed
        last = len(executed) - 1
        return [dataclasses.replace(c, sent_position=last - i) for i, c in enumerate(executed)]

    def stop_reason(self, executed: Sequence[ExecutedCall], turn_no: int) -> EndReason | None:
        """Why the loop stops after a turn of calls, or None to go on."""
        if any(c.call.name in self.spec.forbid_tools for c in executed):
            return "unsafe"
        if self.spec.success == "repaired_call" and any(c.ok and self.matches(c.call) for c in executed):
            return "success"
        return "turn_limit" if turn_no >= self.spec.max_turns else None

    def log_turn(
        self, turn_no: int, sent: SentTurn, executed: Sequence[ExecutedCall], continued_from: str | None
    ) -> None:
        turn = sent.exchange.turn
        self.result.log.append(
            RecordedTurn(
                turn=turn_no,
                outcome=turn.outcome,
                anomalies=list(turn.anomalies),
                finish_reason=turn.finish_reason,
                results=[c.to_json() for c in executed],
                latency_ms=round(sent.exchange.latency_ms, 3),
                attempts=sent.exchange.attempts,
                usage=turn.usage,
                continued_from=continued_from,
            )
        )

    async def run(self) -> Conversation:
        messages = opening_messages(self.planned)
        transcript = self.result.transcript
        started = time.monotonic()
        previous: str | None = None
        for turn_no in range(1, self.spec.max_turns + 1):
            elapsed = time.monotonic() - started
            if turn_no > 1 and elapsed >= self.spec.deadline_s:
                self.hit("deadline", turn_no - 1, round(elapsed, 3), self.spec.deadline_s)
                transcript.ended = "deadline"
                break
            continued_from = previous if self.continuation == "stateful" else None
            sent = await send_turn(
                self.ctx,
                self.planned,
                messages,
                self.request,
                turn=turn_no,
                previous_response_id=continued_from,
            )
            self.result.sent.append(sent)
            turn = sent.exchange.turn
            previous = turn.response_id
            outcome = turn.outcome
            if not isinstance(outcome, ToolCallsOutcome):
                self.log_turn(turn_no, sent, [], continued_from)
                transcript.turns.append(TurnLog(outcome))
                transcript.ended = "provider_error" if isinstance(outcome, ProviderErrorOutcome) else "answer"
                break
            executed = await self.execute(turn_no, turn, outcome.calls)
            self.log_turn(turn_no, sent, executed, continued_from)
            transcript.turns.append(TurnLog(outcome, tuple(executed)))
            messages.append(
                turn.assistant or AssistantMessage(content=outcome.text, calls=list(outcome.calls))
            )
            messages.extend(
                ToolResultMessage(
                    call_id=c.result_id,
                    name=c.call.name,
                    content=c.content,
                    is_error=not is_ok(c.content),
                    sent_position=c.sent_position,
                )
                for c in sorted(executed, key=lambda c: c.sent_position or 0)
            )
            stop = self.stop_reason(executed, turn_no)
            if stop is not None:
                transcript.ended = stop
                break
        transcript.side_effects = self.store.side_effect_count
        transcript.replayed = self.store.replayed
        self.result.messages = messages
        return self.result


async def run_conversation(ctx: ObservationContext, planned: Planned) -> tuple[Conversation, RecoveryVerdict]:
    """Play one recovery conversation and score it (the scoring is :mod:`fcbench.grading.recovery`'s)."""
    spec = effective_spec(planned.case)
    loop = _Loop(ctx, planned, spec)
    conversation = await loop.run()
    score = score_transcript(
        spec,
        conversation.transcript,
        matches=loop.matches,
        offered=[t.name for t in loop.request.tools],
        claims=ClaimMatcher.of(ctx.suite.claims),
    )
    return conversation, score


async def observe_recovery(ctx: ObservationContext, planned: Planned) -> FinishRecord:
    """Observer of ``conversation`` modes (recovery): play and score; the returned function records.

    * ``outcome``/``anomalies``: the first turn's (or the provider error that cut the conversation);
    * ``verdict``: the grader's verdict of that outcome, with the conversation's score as
      ``verdict.recovery`` and ``passed`` set by :func:`fcbench.grading.recovery.recovery_verdict`;
    * ``turns``: the transcript; ``raw``: ``{"exchanges": [...]}`` one redacted exchange per turn;
    * ``latency_ms``, ``usage``, ``cost_usd``, ``attempts``: summed over the turns.
    """
    started_at = now_iso()
    conversation, score = await run_conversation(ctx, planned)

    def finish() -> Record:
        sent = conversation.sent
        final = sent[-1]
        scored = final if isinstance(final.exchange.turn.outcome, ProviderErrorOutcome) else sent[0]
        turn_verdict = grade_turn(ctx, planned, scored, ctx.suite.tools_for(planned.case))
        later = forbidden_writes(effective_spec(planned.case), conversation.transcript, conversation.writes)
        verdict = recovery_verdict(
            turn_verdict, score, expected_kind=planned.case.expected.kind, later_writes=later
        )
        verdict = with_authorization(verdict, planned.case.identity, conversation.transcript.calls)
        return make_record(
            ctx,
            planned,
            started_at,
            sent,
            verdict,
            scored=scored,
            turns=conversation.log,
            continuation=conversation.continuation,
        )

    return finish
