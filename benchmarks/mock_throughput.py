"""Mock throughput: CPU per request of ``fcbench mock serve`` against a minimal stub, per dialect.

For each dialect, streamed and not, fcbench's own runner sends the core suite's requests (each
case ``--repeats`` times per simulated model) to a fresh ``fcbench mock serve`` process per model,
and the same number of requests to the stub of ``stub_provider.py``, started once for the whole
run. The CPU time of each server process, read from ``/proc`` so the runner's own share is not
counted, is divided by the requests it answered. Printed per row: CPU ms per request of the mock
and of the stub, their ratio, and the requests per second one core sustains at that cost
(1000 / CPU ms). Then the bottleneck: the components and functions of a cProfile of one more mock
process answering every row's requests.

Every observation must be real, or the benchmark fails: HTTP 200, no transport or provider
error, a tool call or a text answer, and at least one parsed tool call per target; against the
stub, a tool call every time.

    python benchmarks/mock_throughput.py --repeats 1 --concurrency 4
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import pstats
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
from stub_provider import process_cpu_seconds, start_server, stop_server, stub_command

from fcbench.config import RunConfig
from fcbench.mock.server import base_urls
from fcbench.run import execute, prepare
from fcbench.store.blobs import expand_blobs, load_blobs
from fcbench.store.records import run_record_dicts

DIALECTS = ("openai-chat", "openai-responses", "anthropic-messages", "gemini")
MODELS = ("sim-careful", "sim-eager", "sim-sloppy", "sim-flaky")
KEY_ENV = "FCBENCH_BENCH_KEY"

PROFILED_MOCK = """
import cProfile, sys
from fcbench.mock.server import base_urls, bind_socket, build_server
server = build_server()
sock = bind_socket("127.0.0.1", 0)
for dialect, url in base_urls(f"http://127.0.0.1:{sock.getsockname()[1]}").items():
    print(f"{dialect:<20} {url}", flush=True)
profile = cProfile.Profile()
try:
    profile.runcall(server.run, sockets=[sock])
except KeyboardInterrupt:
    pass
