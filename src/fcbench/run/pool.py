"""The worker pool: observe a list of planned observations concurrently, appending one record each.

With ``fail_fast`` N, a target is stopped after N consecutive identical auth, not_found or
schema_rejected errors (a wrong key or model id costs N requests, not a run). Until a target has
given one answer that is not such an error, its requests go one at a time, so it is stopped after
exactly N requests whatever the concurrency.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from fcbench.contract import ProviderErrorOutcome
from fcbench.run.modes import Observer
from fcbench.run.observe import FinishRecord, ObservationContext, harness_error_record, now_iso
from fcbench.run.plan import Planned
from fcbench.schema.patterns import MatchNeedsTime, quick_matches_only
from fcbench.store.records import Record, RecordWriter

Played = tuple[Planned, str, FinishRecord]
"""An observation whose requests are answered: what was planned, when it started, what records it."""

SLOW_GRADINGS_PER_TARGET = 2
"""Observations of one target graded on worker threads at once; its next requests wait for room."""


class ProgressSink:
    """Receives progress events; the CLI draws a progress bar from them."""

    def start(self, totals: dict[str, int], done: dict[str, int]) -> None:
        """Called once with planned and already-done counts per target label."""

    def advance(self, label: str, record: Record) -> None:
        """Called after each recorded observation."""

    def stop(self) -> None:
        """Called when the run ends."""


FATAL_CODES = frozenset({"auth", "not_found", "schema_rejected"})
"""Provider errors that repeat identically for every request of a target until its config is fixed."""


@dataclass
class FailFast:
    """Counts each target's consecutive identical fatal errors and stops it at ``limit``."""

    limit: int | None
    """Consecutive identical fatal errors that stop a target; None never stops."""
    stopped: dict[str, str] = field(default_factory=dict)
    """Target label -> why it was stopped."""
    _streaks: dict[str, tuple[str, int]] = field(default_factory=dict)
    _proven: set[str] = field(default_factory=set)
    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)

    def lock(self, label: str) -> asyncio.Lock | None:
        """The lock a request of an unproven target must hold (None: go ahead)."""
        if self.limit is None or label in self._proven:
            return None
        return self._locks.setdefault(label, asyncio.Lock())

    def note(self, label: str, record: Record) -> None:
        """Fold one record of ``label`` into its streak; stop the target when the streak is long enough."""
        outcome = record.outcome
        if self.limit is None:
            return
        if not isinstance(outcome, ProviderErrorOutcome) or outcome.code not in FATAL_CODES:
            self._streaks.pop(label, None)
            self._proven.add(label)
            return
        code, count = self._streaks.get(label, (outcome.code, 0))
        count = count + 1 if code == outcome.code else 1
        self._streaks[label] = (outcome.code, count)
        if count >= self.limit:
            self.stopped[label] = f"{count} consecutive {outcome.code} errors: {outcome.message[:200]}"


