"""The metrics pass keeps per case what differs, not per record: memory follows the cases, not the repeats."""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

import pytest
from records_builder import RunBuilder, call_outcome, text_outcome, verdict

from fcbench.metrics.aggregate import RunAccumulator
from fcbench.metrics.fast.lines import fold_lines

CASES = 4


def run_of(run_dir: Path, repeats: int, mode: str) -> Path:
    b = RunBuilder(run_dir, repeats=repeats, modes=[mode])
    for r in range(repeats):
        for i in range(CASES):
            outcome = call_outcome(("lookup_order", {"order_id": f"ORD-{i}"})) if i else text_outcome("?")
            b.add(f"c{i}", outcome, verdict("correct_call" if i else "missed_call"), repeat=r, mode=mode)
    return b.write()


def state_bytes(run: Path) -> tuple[int, RunAccumulator]:
    """Bytes still held after folding ``run`` (the accumulator and what it memoised)."""
    gc.collect()
    tracemalloc.start()
    try:
        acc = RunAccumulator()
        fold_lines(acc, run)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return held, acc


@pytest.mark.parametrize(("mode", "per_record"), [("forced", 12), ("selection", 24)])
def test_agreeing_repeats_cost_a_latency_and_a_bit_each(tmp_path: Path, mode: str, per_record: int) -> None:
    small, _ = state_bytes(run_of(tmp_path / "small", 100, mode))
    large, acc = state_bytes(run_of(tmp_path / "large", 1100, mode))
    (group,) = acc.groups.values()
    assert all(len(case.observations) == 1 and case.counts == [1100] for case in group.cases.values())
    # 4,000 more records: one latency (8 bytes) each, a bit in the case's repeat set, and in the modes
    # stream parity compares one index (8 bytes) per scorable repeat; nothing else grows.
    assert (large - small) / (CASES * 1000) <= per_record, (small, large)
