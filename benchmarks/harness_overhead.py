"""Harness overhead: how close to the ideal wall time fcbench runs, and its CPU per observation.

Starts the stub provider of ``stub_provider.py`` with a fixed latency in a separate process (so
its CPU is not charged to the runner, and the provider costs next to nothing), runs N
observations at concurrency C through one real dialect with an API key, and prints wall/ideal,
observations per second, CPU ms per observation (user+sys of this process), peak RSS and the
stub's own CPU per request. The ideal wall time is N x latency / C.

The stub answers every request with one valid tool call, so every observation must be one:
the records are read back and the benchmark fails unless each is an HTTP 200 with a parsed
tool call and no error (their decisions are counted and printed).

    python benchmarks/harness_overhead.py --n 2000 --concurrency 100 --latency-ms 100
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import math
import os
import pstats
import resource
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from stub_provider import BASE_PATHS, process_cpu_seconds, start_server, stop_server, stub_command

from fcbench.config import RunConfig
from fcbench.run import execute, prepare
from fcbench.store.blobs import expand_blobs, load_blobs
from fcbench.store.records import run_record_dicts
from fcbench.suite.loader import load_suite
from fcbench.transport.event_loop import run_async

KEY_ENV = "FCBENCH_BENCH_KEY"
MAX_REPEATS = 1000
"""The config's highest ``repeats``: larger runs also repeat copies of the cases (new ids)."""


def cpu_seconds() -> float:
    """User + system CPU time of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def check_records(run_dir: Path) -> tuple[int, collections.Counter[str], float]:
    """Fail unless every observation is an HTTP 200 tool call without error; return the count of
    observations, of decisions, and the mean latency the runner recorded (ms)."""
    blobs = load_blobs(run_dir)
    kinds: collections.Counter[str] = collections.Counter()
    decisions: collections.Counter[str] = collections.Counter()
    n, latency = 0, 0.0
    for record in run_record_dicts(run_dir):
        n += 1
        latency += record.get("latency_ms") or 0.0
        status = (expand_blobs(record["raw"], blobs).get("response") or {}).get("status")
        kind = (record.get("outcome") or {}).get("kind")
        kinds[f"{status} {kind}"] += 1
        decisions[(record.get("verdict") or {}).get("decision") or "none"] += 1
        if record.get("error") or status != 200 or kind != "tool_calls":
            raise SystemExit(
                f"observation {record['case_id']} is not a tool call from the stub: status {status}, "
                f"outcome {kind}, error {record.get('error')}; all so far: {dict(kinds)}"
            )
    return n, decisions, latency / max(n, 1)


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="observations")
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--latency-ms", type=int, default=100)
    parser.add_argument("--dialect", default="openai-chat", choices=sorted(BASE_PATHS))
    parser.add_argument("--model", default="stub-model", help="model name sent (the stub ignores it)")
    parser.add_argument(
        "--profile", type=int, default=0, metavar="TOP", help="profile the run, print TOP functions"
    )
    parser.add_argument("--profile-out", help="with --profile: also write the profile (pstats) here")
    args = parser.parse_args()
    os.environ.setdefault(KEY_ENV, "bench-key")

    suite = load_suite("core")
    cases = [c for c in suite.cases if c.recovery is None]
    copies = math.ceil(args.n / len(cases) / MAX_REPEATS)  # past 1000 repeats: copies of the cases
    cases = [c.model_copy(update={"id": f"{c.id}~{k}"}) if k else c for k in range(copies) for c in cases]
    suite = replace(suite, cases=cases)
    repeats = math.ceil(args.n / len(cases))
    proc, urls = start_server(stub_command(args.latency_ms))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            config = RunConfig.model_validate(
                {
                    "endpoints": {
                        "bench": {
                            "dialect": args.dialect,
                            "base_url": urls[args.dialect],
                            "api_key_env": KEY_ENV,
                            "local": True,
                        }
                    },
                    "targets": [f"bench:{args.model}"],
                    "repeats": repeats,
                    "concurrency": args.concurrency,
                    "timeoutMs": 60000,
                }
            )
            spec = prepare(config, out_root=Path(tmp), suite=suite)
            stub_before = process_cpu_seconds(proc.pid)
            cpu_before, wall_before = cpu_seconds(), time.perf_counter()
            profiler = cProfile.Profile() if args.profile else None
            if profiler is not None:
                profiler.enable()
            result = run_async(execute(spec))
            if profiler is not None:
                profiler.disable()
            wall = time.perf_counter() - wall_before
            cpu = cpu_seconds() - cpu_before
            stub_cpu = process_cpu_seconds(proc.pid) - stub_before
            peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before reading back
            n, decisions, mean_latency = check_records(result.run_dir)
    finally:
        stop_server(proc)
    ideal = n * args.latency_ms / 1000 / args.concurrency
    print(
        f"observations        {n} (dialect {args.dialect}, concurrency {args.concurrency}, "
        f"latency {args.latency_ms} ms; every one an HTTP 200 tool call)"
    )
    print(f"decisions           {', '.join(f'{name} {count}' for name, count in decisions.most_common())}")
    print(f"wall / ideal        {wall:.2f} s / {ideal:.2f} s = {wall / ideal:.3f}x")
    print(f"observations/s      {n / wall:.1f}")
    print(
        f"latency recorded    {mean_latency:.1f} ms per observation on average "
        f"({mean_latency - args.latency_ms:.1f} ms over the stub's fixed latency)"
    )
    print(f"CPU per observation {1000 * cpu / n:.2f} ms (user+sys of the runner process)")
    print(f"peak RSS            {peak_mib:.0f} MiB (of the run, before its records are read back)")
    print(
        f"in flight           {n * mean_latency / 1000 / wall:.0f} requests on average "
        f"({100 * n * mean_latency / 1000 / wall / args.concurrency:.0f}% of the concurrency; "
        "recorded latency x observations / wall)"
    )
    print(
        f"stub CPU per obs.   {1000 * stub_cpu / n:.2f} ms (the provider's share, another process; "
        f"{os.cpu_count()} cores on this machine)"
    )
    if profiler is not None:
        print(f"\nprofile of the run, top {args.profile} functions by own time (the profiler slows the run):")
        stats = pstats.Stats(profiler)
        if args.profile_out:
            stats.dump_stats(args.profile_out)
        stats.sort_stats("tottime").print_stats(args.profile)


if __name__ == "__main__":
    main()
