"""The worker pool: records reach the disk on time, requests never wait for grading, and whatever
was answered is recorded even when the run is cancelled or cannot write."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from fcbench.endpoints import BUILTIN_ENDPOINTS
from fcbench.pricing import PriceTable
from fcbench.run.observe import FinishRecord, ObservationContext, harness_error_record, now_iso
from fcbench.run.plan import Planned, Target
from fcbench.run.pool import ProgressSink, run_plan
from fcbench.schema.patterns import bounded_search
from fcbench.schema.validate import ValidatorCache
from fcbench.store.records import Record, RecordWriter
from fcbench.suite.loader import load_suite
from fcbench.transport import Transport

SUITE = load_suite("core")
TARGET = Target(BUILTIN_ENDPOINTS["sim"], "sim-careful")

Observe = Callable[[ObservationContext, Planned], Awaitable[FinishRecord]]


def plan_of(n: int) -> list[Planned]:
    return [Planned(seq=i, target=TARGET, case=SUITE.cases[i], repeat=0, mode="selection") for i in range(n)]


def recording(ctx: ObservationContext, planned: Planned, log: list[str] | None = None) -> FinishRecord:
    """A finisher that records ``planned`` as a harness error made by the test (and logs that it ran)."""

    def finish() -> Record:
        if log is not None:
            log.append(f"grade {planned.seq}")
        return harness_error_record(ctx, planned, now_iso(), RuntimeError("made by the test"))

    return finish


async def run_pool(plan: list[Planned], observe: Observe, records: Path, concurrency: int) -> int:
    transport = Transport()
    ctx = ObservationContext(
        run_id="t",
        suite=SUITE,
        transport=transport,
        prices=PriceTable(),
        validators=ValidatorCache(),
        api_keys={},
        temperature=0.0,
        max_tokens=16,
        seed=0,
    )
    try:
        return await run_plan(ctx, plan, observe, records, ProgressSink(), concurrency=concurrency)
    finally:
        await transport.aclose()


def seqs_on_disk(records: Path) -> list[int]:
    return sorted(json.loads(line)["seq"] for line in records.read_text().splitlines())


def test_a_finished_record_reaches_the_disk_while_another_observation_is_stuck(tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    seen_on_disk: list[int] = []

    async def observe(ctx: ObservationContext, planned: Planned) -> FinishRecord:
        if planned.seq == 1:  # the stuck one: look at the disk while it waits
            await asyncio.sleep(2.5)
            seen_on_disk.append(len(records.read_text().splitlines()))
        return recording(ctx, planned)

    assert asyncio.run(run_pool(plan_of(2), observe, records, concurrency=2)) == 2
    assert seen_on_disk == [1]  # the fast record was written (batch of 32 not reached) within ~1 s
    assert [json.loads(line)["seq"] for line in records.read_text().splitlines()] == [0, 1]


def test_workers_answered_together_send_their_next_requests_before_any_of_them_is_graded(
    tmp_path: Path,
) -> None:
    log: list[str] = []

    async def go() -> int:
        waves = [asyncio.Event() for _ in range(3)]

        async def observe(ctx: ObservationContext, planned: Planned) -> FinishRecord:
            log.append(f"send {planned.seq}")
            await waves[planned.seq // 3].wait()  # three answers arrive in the same turn of the loop
            return recording(ctx, planned, log)

        async def answer() -> None:
            for wave in waves:
                await asyncio.sleep(0.05)
                wave.set()

        answering = asyncio.create_task(answer())
        count = await run_pool(plan_of(9), observe, tmp_path / "records.jsonl", concurrency=3)
        await answering
        return count

    assert asyncio.run(go()) == 9
    for wave in range(2):
        graded_first = log.index(f"grade {3 * wave}")
        assert all(log.index(f"send {3 * wave + 3 + i}") < graded_first for i in range(3)), log
    assert sorted(e for e in log if e.startswith("grade")) == sorted(f"grade {i}" for i in range(9))
    assert seqs_on_disk(tmp_path / "records.jsonl") == list(range(9))


def test_a_cancelled_run_still_records_every_observation_that_was_answered(tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"

    async def go() -> None:
        answered = asyncio.Event()

        async def observe(ctx: ObservationContext, planned: Planned) -> FinishRecord:
            if planned.seq >= 20:
                await asyncio.sleep(3600)  # never answered
            await answered.wait()
            return recording(ctx, planned)

        run = asyncio.create_task(run_pool(plan_of(40), observe, records, concurrency=20))
        await asyncio.sleep(0.05)
        answered.set()
        run.cancel()  # in the same turn of the loop: the answers wait to be graded
        with pytest.raises(asyncio.CancelledError):
            await run

    asyncio.run(go())
    assert seqs_on_disk(records) == list(range(20))


def test_a_record_that_cannot_be_written_fails_the_run_instead_of_hanging_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    append = RecordWriter.append
    calls: list[int] = []

    def failing_append(self: RecordWriter, record: Record) -> None:
        calls.append(record.seq)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        append(self, record)

    monkeypatch.setattr(RecordWriter, "append", failing_append)

    async def observe(ctx: ObservationContext, planned: Planned) -> FinishRecord:
        await asyncio.sleep(0.01)
        return recording(ctx, planned)

    async def go() -> int:
        return await asyncio.wait_for(run_pool(plan_of(20), observe, tmp_path / "r.jsonl", concurrency=2), 30)

    with pytest.raises(OSError, match="No space left"):
        asyncio.run(go())


def test_an_observation_whose_pattern_needs_time_is_graded_off_the_event_loop_and_recorded(
    tmp_path: Path,
) -> None:
    graded_on: list[str] = []

    async def observe(ctx: ObservationContext, planned: Planned) -> FinishRecord:
        def finish() -> Record:
            bounded_search(r"^(a|aa)+$", "a" * 60 + "!")  # catastrophic: needs more than a quick match
            graded_on.append(threading.current_thread().name)
            return harness_error_record(ctx, planned, now_iso(), RuntimeError("made by the test"))

        return finish

    recorded = asyncio.run(run_pool(plan_of(3), observe, tmp_path / "records.jsonl", concurrency=3))
    assert recorded == 3 and sorted(seqs_on_disk(tmp_path / "records.jsonl")) == [0, 1, 2]
    assert len(graded_on) == 3 and threading.main_thread().name not in graded_on
