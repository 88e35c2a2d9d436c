"""The worker pool writes a finished record on a timer, not only when the next one finishes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from fcbench.endpoints import BUILTIN_ENDPOINTS
from fcbench.pricing import PriceTable
from fcbench.run.observe import ObservationContext, harness_error_record, now_iso
from fcbench.run.plan import Planned, Target
from fcbench.run.pool import ProgressSink, run_plan
from fcbench.schema.validate import ValidatorCache
from fcbench.store.records import Record
from fcbench.suite.loader import load_suite
from fcbench.transport import Transport


def test_a_finished_record_reaches_the_disk_while_another_observation_is_stuck(tmp_path: Path) -> None:
    suite = load_suite("core")
    target = Target(BUILTIN_ENDPOINTS["sim"], "sim-careful")
    plan = [Planned(seq=i, target=target, case=suite.cases[i], repeat=0, mode="selection") for i in range(2)]
    records = tmp_path / "records.jsonl"
    seen_on_disk: list[int] = []

    async def observe(ctx: ObservationContext, planned: Planned) -> Record:
        if planned.seq == 1:  # the stuck one: look at the disk while it waits
            await asyncio.sleep(2.5)
            seen_on_disk.append(len(records.read_text().splitlines()))
        return harness_error_record(ctx, planned, now_iso(), RuntimeError("made by the test"))

    async def go() -> int:
        transport = Transport()
        ctx = ObservationContext(
            run_id="t",
            suite=suite,
            transport=transport,
            prices=PriceTable(),
            validators=ValidatorCache(),
            api_keys={},
            temperature=0.0,
            max_tokens=16,
            seed=0,
        )
        try:
            return await run_plan(ctx, plan, observe, records, ProgressSink(), concurrency=2)
        finally:
            await transport.aclose()

    assert asyncio.run(go()) == 2
    assert seen_on_disk == [1]  # the fast record was written (batch of 32 not reached) within ~1 s
    assert [json.loads(line)["seq"] for line in records.read_text().splitlines()] == [0, 1]
