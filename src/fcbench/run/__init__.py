"""The run: THE pipeline between a config and ``records.jsonl``.

``prepare`` loads the suite and resolves targets and keys (before any request); ``execute``
starts from the plan (:mod:`.plan`: target x case x repeat x mode), writes the manifest, observes
every planned observation with its mode's observer (:mod:`.modes`, all built on the one kernel
in :mod:`.observe`; recovery conversations in :mod:`.recovery`) in a pool of asyncio workers
(:mod:`.pool`) under a global concurrency limit (per-endpoint limits live in the transport),
appends one record per observation, and completes the manifest. A harness exception in one
observation is recorded as ``provider_error: harness`` and the run goes on. Resuming skips every
observation already recorded and never writes a duplicate. ``fcbench compat`` is a run of mode
``compat`` over the probe plan's cases, through the same path.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fcbench import __version__
from fcbench.config import RunConfig, TargetSettings
from fcbench.contract import MODES, Usage
from fcbench.endpoints import (
    Endpoint,
    RunningService,
    all_endpoints,
    parse_target,
    target_label,
)
from fcbench.errors import ConfigError, RunStateError, TargetError
from fcbench.files import write_replacing
from fcbench.grading.judge import load_rubric
from fcbench.grading.recovery import effective_spec
from fcbench.redact import Redactor
from fcbench.run.cache import ResponseCache, check_resume_cache
from fcbench.run.judge import JUDGE_TEMPERATURE, Judge, judging
from fcbench.run.modes import Observer, observe
from fcbench.run.observe import ObservationContext, RequestHeaders, TurnRequest, now_iso
from fcbench.run.pins import CONFIG_FILE, check_pinned, not_taken, pinned_target, resume_base, tool_pins
from fcbench.run.plan import Plan, Planned, Recorded, Shard, Target, select_cases
from fcbench.run.pool import FailFast, ProgressSink
from fcbench.run.tool_order import orders_per_case, tool_orders
from fcbench.run.workers import observe_plan
from fcbench.schema.validate import ValidatorCache
from fcbench.store.lock import run_dir_lock
from fcbench.store.merge import fold_worker_streams
from fcbench.store.records import (
    RECORDS_FILE,
    JudgePin,
    Manifest,
    ObservationKey,
    is_record,
    iter_record_dicts,
    read_manifest,
    record_key,
    write_manifest,
)
from fcbench.suite.caselist import heads_of
from fcbench.suite.imports import text_sha256
from fcbench.suite.loader import Suite, load_suite
from fcbench.suite.models import Case
from fcbench.transport import Limits, RetryPolicy, Transport


@dataclass
class RunResult:
    """What a run did."""

    run_dir: Path
    """The run directory."""
    manifest: Manifest
    """The manifest as written."""
    planned: int
    """Observations planned (of this shard)."""
    recorded: int
    """Observations recorded by this invocation."""
    skipped: int
    """Observations found already recorded (resume)."""
    retries: int = 0
    """Retries the transport spent."""
    stopped: dict[str, str] = field(default_factory=dict)
    """Target label -> why ``fail_fast`` stopped it (its remaining observations were not made)."""


@dataclass
class RunSpec:
    """A fully resolved run: config, suite, targets and where to write."""

    config: RunConfig
    """The effective configuration."""
    suite: Suite
    """The loaded suite (for compat: the probe plan's suite)."""
    targets: list[Target]
    """Resolved targets, in config order."""
    run_dir: Path
    """Where records and the manifest go."""
    run_id: str
    """The run's id."""
    shard: Shard | None = None
    """The slice of the plan this invocation runs."""
    resume: bool = False
    """Continue an existing run directory."""
    api_keys: dict[str, str | None] = field(default_factory=dict)
    """Endpoint name -> key, resolved before any request (never written)."""
    requests: Mapping[str, TurnRequest] = field(default_factory=dict)
    """Case id -> request shape for ``probe`` modes (compat)."""
    filters: dict[str, Any] | None = None
    """What the manifest records as the selection; default: the config's case filters."""
    judge: Target | None = None
    """The optional judge target (config ``judge``), resolved like the targets; None without one."""
    cache_dir: Path | None = None
    """``--cache``: the folder of the response cache (:mod:`fcbench.run.cache`); None: off."""


def suite_ref(suite: str) -> str:
    """A reference that loads the same suite from any working directory."""
    path = Path(suite)
    return str(path.resolve()) if path.exists() else suite


def new_run_id() -> str:
    """``YYYYmmdd-HHMMSS-xxxxxx``: sortable and unique."""
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)


