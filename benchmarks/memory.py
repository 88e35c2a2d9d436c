"""Peak memory of a run as it grows: the runner's peak RSS at N = 10^3, 10^4, 10^5 observations.

Each size runs ``harness_overhead.py`` in a fresh process (so each peak is that run's alone)
against the stub provider at concurrency C, and this prints, per size, the peak RSS of the run
(taken before its records are read back), CPU ms per observation and wall / ideal, then the ratio
of the largest peak to the smallest: about 1 when memory does not grow with the run.

    python benchmarks/memory.py --sizes 1000 10000 100000 --concurrency 500 --latency-ms 20
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

HARNESS = Path(__file__).with_name("harness_overhead.py")
FIGURES = {
    "rss": re.compile(r"^peak RSS\s+(\d+) MiB", re.M),
    "cpu": re.compile(r"^CPU per observation\s+([\d.]+) ms", re.M),
    "ratio": re.compile(r"^wall / ideal .*= ([\d.]+)x", re.M),
    "n": re.compile(r"^observations\s+(\d+)", re.M),
}


def measure(size: int, concurrency: int, latency_ms: int) -> dict[str, float]:
    """One run of ``size`` observations in its own process; its figures."""
    command = [sys.executable, str(HARNESS), "--n", str(size), "--concurrency", str(concurrency)]
    done = subprocess.run(
        [*command, "--latency-ms", str(latency_ms)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"harness_overhead.py --n {size} failed:\n{done.stdout}\n{done.stderr}")
    found = {name: pattern.search(done.stdout) for name, pattern in FIGURES.items()}
    missing = [name for name, match in found.items() if match is None]
    if missing:
        raise SystemExit(f"harness_overhead.py printed no {', '.join(missing)}:\n{done.stdout}")
    return {name: float(match.group(1)) for name, match in found.items() if match is not None}


def main() -> None:
    """Run each size and print the table and the largest/smallest ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--concurrency", type=int, default=500)
    parser.add_argument("--latency-ms", type=int, default=20)
    args = parser.parse_args()
    print(f"{'observations':>12}  {'peak RSS':>9}  {'CPU/obs':>8}  {'wall/ideal':>10}")
    peaks = []
    for size in args.sizes:
        figures = measure(size, args.concurrency, args.latency_ms)
        peaks.append(figures["rss"])
        print(
            f"{int(figures['n']):>12}  {figures['rss']:>5.0f} MiB  {figures['cpu']:>5.2f} ms  "
            f"{figures['ratio']:>9.2f}x",
            flush=True,
        )
    print(f"largest / smallest peak RSS: {max(peaks) / min(peaks):.2f}")


if __name__ == "__main__":
    main()