@dataclass
class _Recorder:
    """Grades answered observations and appends their records (see :func:`run_plan`)."""

    ctx: ObservationContext
    writer: RecordWriter
    guard: FailFast
    sink: ProgressSink
    recorded: int = 0
    slow: dict[str, dict[asyncio.Task[None], Played]] = field(default_factory=dict)
    """Target label -> the gradings of its observations under way on worker threads."""

    def built(self, played: Played) -> Record:
        planned, started, build = played
        try:
            return build()
        except MatchNeedsTime:
            raise
        except Exception as exc:  # a harness bug must not stop the run
            return harness_error_record(self.ctx, planned, started, exc)

    def quickly_built(self, played: Played) -> Record | None:
        """The record, graded with quick pattern matches only; None when a match needs longer."""
        try:
            with quick_matches_only():
                return self.built(played)
        except MatchNeedsTime:
            return None

    def finish(self, played: Played) -> None:
        """Grade and record ``played`` here and now (matches get their full time)."""
        self.store(played, self.built(played))

    async def finish_in_turn(self, played: Played) -> None:
        """Grade and record ``played``, on a worker thread when its patterns need longer."""
        record = self.quickly_built(played)
        if record is None:
            record = await asyncio.to_thread(self.built, played)
        self.store(played, record)

    def finish_soon(self, played: Played) -> None:
        """Grade and record ``played`` now, or soon on a worker thread when its patterns need longer."""
        record = self.quickly_built(played)
        if record is not None:
            self.store(played, record)
            return
        tasks = self.slow.setdefault(played[0].target.label, {})
        task = asyncio.create_task(self._finish_on_thread(played))
        tasks[task] = played
        task.add_done_callback(self._forget_unless_failed)

    def _forget_unless_failed(self, task: asyncio.Task[None]) -> None:
        """Drop a grading that ended from :attr:`slow`; one that failed stays, for :meth:`drain`."""
        if task.cancelled() or task.exception() is None:
            for tasks in self.slow.values():
                tasks.pop(task, None)

    async def _finish_on_thread(self, played: Played) -> None:
        self.store(played, await asyncio.to_thread(self.built, played))

    async def room_for(self, label: str) -> None:
        """Wait while ``label`` has :data:`SLOW_GRADINGS_PER_TARGET` gradings on worker threads."""
        while (
            len(pending := [t for t in self.slow.get(label, {}) if not t.done()]) >= SLOW_GRADINGS_PER_TARGET
        ):
            await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)

    async def drain(self) -> None:
        """Wait for every grading on a worker thread; raise the first that failed."""
        while pending := [task for tasks in self.slow.values() for task in tasks if not task.done()]:
            await asyncio.wait(pending)
        for tasks in self.slow.values():
            for task in tasks:
                task.result()

    def finish_abandoned(self) -> None:
        """Cancel the gradings still on worker threads and record their observations here."""
        for tasks in self.slow.values():
            for task, played in list(tasks.items()):
                if not task.done():
                    task.cancel()
                    self.finish(played)

    def store(self, played: Played, record: Record) -> None:
        """Append ``record`` (a harness error record when it cannot be stored) and report it."""
        planned, started, _ = played
        try:
            self.writer.append(record)
        except (ValueError, RecursionError) as exc:  # unstorable, e.g. nested too deep for JSON
            record = harness_error_record(self.ctx, planned, started, exc)
            self.writer.append(record)
        self.recorded += 1
        self.guard.note(planned.target.label, record)
        self.sink.advance(planned.target.label, record)


async def run_plan(
    ctx: ObservationContext,
    todo: Iterable[Planned],
    observe: Observer,
    records_path: Path,
    sink: ProgressSink,
    concurrency: int,
    fail_fast: FailFast | None = None,
    *,
    size: int | None = None,
) -> int:
    """Observe ``todo`` with ``concurrency`` asyncio workers, appending one record each; return the count.

    ``todo`` may be a lazy iterator (:meth:`fcbench.run.plan.Plan.in_execution_order`): each
    worker takes its next observation only when it is free to send it, so at most
    ``concurrency`` planned observations exist ahead of the records; ``size`` (how many it holds)
    bounds the workers started, ``len(todo)`` when not given.

    A worker plays an observation (its requests), hands the observation's grading and record to
    one finisher task and goes on to its next request, so requests never wait for grading: the
    finisher takes one observation per turn of the event loop, after the workers that are ready.
    At most ``concurrency`` observations wait to be finished (then the workers wait too), and
    whatever waits when the run stops or is cancelled is finished and written before it returns.
    A target not yet proven by ``fail_fast`` is finished by its worker, under its lock.

    Grading runs on the event loop with quick regular-expression matches only; an observation
    whose suite patterns need longer (:class:`fcbench.schema.patterns.MatchNeedsTime`, e.g. one
    that backtracks catastrophically) is graded again on a worker thread, where the match has its
    full time budget and releases the GIL, so it never delays another target's requests. A target
    with :data:`SLOW_GRADINGS_PER_TARGET` such gradings under way sends nothing more until one ends.

    A harness exception in one observation, or a record that cannot be serialised, becomes a
    ``provider_error: harness`` record and the workers go on. A timer writes finished records
    that waited ``max_wait_s``, so a slow provider never holds paid observations in memory.
    Observations of a target that ``fail_fast`` stopped are left unobserved (a resume does them).
    """
    guard = fail_fast or FailFast(limit=None)
    count = size if size is not None else len(todo)  # type: ignore[arg-type]
    with RecordWriter(records_path, background=True) as writer:
        workers = _Workers(ctx, iter(todo), observe, _Recorder(ctx, writer, guard, sink), concurrency)
        await workers.run(min(concurrency, max(count, 1)), writer, sink)
    return workers.recorder.recorded


