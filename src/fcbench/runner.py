"""The runner: plan, schedule, resume, and write records.

``execute`` resolves targets (checking API keys before any request), starts the embedded mock
provider when a target needs it, writes the manifest, runs the plan with a pool of asyncio
workers under a global concurrency limit (per-endpoint limits live in the transport), appends one
record per observation, and completes the manifest. A harness exception in one observation is
recorded as ``provider_error: harness`` and the run goes on. Resuming skips every observation
already recorded and never writes a duplicate.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from fcbench import __version__
from fcbench.config import RunConfig
from fcbench.endpoints import Endpoint, all_endpoints, parse_target
from fcbench.errors import ConfigError, RunStateError
from fcbench.observe import ObservationContext, harness_error_record, now_iso, observe_single_turn
from fcbench.plan import Planned, Shard, Target, build_plan, select_cases
from fcbench.pricing import PriceTable
from fcbench.records import (
    RECORDS_FILE,
    Manifest,
    Record,
    RecordWriter,
    iter_record_dicts,
    read_manifest,
    write_manifest,
)
from fcbench.redact import Redactor
from fcbench.schema.validate import ValidatorCache
from fcbench.suite.loader import Suite, load_suite
from fcbench.transport import RetryPolicy, Transport

CONFIG_FILE = "config.json"

Observer = Callable[[ObservationContext, Planned], Awaitable[Record]]


def default_observers() -> dict[str, Observer]:
    """Mode -> observer. Multi-turn modes add themselves here when their modules are present."""
    observers: dict[str, Observer] = {
        "selection": observe_single_turn,
        "forced": observe_single_turn,
        "stream": observe_single_turn,
    }
    with contextlib.suppress(ImportError):
        from fcbench.conversation import observe_recovery

        observers["recovery"] = observe_recovery
    return observers


class ProgressSink:
    """Receives progress events; the CLI draws a progress bar from them."""

    def start(self, totals: dict[str, int], done: dict[str, int]) -> None:
        """Called once with planned and already-done counts per target label."""

    def advance(self, label: str, record: Record) -> None:
        """Called after each recorded observation."""

    def stop(self) -> None:
        """Called when the run ends."""


@dataclass
class RunResult:
    """What a run did."""

    run_dir: Path
    manifest: Manifest
    planned: int
    recorded: int
    """Observations recorded by this invocation."""
    skipped: int
    """Observations found already recorded (resume)."""
    retries: int = 0


@dataclass
class RunSpec:
    """A fully resolved run: config, suite, targets and where to write."""

    config: RunConfig
    suite: Suite
    targets: list[Target]
    run_dir: Path
    run_id: str
    shard: Shard | None = None
    resume: bool = False
    api_keys: dict[str, str | None] = field(default_factory=dict)


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


def prepare(config: RunConfig, *, out_root: Path, resume_dir: Path | None, shard: Shard | None) -> RunSpec:
    """Load the suite, resolve targets and keys (before any request), and choose the run directory."""
    suite = load_suite(config.suite)
    if config.dataset_version and config.dataset_version != suite.info.dataset_version:
        raise ConfigError(
            f"config pins dataset {config.dataset_version} but suite {suite.info.name!r} is "
            f"{suite.info.dataset_version}",
            key="datasetVersion",
        )
    pairs = resolve_targets(config)
    api_keys = {endpoint.name: endpoint.api_key() for endpoint, _ in pairs}
    targets = [Target(endpoint=e, model=m) for e, m in pairs]
    if resume_dir is not None:
        manifest = read_manifest(resume_dir)
        return RunSpec(config, suite, targets, resume_dir, manifest.run_id, shard, True, api_keys)
    run_id = new_run_id()
    return RunSpec(config, suite, targets, out_root / run_id, run_id, shard, False, api_keys)


def _plan(spec: RunSpec) -> list[Planned]:
    cases = select_cases(spec.suite.cases, spec.config.categories, spec.config.tags, spec.config.cases)
    plan = [*build_plan(spec.targets, cases, spec.config.repeats, spec.config.modes)]
    if not plan:
        raise ConfigError("no selected case applies to the selected modes", key="modes")
    return [p for p in plan if spec.shard is None or spec.shard.owns(p.seq)]


def execution_order(plan: list[Planned]) -> list[Planned]:
    """Interleave targets (and repeats last) so endpoints share the load and early results span targets."""
    index = {label: i for i, label in enumerate(dict.fromkeys(p.target.label for p in plan))}
    return sorted(plan, key=lambda p: (p.repeat, p.case.id, p.mode, index[p.target.label]))


def planned_by(plan: list[Planned]) -> dict[str, dict[str, int]]:
    """Planned observations per target label and mode."""
    counts: dict[str, dict[str, int]] = {}
    for p in plan:
        by_mode = counts.setdefault(p.target.label, {})
        by_mode[p.mode] = by_mode.get(p.mode, 0) + 1
    return counts


def _manifest(spec: RunSpec, plan: list[Planned], pinned: list[Target]) -> Manifest:
    config = spec.config
    return Manifest(
        run_id=spec.run_id,
        fcbench_version=__version__,
        suite=spec.suite.info.name,
        suite_ref=suite_ref(config.suite),
        dataset_version=spec.suite.info.dataset_version,
        dataset_hash=spec.suite.dataset_hash,
        config_hash=config.hash(),
        targets=[
            {
                "label": t.label,
                "endpoint": t.endpoint.name,
                "dialect": t.endpoint.dialect,
                "model": t.model,
                "base_url": "embedded mock" if t.endpoint.is_mock else t.endpoint.base_urls,
            }
            for t in pinned
        ],
        modes=list(config.modes),
        repeats=config.repeats,
        temperature=config.temperature,
        seed=config.seed,
        planned=len(plan),
        planned_by=planned_by(plan),
        shard=str(spec.shard) if spec.shard else None,
        started_at=now_iso(),
        filters={"categories": config.categories, "tags": config.tags, "cases": config.cases},
    )


def _check_resumable(spec: RunSpec, fresh: Manifest) -> Manifest:
    old = read_manifest(spec.run_dir)
    for name in ("dataset_hash", "config_hash", "shard"):
        if getattr(old, name) != getattr(fresh, name):
            raise RunStateError(
                f"{spec.run_dir}: cannot resume: {name} differs from the run's manifest "
                f"({getattr(old, name)} != {getattr(fresh, name)}); start a new run instead"
            )
    return old


def recorded_keys(run_dir: Path) -> set[tuple[str, str, int, str]]:
    """Keys of every complete record already in a run directory."""
    keys = set()
    for data in iter_record_dicts(run_dir / RECORDS_FILE):
        target = data.get("target", {})
        keys.add(
            (f"{target.get('endpoint')}:{target.get('model')}", data["case_id"], data["repeat"], data["mode"])
        )
    return keys


async def execute(spec: RunSpec, *, mock_url: str | None, progress: ProgressSink | None = None) -> RunResult:
    """Run ``spec`` to completion (or until cancelled), appending records as they complete."""
    config = spec.config
    pinned = list(spec.targets)  # as configured: the mock's address changes from run to run
    spec.targets = [Target(t.endpoint.resolved(mock_url), t.model) for t in spec.targets]
    plan = _plan(spec)
    manifest = _manifest(spec, plan, pinned)
    spec.run_dir.mkdir(parents=True, exist_ok=True)
    if spec.resume:
        manifest = _check_resumable(spec, manifest)
    else:
        (spec.run_dir / CONFIG_FILE).write_text(config.model_dump_json(indent=2, by_alias=False) + "\n")
        write_manifest(spec.run_dir, manifest)
    done = recorded_keys(spec.run_dir)
    todo = [p for p in execution_order(plan) if p.key not in done]
    observers = default_observers()
    unknown = sorted({p.mode for p in todo} - set(observers))
    if unknown:
        raise ConfigError(f"mode(s) not available: {', '.join(unknown)}", key="modes")
    retry_budget = config.retry_budget if config.retry_budget is not None else len(plan) // 10 + 20
    transport = Transport(
        timeout_s=config.timeout_ms / 1000,
        retry=RetryPolicy(max_retries=config.max_retries, budget=retry_budget),
        redactor=Redactor(spec.api_keys.values()),
        concurrency=config.concurrency,
    )
    ctx = ObservationContext(
        run_id=spec.run_id,
        suite=spec.suite,
        transport=transport,
        prices=PriceTable({m: (p.input, p.output) for m, p in config.prices.items()}),
        validators=ValidatorCache(),
        api_keys=spec.api_keys,
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        seed=config.seed,
    )
    sink = progress or ProgressSink()
    already = Counter(p.target.label for p in plan if p.key in done)
    sink.start(dict(Counter(p.target.label for p in plan)), dict(already))

    async def observe(ctx: ObservationContext, planned: Planned) -> Record:
        return await observers[planned.mode](ctx, planned)

    try:
        recorded = await run_plan(ctx, todo, observe, spec.run_dir / RECORDS_FILE, sink, config.concurrency)
    finally:
        await transport.aclose()
    if len(recorded_keys(spec.run_dir)) >= len(plan):
        manifest = manifest.model_copy(update={"finished_at": now_iso()})
        write_manifest(spec.run_dir, manifest)
    return RunResult(
        spec.run_dir, manifest, len(plan), recorded, len(plan) - len(todo), transport.retries_spent
    )


async def run_plan(
    ctx: ObservationContext,
    todo: list[Planned],
    observe: Observer,
    records_path: Path,
    sink: ProgressSink,
    concurrency: int,
) -> int:
    """Observe ``todo`` with ``concurrency`` asyncio workers, appending one record each; return the count.

    A harness exception in one observation, or a record that cannot be serialised, becomes a
    ``provider_error: harness`` record and the workers go on.
    """
    recorded = 0
    queue: Iterator[Planned] = iter(todo)
    with RecordWriter(records_path) as writer:

        async def worker() -> None:
            nonlocal recorded
            for planned in queue:
                started = now_iso()
                try:
                    record = await observe(ctx, planned)
                except Exception as exc:  # a harness bug must not stop the run
                    record = harness_error_record(ctx, planned, started, exc)
                try:
                    writer.append(record)
                except (ValueError, RecursionError) as exc:  # unstorable, e.g. nested too deep for JSON
                    record = harness_error_record(ctx, planned, started, exc)
                    writer.append(record)
                recorded += 1
                sink.advance(planned.target.label, record)

        try:
            await asyncio.gather(*(worker() for _ in range(min(concurrency, max(len(todo), 1)))))
        finally:
            sink.stop()
    return recorded


def stored_config(run_dir: Path) -> RunConfig:
    """The effective config a run was started with (used by ``--resume`` when no config is given)."""
    path = run_dir / CONFIG_FILE
    if not path.is_file():
        raise RunStateError(f"{run_dir}: no {CONFIG_FILE}; pass the original --config to resume")
    return RunConfig.model_validate(json.loads(path.read_text(encoding="utf-8")))
