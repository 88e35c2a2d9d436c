"""One observation: build the request, exchange it, grade the outcome, make the record.

Single-turn modes are a registry (:data:`SINGLE_TURN_MODES`) of tool choice and streaming
settings; multi-turn modes register their own observer in the runner.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from fcbench import adapters
from fcbench.adapters.base import RequestOptions, ToolChoice
from fcbench.contract import Message, ProviderErrorOutcome, UserMessage
from fcbench.grading import grade
from fcbench.plan import Planned
from fcbench.pricing import PriceTable
from fcbench.records import CaseRef, Record
from fcbench.schema.validate import ValidatorCache
from fcbench.suite.loader import Suite
from fcbench.transport import Transport


@dataclass(frozen=True)
class SingleTurnMode:
    """How a single-turn mode asks: the tool choice and whether to stream."""

    tool_choice: str
    stream: bool


SINGLE_TURN_MODES: dict[str, SingleTurnMode] = {
    "selection": SingleTurnMode(tool_choice="auto", stream=False),
    "forced": SingleTurnMode(tool_choice="required", stream=False),
    "stream": SingleTurnMode(tool_choice="auto", stream=True),
}
"""``selection`` is the primary comparison (auto); ``forced`` is a separate experiment so forced
calls never inflate recall; ``stream`` repeats ``selection`` over the streaming protocol."""


@dataclass
class ObservationContext:
    """What every observation of a run shares."""

    run_id: str
    suite: Suite
    transport: Transport
    prices: PriceTable
    validators: ValidatorCache
    api_keys: dict[str, str | None]
    """Endpoint name -> key (never written anywhere; the transport redacts it)."""
    temperature: float | None
    max_tokens: int
    seed: int


def now_iso() -> str:
    """Current UTC time, ISO 8601 with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def case_ref(planned: Planned) -> CaseRef:
    """The record's summary of the case."""
    case = planned.case
    return CaseRef(
        category=case.category, tags=list(case.tags), expected_kind=case.expected.kind, prompt=case.prompt
    )


def record_identity(ctx: ObservationContext, planned: Planned, started_at: str) -> dict[str, Any]:
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
    }


def harness_error_record(
    ctx: ObservationContext, planned: Planned, started_at: str, exc: BaseException
) -> Record:
    """A record for an observation the harness itself failed on (coverage loss; the run goes on)."""
    outcome = ProviderErrorOutcome(code="harness", message=f"{type(exc).__name__}: {exc}")
    return Record(
        **record_identity(ctx, planned, started_at),
        outcome=outcome.model_dump(),
        verdict=grade(planned.case, outcome, ctx.suite.tools_for(planned.case)).model_dump(),
        error=f"{type(exc).__name__}: {exc}",
    )


async def observe_single_turn(ctx: ObservationContext, planned: Planned) -> Record:
    """Run one single-turn observation (selection, forced or stream)."""
    mode = SINGLE_TURN_MODES[planned.mode]
    case = planned.case
    target = planned.target
    tools = ctx.suite.tools_for(case)
    adapter = adapters.get(target.endpoint.dialect)
    messages: list[Message] = [*case.history, UserMessage(content=case.prompt)]
    options = RequestOptions(
        model=target.model,
        temperature=ctx.temperature,
        max_tokens=ctx.max_tokens,
        stream=mode.stream,
        seed=ctx.seed,
    )
    started_at = now_iso()
    built = adapter.build_request(
        ctx.suite.system, messages, tools, ToolChoice.parse(mode.tool_choice), options
    )
    offered = [t.name for t in tools]
    exchange = await ctx.transport.exchange(
        target.endpoint, adapter, built, api_key=ctx.api_keys.get(target.endpoint.name), offered_tools=offered
    )
    turn = exchange.turn
    verdict = grade(
        case, turn.outcome, tools, anomalies=[a.code for a in turn.anomalies], validators=ctx.validators
    )
    usage = turn.usage.model_dump()
    cost = ctx.prices.cost(
        target.model, turn.usage.input_tokens, turn.usage.output_tokens, local=target.endpoint.local
    )
    return Record(
        **record_identity(ctx, planned, started_at),
        outcome=turn.outcome.model_dump(),
        anomalies=[a.model_dump() for a in turn.anomalies],
        verdict=verdict.model_dump(),
        latency_ms=round(exchange.latency_ms, 3),
        usage=usage,
        cost_usd=cost,
        attempts=exchange.attempts,
        schema_changes=[c.model_dump() for c in built.schema_changes],
        notes=list(built.notes),
        raw=exchange.raw,
    )
