"""Run the probes through the ordinary machinery and keep every observation as a ``compat`` record.

The plan is target x probe variant x repeat; each observation builds its request with the probe's
tool choice, strict flag, parallel setting and streaming, exchanges it through the
:class:`~fcbench.transport.Transport` (retries, raw capture, redaction), grades it with the ordinary
grader and appends a :class:`~fcbench.records.Record` of mode ``compat`` to ``records.jsonl`` next
to a ``manifest.json``, exactly like ``fcbench run``. The matrices are derived from those records
afterwards (:mod:`fcbench.compat.classify`), so a run directory can be re-read at any time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from fcbench import __version__, adapters
from fcbench.adapters.base import RequestOptions, ToolChoice
from fcbench.compat.probes import CompatPlan, ProbeRequest, StrictChoice, build_plan
from fcbench.config import RunConfig
from fcbench.contract import Message, UserMessage
from fcbench.grading import grade
from fcbench.observe import ObservationContext, now_iso, record_identity
from fcbench.plan import Planned, Target
from fcbench.pricing import PriceTable
from fcbench.records import RECORDS_FILE, Manifest, Record, write_manifest
from fcbench.redact import Redactor
from fcbench.runner import (
    CONFIG_FILE,
    Observer,
    ProgressSink,
    execution_order,
    new_run_id,
    resolve_targets,
    run_plan,
)
from fcbench.schema.validate import ValidatorCache
from fcbench.transport import RetryPolicy, Transport

MODE: Final = "compat"

HeaderHook = Callable[[ProbeRequest, Target], Mapping[str, str] | None]
"""Extra request headers per probe and target, e.g. to drive the mock's ``sim-scripted`` model or
to inject a mock fault into one probe only."""


@dataclass
class CompatSpec:
    """A resolved compat run: config, probe plan, targets and where to write."""

    config: RunConfig
    plan: CompatPlan
    targets: list[Target]
    run_dir: Path
    run_id: str
    api_keys: dict[str, str | None]
    strict: StrictChoice
    probes: list[str] | None


@dataclass
class CompatRun:
    """What a compat run wrote."""

    run_dir: Path
    manifest: Manifest
    planned: int
    recorded: int


def prepare_compat(
    config: RunConfig, *, out_root: Path, probes: list[str] | None = None, strict: StrictChoice = "both"
) -> CompatSpec:
    """Build the probe plan and resolve targets and keys (before any request)."""
    plan = build_plan(probes, strict)
    pairs = resolve_targets(config)
    api_keys = {endpoint.name: endpoint.api_key() for endpoint, _ in pairs}
    targets = [Target(endpoint=e, model=m) for e, m in pairs]
    run_id = new_run_id()
    return CompatSpec(config, plan, targets, out_root / run_id, run_id, api_keys, strict, probes)


def plan_observations(spec: CompatSpec) -> list[Planned]:
    """Every observation in plan order: target, then probe variant, then repeat."""
    planned = []
    seq = 0
    for target in spec.targets:
        for request in spec.plan.requests.values():
            for repeat in range(spec.config.repeats):
                planned.append(Planned(seq=seq, target=target, case=request.case, repeat=repeat, mode=MODE))
                seq += 1
    return planned


def compat_observer(plan: CompatPlan, headers: HeaderHook | None = None) -> Observer:
    """An observer (runner signature) sending each planned probe variant as the probe asks."""

    async def observe(ctx: ObservationContext, planned: Planned) -> Record:
        request = plan.requests[planned.case.id]
        target = planned.target
        adapter = adapters.get(target.endpoint.dialect)
        messages: list[Message] = [UserMessage(content=request.case.prompt)]
        options = RequestOptions(
            model=target.model,
            temperature=ctx.temperature,
            max_tokens=ctx.max_tokens,
            stream=request.stream,
            seed=ctx.seed,
            strict=request.strict,
            parallel_tool_calls=request.parallel_tool_calls,
        )
        started_at = now_iso()
        built = adapter.build_request(
            ctx.suite.system, messages, request.tools, ToolChoice.parse(request.tool_choice), options
        )
        exchange = await ctx.transport.exchange(
            target.endpoint,
            adapter,
            built,
            api_key=ctx.api_keys.get(target.endpoint.name),
            offered_tools=[t.name for t in request.tools],
            headers=dict(headers(request, target) or {}) if headers else None,
        )
        turn = exchange.turn
        verdict = grade(
            request.case,
            turn.outcome,
            request.tools,
            anomalies=[a.code for a in turn.anomalies],
            validators=ctx.validators,
        )
        return Record(
            **record_identity(ctx, planned, started_at),
            outcome=turn.outcome.model_dump(),
            anomalies=[a.model_dump() for a in turn.anomalies],
            verdict=verdict.model_dump(),
            latency_ms=round(exchange.latency_ms, 3),
            usage=turn.usage.model_dump(),
            cost_usd=ctx.prices.cost(
                target.model, turn.usage.input_tokens, turn.usage.output_tokens, local=target.endpoint.local
            ),
            attempts=exchange.attempts,
            schema_changes=[c.model_dump() for c in built.schema_changes],
            notes=list(built.notes),
            raw=exchange.raw,
        )

    return observe


def _manifest(spec: CompatSpec, planned: int) -> Manifest:
    config = spec.config
    suite = spec.plan.suite
    return Manifest(
        run_id=spec.run_id,
        fcbench_version=__version__,
        suite=suite.info.name,
        suite_ref=suite.info.name,
        dataset_version=suite.info.dataset_version,
        dataset_hash=suite.dataset_hash,
        config_hash=config.hash(),
        targets=[
            {
                "label": t.label,
                "endpoint": t.endpoint.name,
                "dialect": t.endpoint.dialect,
                "model": t.model,
                "base_url": "embedded mock" if t.endpoint.is_mock else t.endpoint.base_urls,
            }
            for t in spec.targets
        ],
        modes=[MODE],
        repeats=config.repeats,
        temperature=config.temperature,
        seed=config.seed,
        planned=planned,
        started_at=now_iso(),
        filters={"probes": spec.probes or [], "strict": spec.strict},
    )


def _context(spec: CompatSpec, transport: Transport) -> ObservationContext:
    config = spec.config
    return ObservationContext(
        run_id=spec.run_id,
        suite=spec.plan.suite,
        transport=transport,
        prices=PriceTable({m: (p.input, p.output) for m, p in config.prices.items()}),
        validators=ValidatorCache(),
        api_keys=spec.api_keys,
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        seed=config.seed,
    )


async def execute_compat(
    spec: CompatSpec,
    *,
    mock_url: str | None,
    progress: ProgressSink | None = None,
    headers: HeaderHook | None = None,
) -> CompatRun:
    """Run every planned probe observation, appending records as they complete."""
    config = spec.config
    spec.targets = [Target(t.endpoint.resolved(mock_url), t.model) for t in spec.targets]
    plan = plan_observations(spec)
    manifest = _manifest(spec, len(plan))
    spec.run_dir.mkdir(parents=True, exist_ok=True)
    (spec.run_dir / CONFIG_FILE).write_text(config.model_dump_json(indent=2, by_alias=False) + "\n")
    write_manifest(spec.run_dir, manifest)
    retry_budget = config.retry_budget if config.retry_budget is not None else len(plan) // 10 + 20
    transport = Transport(
        timeout_s=config.timeout_ms / 1000,
        retry=RetryPolicy(max_retries=config.max_retries, budget=retry_budget),
        redactor=Redactor(spec.api_keys.values()),
    )
    ctx = _context(spec, transport)
    observe = compat_observer(spec.plan, headers)
    sink = progress or ProgressSink()
    sink.start(dict(Counter(p.target.label for p in plan)), {})
    try:
        recorded = await run_plan(
            ctx, execution_order(plan), observe, spec.run_dir / RECORDS_FILE, sink, config.concurrency
        )
    finally:
        await transport.aclose()
    manifest = manifest.model_copy(update={"finished_at": now_iso()})
    write_manifest(spec.run_dir, manifest)
    return CompatRun(spec.run_dir, manifest, len(plan), recorded)
