"""All cores: one run observed by several worker processes sharing its run directory.

``fcbench run --workers N`` (config key ``workers``) splits the plan into N disjoint slices with
the plan's own shard slicing one level down: worker ``w`` of ``W`` within shard ``I/N`` (a whole
run is shard 1/1) owns the observations whose ``seq % (N*W) == (I-1) + N*(w-1)``
(:func:`worker_shard`), so the slices cover the shard exactly once whatever W is. Each worker is a
process of its own (started fresh, never forked from a process with threads) that observes its
slice exactly as a one-process run does (the same plan, kernel, grading and records, through
:func:`fcbench.run.pool.run_plan`) with its share of the concurrency and of each endpoint's
``max_concurrency``, and appends its records to a stream of its own
(:func:`fcbench.store.merge.worker_stream`), under that stream's lock.

The parent holds the run directory's lock, draws the progress of every worker, and when they end
(or are stopped) folds their streams into the run's ``records.jsonl`` and blobs
(:func:`fcbench.store.merge.fold_worker_streams`), which a resume also does first: a killed
multi-worker run resumes without a duplicate or a loss, with any number of workers. Ctrl-C or
SIGTERM reaches the workers as SIGTERM, and a worker whose parent dies stops the same orderly way:
every finished observation is written before it exits.

What differs from one process: the order of the lines in ``records.jsonl`` (records are the same,
their ``seq`` places them), and ``fail_fast``, which each worker applies on its own (a wrong key
costs up to N x workers requests before every worker stops it).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import queue
import signal
import threading
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from fcbench.errors import RunStateError
from fcbench.grading.judge import load_rubric
from fcbench.run.judge import Judge, judging
from fcbench.run.modes import Observer, observe
from fcbench.run.plan import Plan, Recorded, Shard, Target
from fcbench.run.pool import FailFast, ProgressSink, run_plan
from fcbench.store.lock import LOCK_FILE, held_lock
from fcbench.store.merge import fold_worker_streams, worker_stream
from fcbench.store.records import RECORDS_FILE, Record
from fcbench.transport.event_loop import run_async

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

    from fcbench.run import RunSpec
    from fcbench.run.observe import ObservationContext

AUTO_MIN_OBSERVATIONS = 200
"""With ``workers: auto``, each worker beyond the first needs this many observations to do (a
worker costs a process start, about a second of imports)."""

PROGRESS_EVERY_S = 0.25
"""How often a worker sends the progress of its recorded observations to the parent."""

PARENT_CHECK_S = 0.5
"""How often a worker checks that its parent is alive (it stops, orderly, when not)."""


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def worker_count(asked: int | Literal["auto"], spec: RunSpec, todo: int) -> int:
    """How many workers observe ``todo`` observations of ``spec``: ``asked`` (``auto``: the cores
    available, each beyond the first given :data:`AUTO_MIN_OBSERVATIONS`), never more than the
    observations to do, the run's concurrency or any target endpoint's ``max_concurrency``
    (each worker needs a request slot of its own)."""
    wanted = available_cores() if asked == "auto" else asked
    if asked == "auto":
        wanted = min(wanted, 1 + todo // AUTO_MIN_OBSERVATIONS)
    limits = [t.endpoint.max_concurrency for t in spec.targets if t.endpoint.max_concurrency]
    return max(1, min(wanted, todo, spec.config.concurrency, *limits))


def worker_shard(shard: Shard | None, index: int, workers: int) -> Shard:
    """Worker ``index`` (from 1) of ``workers``'s slice of ``shard`` (None: the whole plan), as a shard."""
    base_index, base_count = (shard.index, shard.count) if shard is not None else (1, 1)
    return Shard(base_index + base_count * (index - 1), base_count * workers)


def share(total: int, index: int, workers: int) -> int:
    """Worker ``index`` (from 1)'s part of ``total`` split as evenly as can be (the parts sum to it)."""
    return total // workers + (1 if index <= total % workers else 0)


@dataclass(frozen=True)
class WorkerJob:
    """What a worker process is given: everything it needs to observe its slice (sent pickled)."""

    spec: RunSpec
    """The run, its targets resolved (managed services' addresses filled in)."""
    plan: Plan
    """The whole plan (of the run's shard); the worker takes its slice (:func:`worker_shard`)."""
    workers: int
    """How many workers share the run."""
    judge: Target | None
    """The run's judge, resolved; None without one."""
    parent: int
    """The parent's process id (a worker stops when its parent is gone)."""
    progress: bool = True
    """Whether the parent draws progress (else the workers send none: it would only cost CPU)."""

    def for_worker(self, index: int) -> tuple[RunSpec, Plan]:
        """Worker ``index``'s spec (its share of the concurrency and endpoint limits) and slice."""
        spec = self.spec
        targets = [
            replace(
                t,
                endpoint=t.endpoint.model_copy(update={"max_concurrency": share(limit, index, self.workers)}),
            )
            if (limit := t.endpoint.max_concurrency)
            else t
            for t in spec.targets
        ]
        concurrency = share(spec.config.concurrency, index, self.workers)
        config = spec.config.model_copy(update={"concurrency": concurrency})
        plan = replace(self.plan, shard=worker_shard(self.plan.shard, index, self.workers))
        return replace(spec, config=config, targets=targets), plan


