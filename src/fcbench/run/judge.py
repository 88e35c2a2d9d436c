"""The judge pass of a run (``fcbench run --judge TARGET``): a rating beside the verdict, never instead.

:func:`judging` wraps a run's observer: once an observation is played and graded, an observation
whose verdict is about a text (:func:`fcbench.grading.judge.is_judged`) is rated by the judge
target: one request with the fixed rubric as its system prompt, the conversation, the offered
tools, what is missing and the reply as its one user message, and ``rate_reply`` as the one tool,
forced. The rating (:class:`~fcbench.grading.judge.JudgeRating`) goes into the record's ``judge``
field; the verdict and everything else of the record stay as graded. A judge that fails (its
provider error, a reply without the call, a harness error while judging) gives a rating with
``error`` set, so the observation of the target is recorded as it was observed.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from fcbench import adapters
from fcbench.adapters.base import RequestOptions, ToolChoice
from fcbench.contract import TextOutcome, UserMessage
from fcbench.grading.judge import (
    RATE_TOOL,
    JudgeRating,
    Rubric,
    is_judged,
    judge_prompt,
    rate_tool,
    read_rating,
)
from fcbench.run.modes import Observer
from fcbench.run.observe import FinishRecord, ObservationContext, with_tool_choice_check
from fcbench.run.plan import Planned, Target
from fcbench.store.records import Record

JUDGE_TEMPERATURE = 0.0
"""The temperature every judge request is sent with (pinned in the manifest)."""


@dataclass(frozen=True)
class Judge:
    """The judge of a run: the target that rates, and the rubric it rates with."""

    target: Target
    """The judge target (resolved: a managed service's address filled in)."""
    rubric: Rubric
    """The fixed, versioned rubric (:func:`fcbench.grading.judge.load_rubric`)."""


async def rate(ctx: ObservationContext, judge: Judge, planned: Planned, reply: str) -> JudgeRating:
    """Ask ``judge`` to rate ``reply``, the text the target answered ``planned`` with."""
    target = judge.target
    adapter = adapters.get(target.endpoint.dialect)
    options = RequestOptions(
        model=target.model, temperature=JUDGE_TEMPERATURE, max_tokens=ctx.max_tokens, seed=ctx.seed
    )
    prompt = judge_prompt(planned.case, ctx.suite.tools_for(planned.case), reply)
    choice = ToolChoice.parse(f"tool:{RATE_TOOL}")
    built = adapter.build_request(
        judge.rubric.text, [UserMessage(content=prompt)], [rate_tool()], choice, options
    )
    exchange = await ctx.transport.exchange(
        target.endpoint,
        adapter,
        built,
        api_key=ctx.api_keys.get(target.endpoint.name),
        offered_tools=[RATE_TOOL],
    )
    turn = with_tool_choice_check(exchange, choice).turn  # a reply without the forced call is noted
    return JudgeRating(
        **read_rating(target.label, turn.outcome),
        rubric=judge.rubric.version,
        outcome=turn.outcome,
        anomalies=[anomaly.code for anomaly in turn.anomalies],
        latency_ms=round(exchange.latency_ms, 3),
        attempts=exchange.attempts,
        raw=exchange.raw,
    )


async def judged_record(ctx: ObservationContext, judge: Judge, planned: Planned, record: Record) -> Record:
    """``record`` with the judge's rating in ``judge`` when its verdict is about a text; else as it is."""
    outcome = record.outcome
    verdict = record.verdict
    if verdict is None or not isinstance(outcome, TextOutcome) or not is_judged(verdict, outcome):
        return record
    try:
        rating = await rate(ctx, judge, planned, outcome.text)
    except Exception as exc:  # the judge's failure is the judge's coverage, never the target's
        why = f"harness: {type(exc).__name__}: {exc}"
        rating = JudgeRating(target=judge.target.label, rubric=judge.rubric.version, error=why)
    return record.model_copy(update={"judge": rating})


def judging(observe: Observer, judge: Judge) -> Observer:
    """``observe`` followed, for every observation it plays, by the judge pass (see the module)."""

    async def observe_and_judge(ctx: ObservationContext, planned: Planned) -> FinishRecord:
        finish = await observe(ctx, planned)
        graded = await asyncio.to_thread(finish)  # suite patterns may take long: off the event loop
        rated = await judged_record(ctx, judge, planned, graded)
        return lambda: rated

    return observe_and_judge


__all__ = ["JUDGE_TEMPERATURE", "Judge", "judged_record", "judging", "rate"]
