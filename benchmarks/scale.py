"""Scale: fcbench with one and two worker processes, and the bare aiohttp client, as the work grows.

For each N (observations) x C (concurrency) of the grid, against the stub provider of
``stub_provider.py`` (a separate process, fixed latency), it runs

- ``fcbench run --workers 1`` and ``--workers 2`` (the CLI, in a child process, the core suite's
  single-turn cases repeated to about N observations, one real dialect with an API key), and
- the bare aiohttp client (a child process sending N requests of one chat body, C at a time),

and prints one table: wall / ideal (ideal = N x latency / C), CPU ms per observation (user + sys
of the child and everything it started), requests in flight on average (recorded latency x N /
wall, as a share of C), the peak RSS of the largest process, and the start-up (from starting the
process to its first request). Every observation must be a tool call: fcbench's records are read
back (every one an HTTP 200 with a parsed tool call, or the benchmark fails) and the client checks
every reply holds the stub's tool call.

    python benchmarks/scale.py --quick
    python benchmarks/scale.py --sizes 1000 10000 100000 --concurrency 50 200 500 --latency-ms 100
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

KEY_ENV = "FCBENCH_BENCH_KEY"
DIALECT = "openai-chat"
OBJECT = {"type": "object"}
QUICK = {"sizes": [1000, 3000], "concurrency": [50, 200]}
FULL = {"sizes": [1000, 10_000, 100_000], "concurrency": [50, 200, 500]}


@dataclass(frozen=True)
class Measured:
    """One runner at one N x C."""

    runner: str
    """``fcbench w=1``, ``fcbench w=2`` or ``aiohttp``."""
    n: int
    """Observations made (every one a tool call)."""
    wall_s: float
    """From starting the child process to its exit."""
    cpu_s: float
    """User + system CPU of the child and its descendants."""
    latency_s: float
    """Sum of the latencies recorded (for the mean in flight)."""
    peak_rss_mib: float
    """Peak RSS of the largest process (the child or one of its descendants)."""
    startup_s: float
    """From starting the child to its first request."""


def run_child(command: list[str]) -> tuple[float, float, float, float, str]:
    """Run ``command``; its start time (epoch), wall seconds, CPU seconds and peak RSS (MiB) of it and
    its descendants (``wait4``'s usage), and its stdout."""
    started, clock = time.time(), time.perf_counter()
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - clock
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode not in (0, 1):  # 1: the stub's one answer fails some cases' gate
        raise SystemExit(f"{' '.join(command[:4])} ... exited {proc.returncode}: {stderr[-2000:]}")
    return started, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stdout


def fcbench_config(url: str, observations: int, concurrency: int, workers: int) -> dict[str, object]:
    from fcbench.suite.loader import load_suite

    cases = [c for c in load_suite("core").cases if c.recovery is None]
    return {
        "endpoints": {"bench": {"dialect": DIALECT, "base_url": url, "api_key_env": KEY_ENV, "local": True}},
        "targets": ["bench:stub-model"],
        "repeats": math.ceil(observations / len(cases)),
        "concurrency": concurrency,
        "workers": workers,
        "timeoutMs": 120_000,
    }


def measure_fcbench(url: str, observations: int, concurrency: int, workers: int, tmp: Path) -> Measured:
    from harness_overhead import check_records

    folder = Path(tempfile.mkdtemp(dir=tmp))
    config = folder / "fcbench.json"
    config.write_text(json.dumps(fcbench_config(url, observations, concurrency, workers)), encoding="utf-8")
    command = [sys.executable, "-m", "fcbench", "run", "-c", str(config), "--no-progress"]
    started, wall, cpu, peak, _ = run_child([*command, "--out", str(folder / "runs")])
    (run_dir,) = (folder / "runs").iterdir()
    n, _, mean_latency_ms = check_records(run_dir)  # fails unless every one is a tool call
    first = min(
        datetime.fromisoformat(json.loads(line)["started_at"]).timestamp()
        for line in (run_dir / "records.jsonl").open(encoding="utf-8")
    )
    return Measured(f"fcbench w={workers}", n, wall, cpu, n * mean_latency_ms / 1000, peak, first - started)


def measure_aiohttp(url: str, observations: int, concurrency: int) -> Measured:
    command = [sys.executable, __file__, "--client", url, str(observations), str(concurrency)]
    started, wall, cpu, peak, stdout = run_child(command)
    report = json.loads(stdout)
    return Measured("aiohttp", report["n"], wall, cpu, report["latency_s"], peak, report["first"] - started)


async def bare_client(url: str, observations: int, concurrency: int) -> dict[str, float]:
    """Send ``observations`` chat requests, ``concurrency`` at a time; fail unless each is a tool call."""
    import aiohttp

    body = {
        "model": "stub-model",
        "messages": [{"role": "user", "content": "Where is order ORD-104821?"}],
        "tools": [
            {"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object"}}}
        ],
    }
    headers = {"Authorization": f"Bearer {os.environ[KEY_ENV]}"}
    first: list[float] = []
    latency = 0.0
    slots = asyncio.Semaphore(concurrency)
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one() -> None:
            nonlocal latency
            async with slots:
                if not first:
                    first.append(time.time())
                clock = time.perf_counter()
                async with session.post(f"{url}/chat/completions", json=body, headers=headers) as reply:
                    data = await reply.json()
                latency += time.perf_counter() - clock
                calls = data["choices"][0]["message"].get("tool_calls") or []
                if reply.status != 200 or [c["function"]["name"] for c in calls] != ["lookup_order"]:
                    raise SystemExit(f"not a tool call from the stub: {reply.status} {data}")

        await asyncio.gather(*(one() for _ in range(observations)))
    return {"n": observations, "latency_s": latency, "first": first[0]}


