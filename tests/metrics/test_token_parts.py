"""Token totals keep the cache parts: input counts them, and they are summed apart too."""

from __future__ import annotations

import json
from pathlib import Path

from records_builder import RunBuilder, call_outcome, error_outcome, verdict

from fcbench.metrics import compute_metrics
from fcbench.store.records import RECORDS_FILE

CALL = call_outcome(("lookup_order", {"order_id": "ORD-104821"}))


def test_cache_parts_are_summed_apart_and_stay_inside_input(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path)
    b.add("c1", CALL, verdict(), usage=(600, 20, 587, 0))
    b.add("c2", CALL, verdict(), usage=(700, 30, 100, 500))
    b.add("c3", CALL, verdict(), usage=(50, 5))  # a dialect that reports no cache parts
    b.add("c4", error_outcome(), None, usage=(40, 0, 40))  # billed, so counted
    [t] = compute_metrics(b.write()).targets
    tokens = t.tokens
    assert (tokens.input, tokens.output, tokens.cache_read, tokens.cache_write) == (1_390, 55, 727, 500)
    assert tokens.cache_read + tokens.cache_write <= tokens.input


def test_a_cache_count_that_is_no_integer_counts_nothing(tmp_path: Path) -> None:
    run_dir = RunBuilder(tmp_path).add("c1", CALL, verdict(), usage=(600, 20, 587)).write()
    lines = (run_dir / RECORDS_FILE).read_text().splitlines()
    rec = json.loads(lines[0])
    rec["usage"]["cache_read_input_tokens"] = "587"
    (run_dir / RECORDS_FILE).write_text(json.dumps(rec) + "\n")
    [t] = compute_metrics(run_dir).targets
    assert (t.tokens.input, t.tokens.cache_read) == (600, 0)
