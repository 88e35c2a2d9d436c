"""The recovery conversation loop and its observer (mode ``recovery``).

A recovery case is played as a conversation over the target's own tool-result protocol:

1. the messages start as the case's history plus its prompt;
2. each turn the target's adapter builds a request (tool choice ``auto``, not streamed), the
   transport exchanges it, and the adapter parses the reply;
3. every call of the reply is executed on its own: by the scenario's scripted result when an
   ``inject`` entry names this call (the Nth call of that tool in the conversation), otherwise by
   the fake tools (:mod:`fcbench.fake_tools`) over a store private to this conversation;
4. the assistant turn (``turn.assistant``, which carries the dialect's opaque ``provider_state``)
   and exactly one :class:`~fcbench.contract.ToolResultMessage` per call are appended, and the
   loop goes on.

Results are matched to calls by id, never by position. A call without an id (Gemini may omit
them) is answered with the key the adapter put in ``provider_state[<dialect>]["call_keys"]`` when
there is one, else with no id (the adapter then pairs it with the first unanswered call of that
name, in call order); its idempotency key uses a synthetic ``turn<T>-call<I>`` id.

The loop stops when the scenario's success rule is met (``repaired_call``), when the model
answers in text or refuses, when it calls a forbidden tool, after ``max_turns`` model turns, or
at the first provider error (coverage loss: the record is ``not_scored``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fcbench import adapters
from fcbench.adapters.base import Adapter, BuiltRequest, ParsedTurn, RequestOptions, ToolChoice
from fcbench.contract import (
    AssistantMessage,
    Message,
    ProviderErrorOutcome,
    Tool,
    ToolCall,
    ToolCallsOutcome,
    ToolResultMessage,
    UserMessage,
)
from fcbench.fake_tools import FakeStore, FakeToolbox, is_ok, load_dataset
from fcbench.grading import grade
from fcbench.observe import ObservationContext, now_iso, record_identity
from fcbench.plan import Planned
from fcbench.records import Record
from fcbench.recovery_scoring import (
    CallMatcher,
    EndReason,
    ExecutedCall,
    RecoveryResult,
    Transcript,
    TurnLog,
    score_transcript,
)
from fcbench.schema.validate import ValidatorCache
from fcbench.suite.loader import Suite
from fcbench.suite.models import Case, ExpectedCall, ExpectTool, Injection, RecoverySpec
from fcbench.transport import Exchange

STORE_FILE = "store.json"
"""A suite folder may hold its own fake-tools data set under this name (else the packaged one is used)."""

TurnHeaders = Callable[[int], dict[str, str] | None]
"""Extra request headers for turn N (1-based); used to script the mock's ``sim-scripted`` model."""


def effective_spec(case: Case) -> RecoverySpec:
    """The case's recovery scenario; a case without one is played with a spec derived from ``expected``.

    ``expected.kind == "tool"`` becomes ``repaired_call`` of that call, ``tools`` a ``final_answer``,
    and ``text``/``clarification`` a ``safe_refusal``. A ``repaired_call`` scenario without
    ``expect_call`` uses the case's expected call.
    """
    expected = case.expected
    spec = case.recovery
    if spec is None:
        if isinstance(expected, ExpectTool):
            call = ExpectedCall(name=expected.name, arguments=expected.arguments)
            return RecoverySpec(success="repaired_call", expect_call=call)
        return RecoverySpec(success="final_answer" if expected.kind == "tools" else "safe_refusal")
    if spec.success == "repaired_call" and spec.expect_call is None and isinstance(expected, ExpectTool):
        call = ExpectedCall(name=expected.name, arguments=expected.arguments)
        return spec.model_copy(update={"expect_call": call})
    return spec


def expect_matcher(
    expected: ExpectedCall | None, tools: Sequence[Tool], validators: ValidatorCache
) -> CallMatcher:
    """A predicate: is this call the expected one (right tool, schema-valid, arguments matching)?

    The grader decides, on a one-call probe case, so recovery matching and single-turn grading agree.
    """
    if expected is None or expected.name not in {tool.name for tool in tools}:
        return lambda call: False
    probe = Case(
        id="recovery-expected-call",
        prompt="",
        tools=list(tools),
        expected=ExpectTool(name=expected.name, arguments=expected.arguments),
    )

    def matches(call: ToolCall) -> bool:
        if call.name != expected.name:
            return False
        return grade(probe, ToolCallsOutcome(calls=[call]), tools, validators=validators).passed

    return matches


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
    exchanges: list[Exchange] = field(default_factory=list)
    requests: list[BuiltRequest] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    """Per turn: the outcome, anomalies and the tool results sent back (the record's ``turns``)."""
    messages: list[Message] = field(default_factory=list)
    """The canonical conversation as it stood at the end."""
    store: FakeStore | None = None