def row(m: Measured, concurrency: int, latency_ms: int) -> str:
    ideal = m.n * latency_ms / 1000 / concurrency
    in_flight = m.latency_s / m.wall_s
    return (
        f"| {m.n:>7} | {concurrency:>4} | {m.runner:<11} | {m.wall_s / ideal:>6.2f}x | "
        f"{1000 * m.cpu_s / m.n:>6.2f} ms | {in_flight:>5.0f} ({100 * in_flight / concurrency:>3.0f}%) | "
        f"{m.peak_rss_mib:>5.0f} MiB | {m.startup_s:>5.2f} s |"
    )


def main() -> None:
    """Run the grid and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"a small grid: {QUICK}")
    parser.add_argument("--sizes", type=int, nargs="+", help=f"observations (default {FULL['sizes']})")
    parser.add_argument("--concurrency", type=int, nargs="+", help=f"default {FULL['concurrency']}")
    parser.add_argument("--latency-ms", type=int, default=100, help="the stub's fixed latency")
    parser.add_argument("--client", nargs=3, metavar=("URL", "N", "C"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault(KEY_ENV, "bench-key")
    if args.client:
        url, n, c = args.client
        print(json.dumps(asyncio.run(bare_client(url, int(n), int(c)))))
        return
    from stub_provider import start_server, stop_server, stub_command  # not in the client's start-up

    grid = QUICK if args.quick else FULL
    sizes, levels = args.sizes or grid["sizes"], args.concurrency or grid["concurrency"]
    proc, urls = start_server(stub_command(args.latency_ms))
    load = os.getloadavg()[0]
    print(f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, load average {load:.1f} at the start")
    print(f"stub latency {args.latency_ms} ms, {DIALECT}; every observation a tool call")
    print(
        "|       N |    C | runner      | wall/ideal |  CPU/obs | in flight (of C) |  peak RSS | start-up |"
    )
    print(
        "|--------:|-----:|-------------|-----------:|---------:|-----------------:|----------:|---------:|"
    )
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for n in sizes:
                for c in levels:
                    for workers in (1, 2):
                        measured = measure_fcbench(urls[DIALECT], n, c, workers, Path(tmp))
                        print(row(measured, c, args.latency_ms), flush=True)
                    print(row(measure_aiohttp(urls[DIALECT], n, c), c, args.latency_ms), flush=True)
    finally:
        stop_server(proc)
    print("CPU/obs: the runner's processes only (the stub runs in its own); peak RSS: the largest one")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