@dataclass(frozen=True)
class _Progress:
    """A worker's message: observations it recorded since its last message."""

    recorded: list[tuple[str, Record]]
    """(target label, record without its raw exchange) per observation."""


@dataclass(frozen=True)
class _Finished:
    """A worker's last message."""

    index: int
    """The worker."""
    retries: int
    """Retries its transport spent."""
    stopped: dict[str, str]
    """Target label -> why its ``fail_fast`` stopped the target."""
    error: str | None = None
    """Why the worker could not go on (what it recorded is kept); None when it ended well."""


class _QueueSink(ProgressSink):
    """A worker's progress sink: sends its records (raw exchanges left out) to the parent in batches."""

    def __init__(self, reports: Any) -> None:
        self._reports = reports
        self._batch: list[tuple[str, Record]] = []
        self._sent = time.monotonic()

    def advance(self, label: str, record: Record) -> None:
        self._batch.append((label, record.model_copy(update={"raw": {}, "turns": []})))
        if time.monotonic() - self._sent >= PROGRESS_EVERY_S:
            self.send()

    def send(self) -> None:
        if self._batch:
            self._reports.put(_Progress(self._batch))
        self._batch, self._sent = [], time.monotonic()

    def stop(self) -> None:
        self.send()


def _observer(judge: Target | None) -> Observer:
    return observe if judge is None else judging(observe, Judge(judge, load_rubric()))


def _stop_when_parent_dies(parent: int, task: asyncio.Task[Any], loop: asyncio.AbstractEventLoop) -> None:
    """Cancel ``task`` (from a watcher thread) once this process's parent is no longer ``parent``."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        with contextlib.suppress(RuntimeError):  # the loop already closed: the work is done
            loop.call_soon_threadsafe(task.cancel)

    threading.Thread(target=watch, name="fcbench-parent-watch", daemon=True).start()


async def _observe_slice(job: WorkerJob, index: int, reports: Any) -> _Finished:
    """Observe worker ``index``'s slice into its stream; stopped by SIGTERM or its parent's death."""
    from fcbench.run import _observation_context, recorded_in

    spec, plan = job.for_worker(index)
    task = asyncio.current_task()
    assert task is not None
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, task.cancel)
    _stop_when_parent_dies(job.parent, task, loop)
    stream = worker_stream(spec.run_dir, index)
    with held_lock(stream / LOCK_FILE, wait=True):
        done = recorded_in(spec.run_dir, plan)
        todo = len(plan) - done.count
        ctx = _observation_context(spec, len(plan), None)
        guard = FailFast(limit=spec.config.gate.fail_fast)
        sink = _QueueSink(reports) if job.progress else ProgressSink()
        try:
            await run_plan(
                ctx,
                plan.in_execution_order(skip=done),
                _observer(job.judge),
                stream / RECORDS_FILE,
                sink,
                spec.config.concurrency,
                guard,
                size=todo,
            )
        finally:
            await ctx.transport.aclose()
    return _Finished(index, ctx.transport.retries_spent, guard.stopped)


def _work(job: WorkerJob, index: int, reports: Any) -> None:
    """A worker process's body: observe its slice, then say how it went (stopped: what it recorded)."""
    try:
        finished = run_async(_observe_slice(job, index, reports))
    except (asyncio.CancelledError, KeyboardInterrupt):
        finished = _Finished(index, 0, {})
    except Exception as exc:  # told to the parent, which fails the run (a resume goes on)
        finished = _Finished(index, 0, {}, error=f"{type(exc).__name__}: {exc}")
    reports.put(finished)


@dataclass
class WorkersResult:
    """What the workers of one run did together."""

    recorded: int = 0
    """Observations they recorded (appended to the run's records when their streams were folded)."""
    retries: int = 0
    """Retries their transports spent."""
    stopped: dict[str, str] = field(default_factory=dict)
    """Target label -> why a worker's ``fail_fast`` stopped it."""
    finished: set[int] = field(default_factory=set)
    """Workers that reported their end."""
    errors: dict[int, str] = field(default_factory=dict)
    """Worker -> why it could not go on."""


