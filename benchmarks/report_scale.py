"""Report and compare at scale: seconds and peak RSS of ``fcbench report`` and ``compare``, as ratios.

Generates synthetic run directories (records shaped like real ones, raw exchanges compacted to
blob references as the runner writes them) of each size in two shapes: ``few`` cases (400 cases,
so 625 repeats per case and target at 10^6 records) and ``many`` cases (3 repeats per case and
target: 83,333 distinct case ids at 10^6). For each, in child processes (peak RSS from the OS):

* the floors, measured in the same run: ``read``, reading ``records.jsonl`` line by line, and
  ``json``, ``json.loads`` of every line (what reading every record as a dict costs);
* ``fcbench report --format json`` and ``--format md``, and ``fcbench compare`` of two runs (it
  reads both);

each as seconds, CPU seconds (workers included), peak MiB (of the largest process) and seconds /
``json``. Then one in-process pass over the largest run of each shape splits the metrics pass
into its phases (reading and splitting lines, decoding the record views, folding them, building
the metrics and the compact case summary rows, writing the JSON report, streamed, to
``/dev/null``) and names the largest; and the pass is timed in one process and split over the
cores by case id (:mod:`fcbench.metrics.fast.partition`, which ``report`` uses on a large run).

    python benchmarks/report_scale.py --sizes 10000 100000 1000000
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

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
FEW_CASES = 400
MANY_REPEATS = 3
"""Repeats per case and target of the ``many`` shape (10^6 records: 83,333 case ids)."""

FLOORS = {
    "read": "import sys\nfor line in open(sys.argv[1], 'rb'):\n    pass\n",
    "json": "import json, sys\nfor line in open(sys.argv[1], 'rb'):\n    json.loads(line)\n",
}
"""Child scripts of the floors (each given the records file)."""


def cases_of(n: int, shape: str) -> int:
    """Distinct case ids of a synthetic run of ``n`` records."""
    return FEW_CASES if shape == "few" else max(1, n // (MANY_REPEATS * len(TARGETS)))


def synthetic_run(run_dir: Path, n: int, seed: int, cases: int = FEW_CASES) -> None:
    """Write a manifest and ``n`` records with a realistic mix of outcomes and verdicts."""
    rng = random.Random(seed)
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
    encode = msgspec.json.Encoder().encode  # the same bytes as json.dumps(separators=(",", ":")) here
    with (run_dir / RECORDS_FILE).open("wb") as fh:
        for seq in range(n):
            fh.write(encode(_record(run_dir.name, seq, cases, rng)) + b"\n")


def _record(run_id: str, seq: int, cases: int, rng: random.Random) -> dict[str, Any]:
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
    return {
        "run_id": run_id,
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


def timed(args: list[str], ok: tuple[int, ...] = (0,)) -> tuple[float, float, float]:
    """Seconds, peak RSS (MiB, of the largest process) and CPU seconds (workers included) of a child
    ``python ARGS`` process."""
    start = time.perf_counter()
    with subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL) as child:
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    assert child.returncode in ok, (args, child.returncode)
    return seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def measure(base: Path, new: Path) -> dict[str, tuple[float, float, float]]:
    """Seconds, peak MiB and CPU seconds of the floors, the reports and the comparison."""
    records = str(base / RECORDS_FILE)
    found = {name: timed(["-c", script, records]) for name, script in FLOORS.items()}
    fcbench = ["-m", "fcbench"]
    found["report json"] = timed([*fcbench, "report", str(base), "--format", "json"])
    found["report md"] = timed([*fcbench, "report", str(base)])
    found["compare"] = timed([*fcbench, "compare", str(base), str(new)], ok=(0, 1))
    return found


def phases(run_dir: Path) -> dict[str, float]:
    """CPU seconds of each phase of the metrics pass over ``run_dir``, in this process."""
    import gc

    from fcbench.metrics.aggregate import RunAccumulator
    from fcbench.metrics.fast.lines import fold_lines
    from fcbench.report.jsonfmt import write_json
    from fcbench.store.records import read_manifest
    from fcbench.store.view import DECODER, complete_lines

    path = run_dir / RECORDS_FILE

    def lines() -> None:
        for _ in complete_lines(path):
            pass

    def decode() -> None:
        for block, _ in complete_lines(path):
            for line in block:
                DECODER.decode(line)

    def cpu(step: Callable[[], Any]) -> tuple[float, Any]:
        start = time.process_time()
        result = step()
        return time.process_time() - start, result

    gc.disable()
    try:
        read_s, _ = cpu(lines)
        decode_s, _ = cpu(decode)
        acc = RunAccumulator()
        fold_s, read = cpu(lambda: fold_lines(acc, run_dir))
        finish_s, metrics = cpu(lambda: acc.finish(read_manifest(run_dir), read, None))
        with open(os.devnull, "wb") as sink:
            render_s, _ = cpu(lambda: write_json(metrics, sink))
    finally:
        gc.enable()
    return {
        "read and split lines": read_s,
        "decode record views": max(0.0, decode_s - read_s),
        "fold into state": max(0.0, fold_s - decode_s),
        "build metrics and case rows": finish_s,
        "write JSON": render_s,
    }


def in_parts(run_dir: Path) -> tuple[float, float, int]:
    """Wall seconds of the metrics pass over ``run_dir`` in this process alone and split over the
    usable CPUs (:func:`fcbench.metrics.fast.partition.fold_in_parts`), and how many parts."""
    from fcbench.metrics import compute_metrics
    from fcbench.metrics.fast.partition import usable_cpus

    parts = max(2, usable_cpus())
    start = time.perf_counter()
    compute_metrics(run_dir)
    one = time.perf_counter() - start
    start = time.perf_counter()
    compute_metrics(run_dir, parts=parts)
    return one, time.perf_counter() - start, parts


def main() -> None:
    """Generate, time and print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--shapes", nargs="+", choices=["few", "many"], default=["few", "many"])
    args = parser.parse_args()
    columns = ["read", "json", "report json", "report md", "compare"]
    with tempfile.TemporaryDirectory() as tmp:
        print(
            f"{'shape':>5} {'records':>9} {'cases':>7} {'MB':>5}  " + "  ".join(f"{c:>27}" for c in columns)
        )
        largest: dict[str, Path] = {}
        for shape in args.shapes:
            for size in args.sizes:
                cases = cases_of(size, shape)
                base, new = Path(tmp) / f"{shape}-base-{size}", Path(tmp) / f"{shape}-new-{size}"
                synthetic_run(base, size, seed=1, cases=cases)
                synthetic_run(new, size, seed=2, cases=cases)
                found = measure(base, new)
                floor = found["json"][0]
                cells = [
                    f"{s:5.1f}s {cpu:5.1f}cpu {mib:4.0f}MiB {s / floor:4.2f}x"
                    for s, mib, cpu in (found[c] for c in columns)
                ]
                megabytes = os.path.getsize(base / RECORDS_FILE) / 1e6
                print(
                    f"{shape:>5} {size:>9} {cases:>7} {megabytes:>5.0f}  "
                    + "  ".join(f"{c:>27}" for c in cells)
                )
                largest[shape] = base
        print(
            "\n(cpu: CPU seconds, workers included; x = wall seconds / the json floor: json.loads of"
            " every line, measured in the same run)"
        )
        for shape, run_dir in largest.items():
            split = phases(run_dir)
            total = sum(split.values())
            worst = max(split, key=lambda name: split[name])
            shares = ", ".join(f"{name} {s:.2f}s ({100 * s / total:.0f}%)" for name, s in split.items())
            print(f"\n{shape} cases, {run_dir.name}: {shares}\n  bottleneck: {worst}")
            one, parted, parts = in_parts(run_dir)
            print(
                f"  the pass in one process {one:.2f}s, in {parts} (by case id) {parted:.2f}s"
                f" ({parted / one:.2f}x; wall seconds, this process included)"
            )


if __name__ == "__main__":
    main()