class _Workers:
    """The workers of one :func:`run_plan`, the finisher they hand played observations to, and the
    timer that writes finished records that waited too long."""

    def __init__(
        self,
        ctx: ObservationContext,
        queue: Iterator[Planned],
        observe: Observer,
        recorder: _Recorder,
        concurrency: int,
    ) -> None:
        self.ctx, self.queue, self.observe, self.recorder = ctx, queue, observe, recorder
        self.waiting: asyncio.Queue[Played] = asyncio.Queue(maxsize=max(concurrency, 1))

    async def run(self, count: int, writer: RecordWriter, sink: ProgressSink) -> None:
        """Run ``count`` workers until the queue is done; finish and write whatever waits, cancelled too."""
        finishing = asyncio.create_task(self.finisher())
        flusher = asyncio.create_task(self.flush_on_time(writer))
        try:
            await unless_failed(asyncio.gather(*(self.worker() for _ in range(count))), finishing)
            await unless_failed(self.waiting.join(), finishing)
            await unless_failed(self.recorder.drain(), finishing)
        finally:
            failed = finishing.done() and not finishing.cancelled() and finishing.exception() is not None
            finishing.cancel()
            flusher.cancel()
            while not failed and not self.waiting.empty():  # cancelled: still record what was paid for
                self.recorder.finish(self.waiting.get_nowait())
            if not failed:
                self.recorder.finish_abandoned()
            sink.stop()

    async def play(self, planned: Planned) -> Played:
        started = now_iso()
        try:
            return planned, started, await self.observe(self.ctx, planned)
        except Exception as exc:  # a harness bug must not stop the run
            return planned, started, partial(harness_error_record, self.ctx, planned, started, exc)

    async def worker(self) -> None:
        for planned in self.queue:
            label = planned.target.label
            await self.recorder.room_for(label)
            lock = self.recorder.guard.lock(label)
            if lock is None:
                if label not in self.recorder.guard.stopped:
                    played = await self.play(planned)
                    try:
                        await self.waiting.put(played)
                    except asyncio.CancelledError:  # paid for: record it before stopping
                        self.recorder.finish(played)
                        raise
                continue
            async with lock:
                if label not in self.recorder.guard.stopped:
                    await self.recorder.finish_in_turn(await self.play(planned))

    async def finisher(self) -> None:
        while True:
            self.recorder.finish_soon(await self.waiting.get())
            self.waiting.task_done()
            await asyncio.sleep(0)  # the workers that are ready send first

    @staticmethod
    async def flush_on_time(writer: RecordWriter) -> None:
        while True:
            await asyncio.sleep(writer.max_wait_s / 2)
            writer.sync_if_due()


async def unless_failed(work: Awaitable[object], watched: asyncio.Task[None]) -> None:
    """Await ``work``, unless ``watched`` (a task that only ends by failing) ends first: then cancel
    ``work``, let it unwind, and raise ``watched``'s error. Cancelled, ``work`` unwinds first too."""
    job = asyncio.ensure_future(work)
    try:
        await asyncio.wait({job, watched}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not job.done():
            job.cancel()
            await asyncio.wait({job})
        if not job.cancelled():
            job.exception()  # retrieved: raised below unless watched failed first
    if watched.done() and not watched.cancelled():
        watched.result()
    job.result()