class _Parent:
    """Starts the workers, relays their progress to the run's sink, stops and folds them."""

    def __init__(self, job: WorkerJob, sink: ProgressSink) -> None:
        self.job, self.sink = job, sink
        self.context = multiprocessing.get_context("spawn")
        self.reports: Any = self.context.Queue()
        self.processes: list[BaseProcess] = []
        self.result = WorkersResult()

    def start(self) -> None:
        """Start every worker, with Ctrl-C ignored (the parent forwards it as SIGTERM)."""
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            for index in range(1, self.job.workers + 1):
                process = self.context.Process(
                    target=_work, args=(self.job, index, self.reports), name=f"fcbench-worker-{index}"
                )
                process.start()
                self.processes.append(process)
        finally:
            signal.signal(signal.SIGINT, previous)

    def take(self, message: object) -> None:
        """Fold one worker message into the progress and the result."""
        if isinstance(message, _Progress):
            for label, record in message.recorded:
                self.sink.advance(label, record)
        elif isinstance(message, _Finished):
            self.result.finished.add(message.index)
            self.result.retries += message.retries
            if message.error is not None:
                self.result.errors[message.index] = message.error
            self.result.stopped.update(message.stopped)

    def pending(self) -> bool:
        """Whether a worker may still send something."""
        return any(p.is_alive() for p in self.processes) and len(self.result.finished) < len(self.processes)

    def next_message(self, timeout: float) -> object | None:
        try:
            return self.reports.get(timeout=timeout)
        except queue.Empty:
            return None

    async def follow(self) -> None:
        """Relay messages until every worker has ended."""
        while self.pending():
            message = await asyncio.to_thread(self.next_message, 0.2)
            if message is not None:
                self.take(message)

    def stop_and_drain(self) -> None:
        """Ask the workers still running to stop (SIGTERM), relay what they send until they exit."""
        for process in self.processes:
            if process.is_alive() and process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGTERM)
        self.drain()

    def check_ended_well(self) -> None:
        """:class:`RunStateError` naming each worker that failed or died without reporting its end
        (what the workers recorded is in the run: a resume observes the rest)."""
        for index, process in enumerate(self.processes, start=1):
            if index not in self.result.finished and index not in self.result.errors:
                self.result.errors[index] = f"ended with exit code {process.exitcode} before it finished"
        if self.result.errors:
            failures = "; ".join(f"worker {i}: {why}" for i, why in sorted(self.result.errors.items()))
            raise RunStateError(f"{self.job.spec.run_dir}: {failures}; what was recorded is kept, resume it")

    def drain(self) -> None:
        """Relay the messages left until every worker has exited, then reap them."""
        while any(p.is_alive() for p in self.processes):
            message = self.next_message(0.1)
            if message is not None:
                self.take(message)
        while (message := self.next_message(0)) is not None:
            self.take(message)
        for process in self.processes:
            process.join()


async def run_in_workers(job: WorkerJob, sink: ProgressSink, guard: FailFast) -> WorkersResult:
    """Observe ``job``'s plan in ``job.workers`` processes; fold their streams into the run at the end.

    Cancelled (Ctrl-C, SIGTERM), the workers are stopped the orderly way and what they recorded is
    folded before the cancellation goes on. A worker that died without reporting its end (killed)
    leaves its stream, folded like the others; a resume observes what it had not recorded.
    """
    parent = _Parent(job, sink)
    try:
        parent.start()
        await parent.follow()
    finally:
        parent.stop_and_drain()
        sink.stop()
        parent.result.recorded = fold_worker_streams(job.spec.run_dir).records
        guard.stopped.update(parent.result.stopped)
    parent.check_ended_well()
    return parent.result


async def observe_plan(
    spec: RunSpec,
    plan: Plan,
    ctx: ObservationContext,
    observer: Observer,
    sink: ProgressSink,
    guard: FailFast,
    *,
    done: Recorded,
    size: int,
    judge: Target | None,
) -> tuple[int, int]:
    """Observe what ``plan`` holds and ``done`` does not (``size`` observations), in this process or
    in :func:`worker_count` workers (config ``workers``); the observations recorded and the retries
    spent. ``judge``: the run's judge, resolved. A run with per-request headers (a callable, which
    a worker process cannot be sent) stays in this process."""
    workers = worker_count(spec.config.workers, spec, size) if ctx.headers is None else 1
    if workers == 1:
        todo = plan.in_execution_order(skip=done)
        records = spec.run_dir / RECORDS_FILE
        recorded = await run_plan(
            ctx, todo, observer, records, sink, spec.config.concurrency, guard, size=size
        )
        return recorded, ctx.transport.retries_spent
    drawn = type(sink).advance is not ProgressSink.advance
    job = WorkerJob(spec, plan, workers, judge, os.getpid(), progress=drawn)
    result = await run_in_workers(job, sink, guard)
    return result.recorded, result.retries + ctx.transport.retries_spent