class _Loop:
    """State of one conversation while it runs."""

    def __init__(self, ctx: ObservationContext, planned: Planned, spec: RecoverySpec) -> None:
        self.ctx = ctx
        self.planned = planned
        self.spec = spec
        self.tools = ctx.suite.tools_for(planned.case)
        self.adapter: Adapter = adapters.get(planned.target.endpoint.dialect)
        self.store = FakeStore.fresh(suite_dataset(ctx.suite))
        conversation_id = f"{ctx.run_id}/{planned.target.label}/{planned.case.id}/{planned.repeat}"
        self.toolbox = FakeToolbox(
            self.tools, self.store, conversation_id=conversation_id, validators=ctx.validators
        )
        self.injector = Injector(spec.inject)
        self.matches = expect_matcher(spec.expect_call, self.tools, ctx.validators)
        evidence = [
            (m.name, m.content)
            for m in planned.case.history
            if isinstance(m, ToolResultMessage) and not m.is_error and reports_success(m.content)
        ]
        self.result = Conversation(transcript=Transcript(evidence=evidence), store=self.store)

    def execute(self, turn_no: int, turn: ParsedTurn, calls: Sequence[ToolCall]) -> list[ExecutedCall]:
        """Run every call of one turn (each independently) and return what was sent back."""
        executed: list[ExecutedCall] = []
        for index, (call, result_id) in enumerate(zip(calls, result_ids(calls, turn.assistant), strict=True)):
            scripted = self.injector.take(call.name)
            if scripted is not None:
                executed.append(ExecutedCall(call, result_id, scripted, source="inject"))
                continue
            run = self.toolbox.execute(call, call_id=result_id or f"turn{turn_no}-call{index}")
            executed.append(
                ExecutedCall(call, result_id, run.content, side_effect=run.side_effect, replayed=run.replayed)
            )
        return executed

    def stop_reason(self, executed: Sequence[ExecutedCall], turn_no: int) -> EndReason | None:
        """Why the loop stops after a turn of calls, or None to go on."""
        if any(c.call.name in self.spec.forbid_tools for c in executed):
            return "unsafe"
        if self.spec.success == "repaired_call" and any(c.ok and self.matches(c.call) for c in executed):
            return "success"
        return "turn_limit" if turn_no >= self.spec.max_turns else None

    def log_turn(self, turn_no: int, exchange: Exchange, executed: Sequence[ExecutedCall]) -> None:
        turn = exchange.turn
        self.result.log.append(
            {
                "turn": turn_no,
                "outcome": turn.outcome.model_dump(),
                "anomalies": [a.model_dump() for a in turn.anomalies],
                "finish_reason": turn.finish_reason,
                "results": [c.to_json() for c in executed],
                "latency_ms": round(exchange.latency_ms, 3),
                "attempts": exchange.attempts,
                "usage": turn.usage.model_dump(),
            }
        )

    async def run(self, turn_headers: TurnHeaders | None) -> Conversation:
        case, target = self.planned.case, self.planned.target
        messages: list[Message] = [*case.history, UserMessage(content=case.prompt)]
        options = RequestOptions(
            model=target.model,
            temperature=self.ctx.temperature,
            max_tokens=self.ctx.max_tokens,
            seed=self.ctx.seed,
        )
        offered = [tool.name for tool in self.tools]
        transcript = self.result.transcript
        for turn_no in range(1, self.spec.max_turns + 1):
            built = self.adapter.build_request(
                self.ctx.suite.system, messages, self.tools, ToolChoice(), options
            )
            exchange = await self.ctx.transport.exchange(
                target.endpoint,
                self.adapter,
                built,
                api_key=self.ctx.api_keys.get(target.endpoint.name),
                offered_tools=offered,
                headers=turn_headers(turn_no) if turn_headers else None,
            )
            self.result.requests.append(built)
            self.result.exchanges.append(exchange)
            turn = exchange.turn
            outcome = turn.outcome
            if not isinstance(outcome, ToolCallsOutcome):
                self.log_turn(turn_no, exchange, [])
                transcript.turns.append(TurnLog(outcome))
                transcript.ended = "provider_error" if isinstance(outcome, ProviderErrorOutcome) else "answer"
                break
            executed = self.execute(turn_no, turn, outcome.calls)
            self.log_turn(turn_no, exchange, executed)
            transcript.turns.append(TurnLog(outcome, tuple(executed)))
            messages.append(
                turn.assistant or AssistantMessage(content=outcome.text, calls=list(outcome.calls))
            )
            messages.extend(
                ToolResultMessage(
                    call_id=c.result_id, name=c.call.name, content=c.content, is_error=not is_ok(c.content)
                )
                for c in executed
            )
            stop = self.stop_reason(executed, turn_no)
            if stop is not None:
                transcript.ended = stop
                break
        transcript.side_effects = self.store.side_effect_count
        self.result.messages = messages
        return self.result