def resolve_targets(config: RunConfig) -> list[tuple[Endpoint, str]]:
    """Parse every ``ENDPOINT:MODEL`` of the config against built-in and user endpoints."""
    endpoints = all_endpoints(config.user_endpoints())
    seen: set[str] = set()
    resolved = []
    for spec in config.target_specs():
        if spec in seen:
            raise ConfigError(f"target {spec!r} is listed twice", key="targets")
        seen.add(spec)
        resolved.append(parse_target(spec, endpoints))
    return resolved


def judge_target(config: RunConfig) -> Target | None:
    """The judge of ``config`` (``judge: ENDPOINT:MODEL``) resolved like a target; None without one."""
    if config.judge is None:
        return None
    try:
        endpoint, model = parse_target(config.judge, all_endpoints(config.user_endpoints()))
    except TargetError as exc:
        raise ConfigError(f"{config.judge!r}: {exc}", key="judge") from None
    settings = config.target_settings().get(target_label(endpoint.name, model), TargetSettings())
    return Target(endpoint, model, settings)


def prepare(
    config: RunConfig,
    *,
    out_root: Path,
    resume_dir: Path | None = None,
    shard: Shard | None = None,
    suite: Suite | None = None,
    requests: Mapping[str, TurnRequest] | None = None,
    filters: dict[str, Any] | None = None,
    check_keys: bool = True,
    left_out: Sequence[str] = (),
    cache_dir: Path | None = None,
) -> RunSpec:
    """Resolve targets, load the suite (unless given) and keys (before any request), choose the run directory.

    ``suite``, ``requests`` and ``filters`` are for runs whose cases are not a suite on disk
    (compat probes: one request shape per case id). ``check_keys=False`` skips the API keys (a
    dry run sends nothing). A resume (``resume_dir``) is checked against the directory's pins
    first (:func:`~fcbench.run.pins.check_pinned`; ``left_out``: what :func:`resume_base` left
    out of its config), a dry run too.
    """
    try:
        pairs = resolve_targets(config)
    except TargetError as exc:
        if resume_dir is not None and left_out:  # an endpoint the directory defined, not taken
            raise not_taken(resume_dir, left_out, str(exc)) from None
        raise
    settings = config.target_settings()
    targets = [Target(e, m, settings.get(target_label(e.name, m), TargetSettings())) for e, m in pairs]
    pins = None
    if resume_dir is not None:  # where the requests would go is checked before anything runs
        pins = read_manifest(resume_dir)
        check_pinned(resume_dir, pins, targets=targets, hashes={}, left_out=left_out)
    suite = suite if suite is not None else load_suite(config.suite, config.tools_from_mcp)
    if config.dataset_version and config.dataset_version != suite.info.dataset_version:
        raise ConfigError(
            f"config pins dataset {config.dataset_version} but suite {suite.info.name!r} is "
            f"{suite.info.dataset_version}",
            key="datasetVersion",
        )
    judge = judge_target(config)
    judged = [(judge.endpoint, judge.model)] if judge is not None else []
    api_keys = {endpoint.name: endpoint.api_key() for endpoint, _ in [*pairs, *judged]} if check_keys else {}
    run_id = pins.run_id if pins is not None else new_run_id()
    run_dir = resume_dir if resume_dir is not None else out_root / run_id
    spec = RunSpec(
        config,
        suite,
        targets,
        run_dir,
        run_id,
        shard,
        resume_dir is not None,
        api_keys,
        dict(requests or {}),
        filters,
        judge,
    )
    spec.cache_dir = cache_dir
    if pins is not None:
        check_pinned(run_dir, pins, targets=None, hashes=_hashes(spec), left_out=left_out)
        check_resume_cache(run_dir, pins.cache, cache_dir is not None)
    return spec


