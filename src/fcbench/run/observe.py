"""The one observation kernel: build the request, exchange it, grade the outcome, make the record.

Every mode goes through :func:`send_turn` (one model turn: adapter ``build_request`` -> transport
``exchange`` -> adapter ``parse_response``) and :func:`make_record` (one record from the turns an
observation played). Single-turn modes and compat probes grade their one turn here; the recovery
loop (:mod:`fcbench.run.recovery`) calls :func:`send_turn` once per model turn and leaves the
scoring to :mod:`fcbench.grading.recovery`. Only the grader decides ``passed``.

An observer returns once its requests are answered, with a :data:`FinishRecord` that grades the
last of it and builds the record: the worker pool calls it after the worker has sent its next
request, so no request waits for the grading of another (:func:`fcbench.run.pool.run_plan`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from fcbench import adapters
from fcbench.adapters.base import BuiltRequest, RequestOptions, ToolChoice
from fcbench.adapters.common import tool_choice_anomaly
from fcbench.contract import (
    MODES,
    Anomaly,
    Continuation,
    Message,
    ProviderErrorOutcome,
    Tool,
    Usage,
    UserMessage,
)
from fcbench.grading import Verdict, grade
from fcbench.pricing import MAX_TOKEN_COUNT, PriceTable, usage_problems
from fcbench.run.cache import ResponseCache
from fcbench.run.plan import Planned
from fcbench.run.tool_order import ToolOrders, offered_order
from fcbench.schema.validate import ValidatorCache
from fcbench.store.records import CaseRef, Record, RecordedTurn
from fcbench.suite.loader import Suite
from fcbench.transport import Exchange, Transport

FinishRecord = Callable[[], Record]
"""Grades an observation whose requests are all answered and builds its record (see the module)."""

RequestHeaders = Callable[[Planned, int], Mapping[str, str] | None]
"""Extra request headers for an observation's turn N (1-based), e.g. to script the mock's
``sim-scripted`` model or inject a mock fault into one request only."""


@dataclass(frozen=True)
class TurnRequest:
    """What one model turn asks for: the tools offered and how the request is shaped."""

    tools: Sequence[Tool]
    """Tools offered, canonical."""
    tool_choice: str = "auto"
    """``auto``, ``required``, ``none`` or ``tool:<name>``."""
    stream: bool = False
    """Ask for a streamed reply."""
    strict: bool = False
    """Ask for strict (constrained) tool arguments where the dialect supports it."""
    parallel_tool_calls: bool | None = None
    """None leaves the provider default; False asks for at most one call where the dialect can."""


@dataclass
class ObservationContext:
    """What every observation of a run shares."""

    run_id: str
    """The run's id, copied into every record."""
    suite: Suite
    """The suite the cases come from."""
    transport: Transport
    """The run's one transport (pooled clients, limits, retries, redaction)."""
    prices: PriceTable
    """Prices per model, for ``cost_usd``."""
    validators: ValidatorCache
    """Compiled schemas, shared by every grading of the run."""
    api_keys: dict[str, str | None]
    """Endpoint name -> key (never written anywhere; the transport redacts it)."""
    temperature: float | None
    """Temperature sent (None: the provider's default)."""
    max_tokens: int
    """Output token limit per request."""
    seed: int
    """Seed sent to providers that accept one."""
    requests: Mapping[str, TurnRequest] = field(default_factory=dict)
    """Case id -> request shape, for ``probe`` modes (compat: each probe variant asks its own way)."""
    headers: RequestHeaders | None = None
    """Extra request headers per observation and turn."""
    tool_faults: frozenset[str] = frozenset()
    """Faults the harness injects between the model and the fake tools in multi-turn modes
    (config ``tool_faults``; see :mod:`fcbench.run.recovery`)."""
    continuation: Continuation = "stateless"
    """Multi-turn modes: ``stateful`` continues the provider's stored conversation by id where the
    dialect can (config ``continuation``)."""
    cache: ResponseCache | None = None
    """The response cache of ``--cache`` (:mod:`fcbench.run.cache`); None: every request is sent."""
    tool_orders: ToolOrders | None = None
    """The orders the tools are offered in (config ``tool_order``); None: the suite's order."""


@dataclass(frozen=True)
class SentTurn:
    """One model turn as sent and received."""

    built: BuiltRequest
    """The wire request the adapter built."""
    exchange: Exchange
    """The transport's result: the parsed turn, timing, attempts and redacted raw exchange."""
    cached: bool = False
    """The answer came from the response cache: nothing was sent."""


def now_iso() -> str:
    """Current UTC time, ISO 8601 with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def case_ref(planned: Planned) -> CaseRef:
    """The record's summary of the case."""
    case = planned.case
    return CaseRef(
        category=case.category, tags=list(case.tags), expected_kind=case.expected.kind, prompt=case.prompt
    )


