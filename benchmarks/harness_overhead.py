"""Harness overhead: how close to the ideal wall time fcbench runs, and its CPU per observation.

Starts the mock provider with a fixed latency in a separate process (so its CPU is not charged to
the runner), runs N observations at concurrency C through one real dialect, and prints
wall/ideal, observations per second, CPU ms per observation (user+sys of this process) and peak RSS.
The ideal wall time is N x latency / C.

    python benchmarks/harness_overhead.py --n 2000 --concurrency 100 --latency-ms 100
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fcbench.config import RunConfig
from fcbench.run import execute, prepare
from fcbench.suite.loader import load_suite

URL_LINE = re.compile(r"^(\S+)\s+(http://\S+)$")


def start_mock(latency_ms: int, faults: str | None = None) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """Start ``fcbench mock serve`` on a free port; return the process and its base URL per dialect."""
    command = [
        sys.executable,
        "-m",
        "fcbench",
        "mock",
        "serve",
        "--port",
        "0",
        "--latency-ms",
        str(latency_ms),
    ]
    proc = subprocess.Popen(
        [*command, *(["--faults", faults] if faults else [])], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    urls: dict[str, str] = {}
    while len(urls) < 4:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("mock provider exited before printing its URLs")
        match = URL_LINE.match(line.strip())
        if match:
            urls[match.group(1)] = match.group(2)
    return proc, urls


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of another process (Linux ``/proc``), or None where unavailable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_seconds() -> float:
    """User + system CPU time of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="observations")
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--latency-ms", type=int, default=100)
    parser.add_argument("--dialect", default="openai-chat")
    parser.add_argument("--model", default="sim-careful")
    args = parser.parse_args()

    suite = load_suite("core")
    cases = [c for c in suite.cases if c.recovery is None]
    repeats = math.ceil(args.n / len(cases))
    proc, urls = start_mock(args.latency_ms)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            config = RunConfig.model_validate(
                {
                    "endpoints": {
                        "bench": {
                            "dialect": args.dialect,
                            "base_url": urls[args.dialect],
                            "key_required": False,
                            "local": True,
                        }
                    },
                    "targets": [f"bench:{args.model}"],
                    "repeats": repeats,
                    "concurrency": args.concurrency,
                    "timeoutMs": 60000,
                }
            )
            spec = prepare(config, out_root=Path(tmp), resume_dir=None, shard=None)
            mock_before = process_cpu_seconds(proc.pid)
            cpu_before, wall_before = cpu_seconds(), time.perf_counter()
            result = asyncio.run(execute(spec, mock_url=None))
            wall = time.perf_counter() - wall_before
            cpu = cpu_seconds() - cpu_before
            mock_after = process_cpu_seconds(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    n = result.recorded
    ideal = n * args.latency_ms / 1000 / args.concurrency
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"observations        {n} (dialect {args.dialect}, concurrency {args.concurrency}, "
        f"latency {args.latency_ms} ms)"
    )
    print(f"wall / ideal        {wall:.2f} s / {ideal:.2f} s = {wall / ideal:.3f}x")
    print(f"observations/s      {n / wall:.1f}")
    print(f"CPU per observation {1000 * cpu / n:.2f} ms (user+sys of the runner process)")
    print(f"peak RSS            {peak_mib:.0f} MiB")
    if mock_before is not None and mock_after is not None:
        print(
            f"mock CPU per obs.   {1000 * (mock_after - mock_before) / n:.2f} ms (the provider's share, "
            f"another process; {os.cpu_count()} cores on this machine)"
        )


if __name__ == "__main__":
    main()
