"""Report and compare at scale: seconds and peak RSS of ``fcbench report`` and ``compare``.

Generates synthetic run directories of 10^4, 10^5 and 10^6 observations (records shaped like
real ones, raw exchanges compacted to blob references as the runner writes them), then times
``fcbench report --format json`` and ``fcbench compare`` on them in child processes, reading
each child's peak RSS from the OS.

    python benchmarks/report_scale.py --sizes 10000 100000 1000000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fcbench.store.records import RECORDS_FILE, Manifest, write_manifest

TARGETS = [
    ("sim", "openai-chat", "sim-careful"),
    ("sim-gemini", "gemini", "sim-flaky"),
    ("sim-anthropic", "anthropic-messages", "sim-sloppy"),
    ("sim-responses", "openai-responses", "sim-eager"),
]
DECISIONS = [
    "correct_call",
    "correct_call",
    "correct_call",
    "wrong_tool",
    "missed_call",
    "correct_abstention",
    "correct_clarification",
    "guessed_missing",
    "unnecessary_clarification",
]


def synthetic_run(run_dir: Path, n: int, seed: int) -> None:
    """Write a manifest and ``n`` records with a realistic mix of outcomes and verdicts."""
    rng = random.Random(seed)
    cases = 400
    repeats = max(1, n // (cases * len(TARGETS)))
    run_dir.mkdir(parents=True)
    manifest = Manifest(
        run_id=run_dir.name,
        fcbench_version="bench",
        suite="synthetic",
        dataset_version="1.0.0",
        dataset_hash="0" * 64,
        config_hash="0" * 16,
        targets=[{"label": f"{e}:{m}", "endpoint": e, "dialect": d, "model": m} for e, d, m in TARGETS],
        modes=["selection"],
        repeats=repeats,
        temperature=0.0,
        seed=0,
        planned=n,
        started_at="2026-01-01T00:00:00+00:00",
        finished_at="2026-01-01T01:00:00+00:00",
    )
    write_manifest(run_dir, manifest)
    with (run_dir / RECORDS_FILE).open("w", encoding="utf-8") as fh:
        for seq in range(n):
            endpoint, dialect, model = TARGETS[seq % len(TARGETS)]
            case = (seq // len(TARGETS)) % cases
            error = rng.random() < 0.02
            decision = "not_scored" if error else rng.choice(DECISIONS)
            passed = decision.startswith("correct") and rng.random() < 0.85
            outcome = (
                {"kind": "provider_error", "code": "rate_limited", "message": "429", "status": 429}
                if error
                else {
                    "kind": "tool_calls",
                    "calls": [
                        {
                            "id": f"call_{seq}",
                            "name": "lookup_order",
                            "arguments": {"order_id": f"ORD-{case:06d}"},
                            "raw_arguments": "{}",
                            "parse_error": None,
                        }
                    ],
                }
            )
            record = {
                "run_id": run_dir.name,
                "seq": seq,
                "started_at": "2026-01-01T00:00:00.000+00:00",
                "dataset_version": "1.0.0",
                "target": {"endpoint": endpoint, "dialect": dialect, "model": model},
                "case_id": f"case-{case:04d}",
                "case": {
                    "category": ["normal", "boundary", "adversarial"][case % 3],
                    "tags": [f"tag{case % 7}"],
                    "expected_kind": "tool",
                    "prompt": f"Where is order ORD-{case:06d}?",
                },
                "repeat": seq // (cases * len(TARGETS)),
                "mode": "selection",
                "outcome": outcome,
                "anomalies": [],
                "verdict": {
                    "passed": passed,
                    "decision": decision,
                    "schema_valid": not error,
                    "schema_errors": [],
                    "semantic_exact": passed,
                    "missing": [],
                    "wrong": [],
                    "unexpected": [],
                    "anomalies": [],
                    "reasons": [] if passed else ["wrong order id"],
                },
                "latency_ms": round(rng.uniform(50, 900), 3),
                "usage": {"input_tokens": 420, "output_tokens": 25},
                "cost_usd": 0.0,
                "attempts": 1,
                "schema_changes": [],
                "notes": [],
                "turns": [],
                "raw": {"request": {"$blob": f"{case:020d}"}, "response": {"$blob": f"{seq:020d}"}},
                "error": None,
            }
            fh.write(json.dumps(record, separators=(",", ":")) + "\n")


def timed(args: list[str]) -> tuple[float, float]:
    """Seconds and peak RSS (MiB) of a child ``fcbench`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "fcbench", *args], check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024


def main() -> None:
    """Generate, time and print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print(
            f"{'records':>9}  {'MB':>6}  {'report s':>8}  {'report MiB':>10}  "
            f"{'compare s':>9}  {'compare MiB':>11}"
        )
        for size in args.sizes:
            base, new = Path(tmp) / f"base-{size}", Path(tmp) / f"new-{size}"
            synthetic_run(base, size, seed=1)
            synthetic_run(new, size, seed=2)
            megabytes = os.path.getsize(base / RECORDS_FILE) / 1e6
            report_s, report_mib = timed(["report", str(base), "--format", "json"])
            compare = subprocess.run(
                [sys.executable, "-m", "fcbench", "compare", str(base), str(new)],
                stdout=subprocess.DEVNULL,
                check=False,
            )
            assert compare.returncode in (0, 1)
            compare_s, compare_mib = timed(["compare", str(base), str(base)])
            print(
                f"{size:>9}  {megabytes:>6.0f}  {report_s:>8.1f}  {report_mib:>10.0f}  {compare_s:>9.1f}  "
                f"{compare_mib:>11.0f}"
            )


if __name__ == "__main__":
    main()
