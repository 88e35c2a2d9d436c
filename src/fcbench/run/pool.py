"""The worker pool: observe a list of planned observations concurrently, appending one record each.

With ``fail_fast`` N, a target is stopped after N consecutive identical auth, not_found or
schema_rejected errors (a wrong key or model id costs N requests, not a run). Until a target has
given one answer that is not such an error, its requests go one at a time, so it is stopped after
exactly N requests whatever the concurrency.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from fcbench.contract import ProviderErrorOutcome
from fcbench.run.modes import Observer
from fcbench.run.observe import FinishRecord, ObservationContext, harness_error_record, now_iso
from fcbench.run.plan import Planned
from fcbench.store.records import Record, RecordWriter

Played = tuple[Planned, str, FinishRecord]
"""An observation whose requests are answered: what was planned, when it started, what records it."""


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


async def run_plan(
    ctx: ObservationContext,
    todo: list[Planned],
    observe: Observer,
    records_path: Path,
    sink: ProgressSink,
    concurrency: int,
    fail_fast: FailFast | None = None,
) -> int:
    """Observe ``todo`` with ``concurrency`` asyncio workers, appending one record each; return the count.

    A worker plays an observation (its requests), hands the observation's grading and record to
    one finisher task and goes on to its next request, so requests never wait for grading: the
    finisher takes one observation per turn of the event loop, after the workers that are ready.
    At most ``concurrency`` observations wait to be finished (then the workers wait too), and
    whatever waits when the run stops or is cancelled is finished and written before it returns.
    A target not yet proven by ``fail_fast`` is finished by its worker, under its lock.

    A harness exception in one observation, or a record that cannot be serialised, becomes a
    ``provider_error: harness`` record and the workers go on. A timer writes finished records
    that waited ``max_wait_s``, so a slow provider never holds paid observations in memory.
    Observations of a target that ``fail_fast`` stopped are left unobserved (a resume does them).
    """
    recorded = 0
    queue: Iterator[Planned] = iter(todo)
    guard = fail_fast or FailFast(limit=None)
    waiting: asyncio.Queue[Played] = asyncio.Queue(maxsize=max(concurrency, 1))
    with RecordWriter(records_path, background=True) as writer:

        def finish(played: Played) -> None:
            nonlocal recorded
            planned, started, build = played
            try:
                record = build()
            except Exception as exc:  # a harness bug must not stop the run
                record = harness_error_record(ctx, planned, started, exc)
            try:
                writer.append(record)
            except (ValueError, RecursionError) as exc:  # unstorable, e.g. nested too deep for JSON
                record = harness_error_record(ctx, planned, started, exc)
                writer.append(record)
            recorded += 1
            guard.note(planned.target.label, record)
            sink.advance(planned.target.label, record)

        async def play(planned: Planned) -> Played:
            started = now_iso()
            try:
                return planned, started, await observe(ctx, planned)
            except Exception as exc:  # a harness bug must not stop the run
                return planned, started, partial(harness_error_record, ctx, planned, started, exc)

        async def worker() -> None:
            for planned in queue:
                label = planned.target.label
                lock = guard.lock(label)
                if lock is None:
                    if label not in guard.stopped:
                        played = await play(planned)
                        try:
                            await waiting.put(played)
                        except asyncio.CancelledError:  # paid for: record it before stopping
                            finish(played)
                            raise
                    continue
                async with lock:
                    if label not in guard.stopped:
                        finish(await play(planned))

        async def finisher() -> None:
            while True:
                finish(await waiting.get())
                waiting.task_done()
                await asyncio.sleep(0)  # the workers that are ready send first

        async def flush_on_time() -> None:
            while True:
                await asyncio.sleep(writer.max_wait_s / 2)
                writer.sync_if_due()

        finishing = asyncio.create_task(finisher())
        flusher = asyncio.create_task(flush_on_time())
        try:
            workers = (worker() for _ in range(min(concurrency, max(len(todo), 1))))
            await unless_failed(asyncio.gather(*workers), finishing)
            await unless_failed(waiting.join(), finishing)
        finally:
            failed = finishing.done() and not finishing.cancelled() and finishing.exception() is not None
            finishing.cancel()
            flusher.cancel()
            while not failed and not waiting.empty():  # cancelled: still record what was paid for
                finish(waiting.get_nowait())
            sink.stop()
    return recorded


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
