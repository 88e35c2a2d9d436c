"""Fault soak: a few hundred concurrent observations against a mock that misbehaves in every way.

The run is driven in-process (``prepare`` / ``execute``) against one mock provider with a seeded mix
of faults: rate limits announcing ``retry-after``, 500s, overloads, slow first bytes, hangs past the
client timeout, streams and bodies cut mid-way, malformed JSON, in-stream errors and arguments split
into tiny fragments. It proves:

* every planned observation is recorded exactly once, and the manifest is completed;
* every failure is classified: provider error codes come only from the known retryable set, each is
  graded ``not_scored``, and each attempt's code is known;
* retries stay within the per-request cap and the run-wide ``retry_budget``, and the records account
  for every retry the transport spent;
* memory stays flat: running the same plan again does not grow the heap (see the threshold note).
"""

from __future__ import annotations

import gc
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from robust_checks import KNOWN_ERROR_CODES
from robust_run import mock_process, record_keys, records, run_in_process

from fcbench.run import RunResult
from fcbench.suite.loader import load_suite

FAULTS = (
    "rate_limit:0.1,server_error:0.08,overload:0.05,slow_first_byte:0.05,timeout:0.02,stream_cut:0.05,"
    "malformed_json:0.05,stream_error:0.03,split_args:0.15,seed=5,retry_after=1,slow_ms=200,hang_s=5"
)
FAULT_CODES = {"rate_limited", "server", "overloaded", "timeout", "bad_response"}
"""What the faults above may turn into (all retryable)."""
MAX_RETRIES = 2
RETRY_BUDGET = 70
HEAP_GROWTH_LIMIT = 256_000
"""Bytes the runner's traced heap may grow by between two identical runs.

One run makes 400 observations. A leak that kept as little as 640 bytes per observation (a record's
raw exchange alone is several kB) would add 256 kB per run; the growth measured between identical
runs is 5-20 kB (caches warming, interned strings). The mock runs in another process, so its own
connection bookkeeping is not counted.
"""


def _config() -> dict[str, Any]:
    suite = load_suite("core")
    cases = [c.id for c in suite.cases if c.recovery is None][:25]
    return {
        "suite": "core",
        "targets": [
            "sim:sim-careful",
            "sim-responses:sim-careful",
            "sim-anthropic:sim-careful",
            "sim-gemini:sim-careful",
        ],
        "cases": cases,
        "repeats": 2,
        "modes": ["selection", "stream"],
        "concurrency": 32,
        "timeoutMs": 1000,
        "max_retries": MAX_RETRIES,
        "retry_budget": RETRY_BUDGET,
    }


def _check(result: RunResult) -> list[dict[str, Any]]:
    rows = records(result.run_dir)
    keys = Counter(record_keys(rows))
    assert result.planned >= 300
    assert len(rows) == len(keys) == result.planned == result.recorded, "each observation exactly once"
    assert result.manifest.finished_at is not None

    errors = [r for r in rows if r["outcome"]["kind"] == "provider_error"]
    assert {r["outcome"]["code"] for r in errors} <= FAULT_CODES, Counter(
        r["outcome"]["code"] for r in errors
    )
    assert all(r["verdict"]["decision"] == "not_scored" for r in errors)
    attempt_codes = {a["code"] for r in rows for a in r["raw"].get("attempts", [])}
    assert attempt_codes <= FAULT_CODES | {None}, attempt_codes
    assert {c for c in attempt_codes if c} <= KNOWN_ERROR_CODES

    attempts = [r["attempts"] for r in rows]
    assert max(attempts) <= 1 + MAX_RETRIES
    spent = sum(a - 1 for a in attempts)
    assert spent == result.retries <= RETRY_BUDGET
    assert all(len(r["raw"]["attempts"]) == r["attempts"] for r in rows if r["attempts"] > 1)
    return rows


@pytest.mark.timeout(240)
def test_fault_soak_records_everything_once_and_memory_stays_flat(tmp_path: Path) -> None:
    # The mock runs in its own process, so the heap measured below is the runner's alone.
    with mock_process("--faults", FAULTS) as mock_url:
        _soak(tmp_path, mock_url)


def _soak(tmp_path: Path, mock_url: str) -> None:
    config = _config()
    gc.collect()
    tracemalloc.start()
    try:
        mix = _fault_mix(_check(run_in_process(config, tmp_path / "first", mock_url)))
        gc.collect()  # the first run's rows are gone: the second run is measured against the same heap
        after_first, peak_first = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        _check(run_in_process(config, tmp_path / "second", mock_url))
        gc.collect()
        after_second, peak_second = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The mix really happened: faults of every kind were met, and most observations still succeeded.
    met, succeeded, observed, recovered = mix
    assert {"rate_limited", "server", "overloaded", "timeout", "bad_response"} <= set(met), met
    assert succeeded > observed * 0.6
    assert recovered
    # The first run warms the caches (the growth is measured from its end); the second must not add.
    growth = after_second - after_first
    assert growth < HEAP_GROWTH_LIMIT, f"heap grew by {growth} bytes over an identical run"
    assert peak_second < peak_first * 1.25 + HEAP_GROWTH_LIMIT, (peak_first, peak_second)


def _fault_mix(rows: list[dict[str, Any]]) -> tuple[Counter[str], int, int, bool]:
    """The fault codes met, the observations that still succeeded, all of them, and whether one
    succeeded after a retry."""
    met = Counter(a["code"] for r in rows for a in r["raw"].get("attempts", []) if a["code"])
    met.update(r["outcome"]["code"] for r in rows if r["outcome"]["kind"] == "provider_error")
    succeeded = sum(r["outcome"]["kind"] != "provider_error" for r in rows)
    recovered = any(r["attempts"] > 1 and r["outcome"]["kind"] != "provider_error" for r in rows)
    return met, succeeded, len(rows), recovered
