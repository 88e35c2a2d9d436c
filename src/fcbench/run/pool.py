"""The worker pool: observe a list of planned observations concurrently, appending one record each."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

from fcbench.run.modes import Observer
from fcbench.run.observe import ObservationContext, harness_error_record, now_iso
from fcbench.run.plan import Planned
from fcbench.store.records import Record, RecordWriter


class ProgressSink:
    """Receives progress events; the CLI draws a progress bar from them."""

    def start(self, totals: dict[str, int], done: dict[str, int]) -> None:
        """Called once with planned and already-done counts per target label."""

    def advance(self, label: str, record: Record) -> None:
        """Called after each recorded observation."""

    def stop(self) -> None:
        """Called when the run ends."""


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