profile.dump_stats(sys.argv[1])
"""
"""A mock server process that writes a cProfile of its whole life to ``argv[1]`` when interrupted."""

IDLE = re.compile(r"'poll' of 'select\.|selectors\.py:select$")
"""Profiled functions that wait for the network (the profile's timer is the wall clock): not counted."""

COMPONENTS: tuple[tuple[str, str], ...] = (
    ("simulated models (fcbench.mock.sim)", r"fcbench/mock/sim/"),
    ("dialects and engine (fcbench.mock)", r"fcbench/mock/"),
    ("tool-schema checks (jsonschema, fcbench.schema)", r"jsonschema|referencing|fcbench/schema/"),
    ("HTTP server (uvicorn, h11)", r"uvicorn|h11|httptools"),
    ("ASGI framework (starlette, fastapi, anyio)", r"starlette|fastapi|anyio"),
    ("event loop and socket I/O (asyncio)", r"asyncio|selectors|_socket\.socket"),
)
"""Component -> pattern over ``file:function`` of the functions that belong to it (first wins).
Other functions (the standard library's json, re and random, built-ins) count for the component
of their heaviest caller."""
SERVING = COMPONENTS[3:]
"""The components a stub pays as much as the mock: serving HTTP."""


@dataclass
class Row:
    """One measured workload."""

    dialect: str
    stream: bool
    model: str
    requests: int
    cpu_s: float
    calls: int
    texts: int

    @property
    def ms(self) -> float:
        """CPU milliseconds per request."""
        return 1000 * self.cpu_s / self.requests


def wait_healthy(urls: dict[str, str], timeout: float = 30.0) -> None:
    """Wait until the server's ``/health`` answers (so start-up CPU is not counted)."""
    root = urls["anthropic-messages"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(root + "/health", timeout=1.0, trust_env=False).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{root} did not answer /health within {timeout} s")


def warm_up(urls: dict[str, str], model: str, sample: dict) -> None:
    """Send one request like ``sample`` (a record of the same dialect and streaming) for ``model``,
    its prompt replaced by a text that is in no case. The process's one-time costs (lazy imports,
    first compiles, the tool schemas' first checks) are then not counted, and no measured prompt
    has been read before."""
    request = (sample["raw"].get("exchanges") or [sample["raw"]])[0]["request"]
    sent = sample["target"]["model"]
    body = json.dumps(request["body"]).replace(json.dumps(sample["case"]["prompt"])[1:-1], "Warm-up, ignore.")
    body = body.replace(json.dumps({"model": sent})[1:-1], json.dumps({"model": model})[1:-1])
    path = "/" + request["url"].split("/", 3)[3].replace(f"/models/{sent}:", f"/models/{model}:")
    headers = {"content-type": "application/json"}
    for name, value in request["headers"].items():
        secret = "Bearer warm-up" if name.lower() == "authorization" else "warm-up"
        headers[name] = secret if value == "[REDACTED]" else value
    root = urls["anthropic-messages"]
    response = httpx.post(root + path, content=body, headers=headers, trust_env=False, timeout=60)
    if response.status_code != 200:
        raise SystemExit(f"warm-up {path} {model}: HTTP {response.status_code} {response.text[:200]}")


def run_workload(
    urls: dict[str, str], dialect: str, stream: bool, models: Sequence[str], repeats: int, concurrency: int
) -> list[dict]:
    """Run the core suite (selection or stream mode) against ``urls``; return the records, raw expanded."""
    with tempfile.TemporaryDirectory() as tmp:
        config = RunConfig.model_validate(
            {
                "endpoints": {
                    "bench": {
                        "dialect": dialect,
                        "base_url": urls[dialect],
                        "api_key_env": KEY_ENV,
                        "local": True,
                    }
                },
                "targets": [f"bench:{model}" for model in models],
                "repeats": repeats,
                "concurrency": concurrency,
                "modes": ["stream" if stream else "selection"],
                "timeoutMs": 60000,
            }
        )
        spec = prepare(config, out_root=Path(tmp))
        result = asyncio.run(execute(spec))
        blobs = load_blobs(result.run_dir)
        return [{**r, "raw": expand_blobs(r["raw"], blobs)} for r in run_record_dicts(result.run_dir)]


def check_real(records: list[dict], where: str, every_call: bool) -> tuple[int, int]:
    """Fail unless every observation is an HTTP 200 tool call or text answer with no error (a tool
    call every time when ``every_call``), and each target made at least one parsed call.
    Returns (calls, texts)."""
    kinds: collections.Counter[str] = collections.Counter()
    calls_by_target: collections.Counter[str] = collections.Counter()
    for record in records:
        exchanges = record["raw"].get("exchanges") or [record["raw"]]
        statuses = {(ex.get("response") or {}).get("status") for ex in exchanges}
        outcome = (record.get("outcome") or {}).get("kind")
        if record.get("error") or statuses != {200} or outcome not in ("tool_calls", "text"):
            raise SystemExit(
                f"{where}: not a real reply (status {sorted(map(str, statuses))}, outcome {outcome}, "
                f"error {record.get('error')}) in case {record['case_id']}"
            )
        kinds[outcome] += 1
        if outcome == "tool_calls":
            calls_by_target[record["target"]["model"]] += 1
    targets = {record["target"]["model"] for record in records}
    if not records or any(calls_by_target[t] == 0 for t in targets):
        raise SystemExit(f"{where}: a target made no parsed tool call: {dict(calls_by_target)}")
    if every_call and kinds["text"]:
        raise SystemExit(f"{where}: the stub answered {kinds['text']} requests without a tool call")
    return kinds["tool_calls"], kinds["text"]


def measure(
    urls: dict[str, str],
    pid: int,
    dialect: str,
    stream: bool,
    models: Sequence[str],
    args: argparse.Namespace,
    stub: bool = False,
) -> tuple[Row, list[dict]]:
    """CPU of the server process ``pid`` over one workload, and the workload's records."""
    before = process_cpu_seconds(pid)
    records = run_workload(urls, dialect, stream, models, args.repeats, args.concurrency)
    cpu = process_cpu_seconds(pid) - before
    label = f"{'stub' if stub else 'mock'} {dialect} {'stream' if stream else 'plain'}"
    calls, texts = check_real(records, label, every_call=stub)
    requests = sum(len(r["raw"].get("exchanges") or [r["raw"]]) for r in records)
    return Row(dialect, stream, "+".join(models), requests, cpu, calls, texts), records


def start_mock(command: Sequence[str]) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """Start a mock process; return it and the URL of every dialect it serves (``start_server``
    stops reading after as many URL lines as the stub prints, and the mock prints more)."""
    proc, urls = start_server(command)
    return proc, base_urls(urls["anthropic-messages"])


def measure_mock(dialect: str, stream: bool, model: str, args: argparse.Namespace, sample: dict) -> Row:
    """One workload against a fresh ``fcbench mock serve`` process, warmed up with one request."""
    proc, urls = start_mock([sys.executable, "-m", "fcbench", "mock", "serve", "--port", "0"])
    try:
        wait_healthy(urls)
        warm_up(urls, model, sample)
        return measure(urls, proc.pid, dialect, stream, [model], args)[0]
    finally:
        stop_server(proc)


def component_of(key: tuple[str, int, str], entries: dict, depth: int = 0) -> str:
    """The component a profiled function belongs to: by its file, else by its heaviest caller."""
    where = f"{key[0]}:{key[2]}"
    found = next((name for name, pattern in COMPONENTS if re.search(pattern, where)), None)
    if found is not None:
        return found
    callers = {caller: stat for caller, stat in entries[key][4].items() if caller in entries}
    if not callers or depth > 6:
        return "other"
    heaviest = max(callers, key=lambda caller: callers[caller][3])
    return component_of(heaviest, entries, depth + 1)


def short(key: tuple[str, int, str]) -> str:
    """``package/module.py:function`` of a profiled function."""
    path = key[0]
    if path == "~":
        return key[2]
    parts = Path(path).parts
    tail = "/".join(parts[parts.index("fcbench") :] if "fcbench" in parts else parts[-2:])
    return f"{tail}:{key[2]}"


def profile_mock(args: argparse.Namespace, top: int) -> None:
    """Profile one mock process over every row's requests; print components and top functions."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "mock.prof"
        proc, urls = start_mock([sys.executable, "-c", PROFILED_MOCK, str(out)])
        try:
            wait_healthy(urls)
            requests = 0
            for dialect in args.dialects:
                for stream in (False, True):
                    records = run_workload(urls, dialect, stream, args.models, args.repeats, args.concurrency)
                    check_real(records, f"profiled mock {dialect}", every_call=False)
                    requests += sum(len(r["raw"].get("exchanges") or [r["raw"]]) for r in records)
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
        stats = pstats.Stats(str(out))
    entries = {
        key: entry
        for key, entry in stats.stats.items()  # type: ignore[attr-defined]
        if not IDLE.search(f"{key[0]}:{key[2]}")
    }
    total = sum(entry[2] for entry in entries.values())
    shares: collections.Counter[str] = collections.Counter()
    for key, entry in entries.items():
        shares[component_of(key, entries)] += entry[2]
    print(f"\nprofile of one mock process ({requests} requests; cProfile, own time, waiting excluded):")
    for name, seconds in shares.most_common():
        print(f"  {100 * seconds / total:5.1f}%  {name}")
    serving = sum(shares[name] for name, _ in SERVING)
    own = total - serving
    print(f"  serving HTTP {100 * serving / total:.0f}%, the mock's own work {100 * own / total:.0f}%")
    print(f"top {top} functions by own time:")
    for key, entry in sorted(entries.items(), key=lambda item: -item[1][2])[:top]:
        print(f"  {100 * entry[2] / total:5.1f}%  {short(key)}  ({entry[1]} calls)")
    sim = [(k, e) for k, e in entries.items() if "fcbench/mock/sim/" in k[0]]
    print("top simulated-model functions by cumulative time:")
    for key, entry in sorted(sim, key=lambda item: -item[1][3])[:5]:
        print(f"  {100 * entry[3] / total:5.1f}%  {short(key)}")
    name, seconds = shares.most_common(1)[0]
    print(f"bottleneck: {name}, {100 * seconds / total:.0f}% of the mock's CPU")


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=1, help="repeats of each case per model")
    parser.add_argument("--concurrency", type=int, default=4, help="requests in flight")
    parser.add_argument("--dialects", nargs="+", default=list(DIALECTS), choices=DIALECTS)
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument("--top", type=int, default=10, help="functions of the profile to print")
    parser.add_argument("--no-profile", action="store_true", help="skip the profiling pass")
    args = parser.parse_args()
    os.environ.setdefault(KEY_ENV, "bench-key")

    print(
        f"core suite, {args.repeats} repeat(s) per model, concurrency {args.concurrency}, "
        f"{os.cpu_count()} cores; CPU of the server process only, after one warm-up request"
    )
    header = f"{'dialect':<19} {'stream':<6} {'model':<12} {'requests':>8} {'mock ms':>8} {'stub ms':>8}"
    print(f"{header} {'ratio':>6} {'mock req/s':>10} {'stub req/s':>10}  replies")
    stub, urls = start_server(stub_command())
    worst = 0.0
    try:
        wait_healthy(urls)
        for dialect in args.dialects:
            for stream in (False, True):
                base, records = measure(urls, stub.pid, dialect, stream, args.models, args, stub=True)
                for model in args.models:
                    row = measure_mock(dialect, stream, model, args, records[0])
                    worst = max(worst, row.ms)
                    print(
                        f"{dialect:<19} {'yes' if stream else 'no':<6} {row.model:<12} {row.requests:>8} "
                        f"{row.ms:>8.3f} {base.ms:>8.3f} {row.ms / base.ms:>5.1f}x {1000 / row.ms:>10.0f} "
                        f"{1000 / base.ms:>10.0f}  {row.calls} calls, {row.texts} texts"
                    )
    finally:
        stop_server(stub)
    print(f"highest mock CPU per request: {worst:.3f} ms")
    if not args.no_profile:
        profile_mock(args, args.top)


if __name__ == "__main__":
    main()