def offered_tools(ctx: ObservationContext, planned: Planned) -> list[Tool]:
    """The case's tools in the order this observation offers them (:mod:`fcbench.run.tool_order`)."""
    tools = ctx.suite.tools_for(planned.case)
    if ctx.tool_orders is None:
        return list(tools)
    return offered_order(ctx.tool_orders, planned.case, planned.repeat, tools)[0]


def opening_messages(planned: Planned) -> list[Message]:
    """The conversation an observation starts from: the case's history, then its prompt."""
    return [*planned.case.history, UserMessage(content=planned.case.prompt)]


async def send_turn(
    ctx: ObservationContext,
    planned: Planned,
    messages: Sequence[Message],
    request: TurnRequest,
    *,
    turn: int = 1,
    previous_response_id: str | None = None,
) -> SentTurn:
    """Build one request in the target's dialect, exchange it and parse the reply.

    The parsed turn gets a ``tool_choice_ignored`` anomaly when the reply did not honour the
    requested tool choice (:func:`fcbench.adapters.common.tool_choice_anomaly`), for every dialect
    alike: the parsers do not see the request, so this is decided here, once.
    """
    target = planned.target
    own = target.settings
    adapter = adapters.get(target.endpoint.dialect)
    options = RequestOptions(
        model=target.model,
        temperature=ctx.temperature,
        max_tokens=ctx.max_tokens,
        stream=request.stream,
        seed=ctx.seed,
        strict=request.strict if own.strict is None else own.strict,
        parallel_tool_calls=request.parallel_tool_calls
        if own.parallel_tool_calls is None
        else own.parallel_tool_calls,
        previous_response_id=previous_response_id,
    )
    choice = ToolChoice.parse(request.tool_choice)
    built = adapter.build_request(ctx.suite.system, list(messages), list(request.tools), choice, options)
    if own.params:
        built = built.model_copy(update={"body": merged_params(built.body, own.params)})
    per_request = ctx.headers(planned, turn) if ctx.headers else None
    extra = {**own.headers, **(per_request or {})}
    key = ctx.cache.key(planned, built, extra, turn) if ctx.cache is not None else None
    kept = ctx.cache.get(key) if ctx.cache is not None and key is not None else None
    if kept is not None:
        return SentTurn(built, with_tool_choice_check(kept, choice), cached=True)
    exchange = await ctx.transport.exchange(
        target.endpoint,
        adapter,
        built,
        api_key=ctx.api_keys.get(target.endpoint.name),
        offered_tools=[tool.name for tool in request.tools],
        headers=extra or None,
    )
    if ctx.cache is not None and key is not None:
        ctx.cache.put(key, exchange)
    return SentTurn(built, with_tool_choice_check(exchange, choice))


def merged_params(body: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, Any]:
    """``body`` with a target's ``params`` merged in: objects key by key, anything else replaced."""
    merged = dict(body)
    for key, value in params.items():
        current = merged.get(key)
        both_objects = isinstance(current, Mapping) and isinstance(value, Mapping)
        merged[key] = merged_params(current, value) if both_objects else value  # type: ignore[arg-type]
    return merged


def with_tool_choice_check(exchange: Exchange, choice: ToolChoice) -> Exchange:
    """``exchange`` with a ``tool_choice_ignored`` anomaly added when its turn ignored ``choice``
    (unless the adapter already recorded one, e.g. Gemini's ``UNEXPECTED_TOOL_CALL``)."""
    turn = exchange.turn
    found = tool_choice_anomaly(choice, turn.outcome)
    if found is None or any(a.code == found.code for a in turn.anomalies):
        return exchange
    return replace(exchange, turn=turn.model_copy(update={"anomalies": [*turn.anomalies, found]}))


def grade_turn(ctx: ObservationContext, planned: Planned, sent: SentTurn, tools: Sequence[Tool]) -> Verdict:
    """The grader's verdict of one turn's outcome, with the adapter's anomalies."""
    turn = sent.exchange.turn
    return grade(planned.case, turn.outcome, list(tools), anomalies=turn.anomalies, validators=ctx.validators)


def _total(values: Sequence[int | None]) -> int | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def _kept(count: int | None) -> int | None:
    return None if count is None or abs(count) > MAX_TOKEN_COUNT else count


def priced_usage(
    ctx: ObservationContext, planned: Planned, usages: Sequence[Usage]
) -> tuple[Usage, float | None, list[Anomaly]]:
    """The summed usage and cost of an observation's turns. A count or a cost no number can hold
    (:func:`fcbench.pricing.usage_problems`) is left out (null) and noted as an
    ``implausible_usage`` anomaly: the answer is graded and recorded as any other."""
    target = planned.target
    summed = {name: _total([getattr(u, name) for u in usages]) for name in Usage.model_fields}
    problems = usage_problems(summed["input_tokens"], summed["output_tokens"], None)
    cost: float | None = None
    if not problems:
        costs = [ctx.prices.cost(target.model, u, local=target.endpoint.local) for u in usages]
        cost = None if any(c is None for c in costs) else round(sum(c for c in costs if c is not None), 8)
        problems = usage_problems(None, None, cost)
        cost = None if problems else cost
    anomalies = [Anomaly(code="implausible_usage", detail=problem) for problem in problems]
    return Usage(**{name: _kept(count) for name, count in summed.items()}), cost, anomalies