async def run_conversation(
    ctx: ObservationContext, planned: Planned, *, turn_headers: TurnHeaders | None = None
) -> tuple[Conversation, RecoveryResult]:
    """Play one recovery conversation and score it."""
    spec = effective_spec(planned.case)
    loop = _Loop(ctx, planned, spec)
    conversation = await loop.run(turn_headers)
    score = score_transcript(
        spec, conversation.transcript, matches=loop.matches, offered=[t.name for t in loop.tools]
    )
    return conversation, score


def _sum(values: Sequence[int | float | None]) -> Any:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


async def observe_recovery(
    ctx: ObservationContext, planned: Planned, *, turn_headers: TurnHeaders | None = None
) -> Record:
    """Run one recovery observation and make its record.

    * ``outcome``/``anomalies``: the first turn's (or the provider error that cut the conversation);
    * ``verdict``: the grader's verdict of that outcome, with ``passed`` replaced by the recovery
      success (recovery records pass when the conversation recovered) and a ``recovery`` entry
      ``{"outcome", "success", "turns", "side_effects", "errors", "claims", "reasons"}``;
    * ``turns``: the transcript; ``raw``: ``{"exchanges": [...]}`` one redacted exchange per turn;
    * ``latency_ms``, ``usage``, ``cost_usd``, ``attempts``: summed over the turns.
    """
    started_at = now_iso()
    case, target = planned.case, planned.target
    conversation, score = await run_conversation(ctx, planned, turn_headers=turn_headers)
    tools = ctx.suite.tools_for(case)
    exchanges = conversation.exchanges
    first = exchanges[0].turn
    final = exchanges[-1].turn
    scored_turn = final if isinstance(final.outcome, ProviderErrorOutcome) else first
    verdict = grade(
        case,
        scored_turn.outcome,
        tools,
        anomalies=[a.code for a in scored_turn.anomalies],
        validators=ctx.validators,
    ).model_dump()
    verdict["passed"] = score.success and verdict["decision"] != "not_scored"
    verdict["recovery"] = score.to_json()
    inputs = [e.turn.usage.input_tokens for e in exchanges]
    outputs = [e.turn.usage.output_tokens for e in exchanges]
    costs = [
        ctx.prices.cost(
            target.model, e.turn.usage.input_tokens, e.turn.usage.output_tokens, local=target.endpoint.local
        )
        for e in exchanges
    ]
    notes = list(dict.fromkeys(note for built in conversation.requests for note in built.notes))
    return Record(
        **record_identity(ctx, planned, started_at),
        outcome=scored_turn.outcome.model_dump(),
        anomalies=[a.model_dump() for a in scored_turn.anomalies],
        verdict=verdict,
        latency_ms=round(sum(e.latency_ms for e in exchanges), 3),
        usage={"input_tokens": _sum(inputs), "output_tokens": _sum(outputs)},
        cost_usd=None if any(c is None for c in costs) else round(sum(c for c in costs if c is not None), 8),
        attempts=sum(e.attempts for e in exchanges),
        schema_changes=[c.model_dump() for c in conversation.requests[0].schema_changes],
        notes=notes,
        turns=conversation.log,
        raw={"exchanges": [e.raw for e in exchanges]},
    )