@dataclass(frozen=True)
class PlanEstimate:
    """What a run would send, computed without sending anything (``fcbench run --dry-run``)."""

    planned_by: dict[str, dict[str, int]]
    """Planned observations per target label and mode."""
    cases: int
    """Cases selected (after filters and sampling)."""
    requests_min: int
    """Requests if every recovery conversation ends after one turn (retries not counted)."""
    requests_max: int
    """Requests if every recovery conversation runs to its turn limit (retries not counted)."""
    input_tokens: int
    """Estimated input tokens over ``requests_min`` requests (about 4 characters per token)."""
    cost_usd: float | None
    """Upper bound on cost: ``requests_max`` requests each using ``max_tokens`` output tokens;
    None when a target has no price."""
    unpriced: list[str]
    """Models of paid endpoints without a price (their cost is unknown)."""


def _request_chars(spec: RunSpec, planned: Planned) -> int:
    case = planned.case
    tools = spec.suite.tools_for(case)
    history = json.dumps([m.model_dump(mode="json") for m in case.history], ensure_ascii=False)
    offered = json.dumps([t.model_dump(mode="json") for t in tools], ensure_ascii=False)
    return len(spec.suite.system) + len(offered) + len(history) + len(case.prompt)


def estimate(spec: RunSpec) -> PlanEstimate:
    """The plan of ``spec`` and what it would cost, without any request."""
    plan = _plan(spec)
    config = spec.config
    prices = config.price_table()
    low = high = tokens = 0
    cost = 0.0
    unpriced: set[str] = set()
    case_tokens: dict[str, int] = {}  # the same for every target, repeat and mode of a case
    for planned in plan:
        turns = effective_spec(planned.case).max_turns if MODES[planned.mode].multi_turn else 1
        if planned.case.id not in case_tokens:
            case_tokens[planned.case.id] = -(-_request_chars(spec, planned) // 4)
        request_tokens = case_tokens[planned.case.id]
        low, high, tokens = low + 1, high + turns, tokens + request_tokens
        target = planned.target
        one = prices.cost(
            target.model,
            Usage(input_tokens=request_tokens, output_tokens=config.max_tokens),
            local=target.endpoint.local,
        )
        if one is None:
            unpriced.add(target.model)
        else:
            cost += one * turns
    return PlanEstimate(
        planned_by=plan.planned_by(),
        cases=len({p.case.id for p in plan}),
        requests_min=low,
        requests_max=high,
        input_tokens=tokens,
        cost_usd=None if unpriced else round(cost, 6),
        unpriced=sorted(unpriced),
    )


def _filtered_cases(spec: RunSpec, **sampling: Any) -> Sequence[Case]:
    """The suite's cases the config's filters select (:func:`select_cases`; ``sampling`` adds its
    sample, seed, modes and pending options)."""
    config = spec.config
    return select_cases(
        spec.suite.cases,
        config.categories,
        config.tags,
        config.cases,
        exclude_tags=config.exclude_tags,
        exclude_ids=config.exclude_cases,
        **sampling,
    )


def _plan(spec: RunSpec) -> Plan:
    """The plan of ``spec`` (of its shard), expanded lazily (:class:`~fcbench.run.plan.Plan`)."""
    config = spec.config
    cases = _filtered_cases(
        spec,
        sample=config.sample,
        seed=config.seed,
        modes=config.modes,
        include_pending=config.include_pending,
    )
    repeats = config.repeats * orders_per_case(config.tool_order)  # each order `repeats` times
    plan = Plan(spec.targets, cases, repeats, config.modes, spec.shard)
    if plan.observes_nothing():
        raise ConfigError("no selected case applies to the selected modes", key="modes")
    return plan


def pending_not_scored(spec: RunSpec) -> int:
    """The pending cases the run's filters select that it leaves out (none with ``include_pending``)."""
    config = spec.config
    if config.include_pending or spec.requests:
        return 0
    return sum(1 for case in heads_of(_filtered_cases(spec)) if case.pending)


def _service_url(target: Target, running: Mapping[str, RunningService]) -> str | None:
    key = target.endpoint.service_key(target.model)
    service = running.get(key) if key is not None else None
    return service.url if service is not None else None


def _manifest(
    spec: RunSpec, plan: Plan, pinned: list[Target], running: Mapping[str, RunningService]
) -> Manifest:
    config = spec.config
    names = config.target_names()
    return Manifest(
        run_id=spec.run_id,
        fcbench_version=__version__,
        suite=spec.suite.info.name,
        suite_ref=spec.suite.info.name if spec.requests else suite_ref(config.suite),
        dataset_version=spec.suite.info.dataset_version,
        dataset_hash=spec.suite.dataset_hash,
        config_hash=config.hash(),
        targets=[pinned_target(t, names.get(t.label, t.label), running) for t in pinned],
        modes=list(config.modes),
        repeats=config.repeats,
        temperature=config.temperature,
        seed=config.seed,
        planned=len(plan),
        planned_by=plan.planned_by(),
        shard=str(spec.shard) if spec.shard else None,
        tool_faults=list(config.tool_faults),
        continuation=config.continuation,
        started_at=now_iso(),
        system_prompt=f"sha256:{text_sha256(spec.suite.system)}" if spec.suite.system else "none",
        tool_imports=list(spec.suite.tool_imports),
        tool_sets=tool_pins(spec.suite),
        cache=spec.cache_dir is not None,
        tool_order=config.tool_order,
        judge=_judge_pin(spec.judge, running),
        filters=spec.filters
        if spec.filters is not None
        else {
            "categories": config.categories,
            "tags": config.tags,
            "cases": config.cases,
            "exclude_tags": config.exclude_tags,
            **({"exclude_cases": config.exclude_cases} if config.exclude_cases else {}),
            "sample": config.sample,
            "include_pending": config.include_pending,
            "pending_not_scored": pending_not_scored(spec),
        },
    )


def _judge_pin(judge: Target | None, running: Mapping[str, RunningService]) -> JudgePin | None:
    """The manifest's pin of the run's judge: its target, the rubric's version and hash."""
    if judge is None:
        return None
    rubric = load_rubric()
    return JudgePin(
        target=pinned_target(judge, judge.label, running),
        rubric=rubric.version,
        rubric_sha256=rubric.sha256,
        temperature=JUDGE_TEMPERATURE,
    )


def _hashes(spec: RunSpec) -> dict[str, object]:
    """What a resume must agree on besides the targets: the data, the measured config, the shard."""
    return {
        "dataset_hash": spec.suite.dataset_hash,
        "config_hash": spec.config.hash(),
        "shard": str(spec.shard) if spec.shard else None,
    }


def recorded_in(run_dir: Path, plan: Plan) -> Recorded:
    """Which observations of ``plan`` a run directory already holds (records of other plans or
    shards are left out); a line that is JSON but not a record (``{}``, an array, ``"repeat": "1"``)
    is a :class:`RunStateError` naming file and line."""
    path = run_dir / RECORDS_FILE

    def keys() -> Iterator[ObservationKey]:
        for number, data in enumerate(iter_record_dicts(path), start=1):
            if not is_record(data):
                raise RunStateError(
                    f"{path}: record {number} is not a valid record (damaged); remove that line to resume"
                )
            yield record_key(data)

    return plan.recorded(keys())


def _observation_context(spec: RunSpec, planned: int, headers: RequestHeaders | None) -> ObservationContext:
    """What every observation of ``spec`` shares: its transport (retry budget by the ``planned``
    size), prices, validators, keys, request settings and the response cache."""
    config = spec.config
    retry_budget = config.retry_budget if config.retry_budget is not None else planned // 10 + 20
    redactor = Redactor(spec.api_keys.values())
    transport = Transport(
        timeout_s=config.timeout_ms / 1000,
        retry=RetryPolicy(max_retries=config.max_retries, budget=retry_budget),
        redactor=redactor,
        concurrency=config.concurrency,
        limits=Limits(
            max_response_bytes=config.max_response_bytes, max_stream_events=config.max_stream_events
        ),
    )
    return ObservationContext(
        run_id=spec.run_id,
        suite=spec.suite,
        transport=transport,
        prices=config.price_table(),
        validators=ValidatorCache(),
        api_keys=spec.api_keys,
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        seed=config.seed,
        requests=spec.requests,
        headers=headers,
        tool_faults=frozenset(config.tool_faults),
        continuation=config.continuation,
        cache=ResponseCache(spec.cache_dir, redactor) if spec.cache_dir is not None else None,
        tool_orders=tool_orders(config.tool_order, config.seed),
    )


async def execute(
    spec: RunSpec,
    *,
    services: Mapping[str, RunningService] | None = None,
    progress: ProgressSink | None = None,
    headers: RequestHeaders | None = None,
) -> RunResult:
    """Run ``spec`` to completion (or until cancelled), appending records as they complete."""
    config = spec.config
    running = services or {}
    pinned = list(spec.targets)  # as configured: a managed service's address changes from run to run
    spec.targets = [replace(t, endpoint=t.endpoint.resolved(_service_url(t, running))) for t in spec.targets]
    plan = _plan(spec)
    manifest = _manifest(spec, plan, pinned, running)
    spec.run_dir.mkdir(parents=True, exist_ok=True)
    with run_dir_lock(spec.run_dir):
        if spec.resume:
            manifest = read_manifest(spec.run_dir)
            check_pinned(spec.run_dir, manifest, targets=pinned, hashes=_hashes(spec))
            check_resume_cache(spec.run_dir, manifest.cache, spec.cache_dir is not None)
        else:
            write_replacing(
                spec.run_dir / CONFIG_FILE, config.model_dump_json(indent=2, by_alias=False) + "\n"
            )
            write_manifest(spec.run_dir, manifest)
        fold_worker_streams(spec.run_dir)  # a stopped multi-worker run's streams, before anything else
        done = recorded_in(spec.run_dir, plan)
        ctx = _observation_context(spec, len(plan), headers)
        transport = ctx.transport
        sink = progress or ProgressSink()
        already = done.by_label()
        totals = {label: sum(by_mode.values()) for label, by_mode in plan.planned_by().items()}
        sink.start(totals, {label: already[label] for label in totals if already[label]})

        guard = FailFast(limit=config.gate.fail_fast)
        judge = spec.judge
        observer: Observer = observe
        if judge is not None:
            judge = replace(judge, endpoint=judge.endpoint.resolved(_service_url(judge, running)))
            observer = judging(observe, Judge(judge, load_rubric()))
        try:
            size = len(plan) - done.count
            recorded, retries = await observe_plan(
                spec, plan, ctx, observer, sink, guard, done=done, size=size, judge=judge
            )
        finally:
            await transport.aclose()
        if recorded_in(spec.run_dir, plan).count >= len(plan):
            manifest = manifest.model_copy(update={"finished_at": now_iso()})
            write_manifest(spec.run_dir, manifest)
    return RunResult(
        spec.run_dir,
        manifest,
        len(plan),
        recorded,
        done.count,
        retries,
        guard.stopped,
    )


__all__ = [
    "CONFIG_FILE",
    "PlanEstimate",
    "ProgressSink",
    "RunResult",
    "RunSpec",
    "estimate",
    "execute",
    "new_run_id",
    "pending_not_scored",
    "prepare",
    "resolve_targets",
    "resume_base",
]