def make_record(
    ctx: ObservationContext,
    planned: Planned,
    started_at: str,
    sent: Sequence[SentTurn],
    verdict: Verdict,
    *,
    scored: SentTurn | None = None,
    turns: Sequence[RecordedTurn] = (),
    continuation: Continuation | None = None,
) -> Record:
    """One record from the turns an observation played (one, or one per turn of a conversation).

    ``outcome`` and ``anomalies`` are those of ``scored`` (default: the first turn); latency,
    usage, cost and attempts are summed over the turns; a single turn keeps its raw exchange as
    ``{"request", "response", ...}``, several as ``{"exchanges": [...]}``.
    """
    first = (scored or sent[0]).exchange.turn
    usage, cost, implausible = priced_usage(ctx, planned, [s.exchange.turn.usage for s in sent])
    exchanges = [s.exchange.raw for s in sent]
    raw = exchanges[0] if len(sent) == 1 and not turns else {"exchanges": exchanges}
    return Record(
        **record_identity(ctx, planned, started_at),
        outcome=first.outcome,
        anomalies=[*first.anomalies, *implausible],
        verdict=verdict,
        latency_ms=round(sum(s.exchange.latency_ms for s in sent), 3),
        usage=usage,
        cost_usd=cost,
        attempts=sum(s.exchange.attempts for s in sent),
        schema_changes=list(sent[0].built.schema_changes),
        notes=list(dict.fromkeys(note for s in sent for note in s.built.notes)),
        turns=list(turns),
        continuation=continuation,
        raw=raw,
        cached=any(s.cached for s in sent),
    )


def record_identity(ctx: ObservationContext, planned: Planned, started_at: str) -> dict[str, object]:
    """The fields every record of an observation starts with: which run, plan slot, target and case."""
    return {
        "run_id": ctx.run_id,
        "seq": planned.seq,
        "started_at": started_at,
        "dataset_version": ctx.suite.info.dataset_version,
        "target": planned.target.ref,
        "case_id": planned.case.id,
        "case": case_ref(planned),
        "repeat": planned.repeat,
        "mode": planned.mode,
        **_tool_order(ctx, planned),
    }


def _tool_order(ctx: ObservationContext, planned: Planned) -> dict[str, object]:
    """The record's ``tool_order`` field, in a run that varies the order (else nothing)."""
    if ctx.tool_orders is None:
        return {}
    tools = ctx.suite.tools_for(planned.case)
    return {"tool_order": offered_order(ctx.tool_orders, planned.case, planned.repeat, tools)[1]}


def harness_error_record(
    ctx: ObservationContext, planned: Planned, started_at: str, exc: BaseException
) -> Record:
    """A record for an observation the harness itself failed on (coverage loss; the run goes on)."""
    outcome = ProviderErrorOutcome(code="harness", message=f"{type(exc).__name__}: {exc}")
    return Record(
        **record_identity(ctx, planned, started_at),
        outcome=outcome,
        verdict=grade(planned.case, outcome, ctx.suite.tools_for(planned.case)),
        error=f"{type(exc).__name__}: {exc}",
    )


def single_turn_request(ctx: ObservationContext, planned: Planned) -> TurnRequest:
    """The request of a ``single_turn`` mode: the case's tools, asked as the mode table says."""
    mode = MODES[planned.mode]
    return TurnRequest(tools=offered_tools(ctx, planned), tool_choice=mode.tool_choice, stream=mode.stream)


def probe_request(ctx: ObservationContext, planned: Planned) -> TurnRequest:
    """The request of a ``probe`` mode: the shape the run's probe plan gives this case."""
    return ctx.requests[planned.case.id]


async def observe_one_turn(ctx: ObservationContext, planned: Planned, request: TurnRequest) -> FinishRecord:
    """Observe one turn asked as ``request``: send it; the returned function grades it and records."""
    started_at = now_iso()
    sent = await send_turn(ctx, planned, opening_messages(planned), request)

    def finish() -> Record:
        return make_record(ctx, planned, started_at, [sent], grade_turn(ctx, planned, sent, request.tools))

    return finish


async def observe_single_turn(ctx: ObservationContext, planned: Planned) -> FinishRecord:
    """Observer of ``single_turn`` modes (selection, forced, stream)."""
    return await observe_one_turn(ctx, planned, single_turn_request(ctx, planned))


async def observe_probe(ctx: ObservationContext, planned: Planned) -> FinishRecord:
    """Observer of ``probe`` modes (compat)."""
    return await observe_one_turn(ctx, planned, probe_request(ctx, planned))
