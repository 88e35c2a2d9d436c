"""Peers on one scenario: a bare HTTP client, fcbench, inspect_ai and promptfoo against one stub.

Every tool sends N requests of one tool-calling prompt at concurrency C to the same fixed-latency
stub (``stub_provider.py``, OpenAI Chat Completions, in a process of its own), each tool in its
own child process, so its wall time, CPU (user+sys) and peak RSS are its own (``os.wait4``). The
ideal wall time is N x latency / C. A tool's run counts only if the stub answered N tool calls
during it (``GET /stats``): an observation that never reached the provider measured nothing.

* ``httpx floor``: a bare ``httpx.AsyncClient`` (one pool) sending the same request N times at C,
  and ``aiohttp floor`` the same with ``aiohttp`` (the client fcbench's transport uses), in sessions
  of 8 connections taken in turn as fcbench's transport keeps them (one session of C connections
  answers 4-8% later here): the floors of Python HTTP clients on this machine, in the same run;
* ``fcbench``: ``fcbench run`` through the CLI, start-up included, records checked to be tool calls;
* ``inspect_ai``: ``inspect eval`` of a task of N samples (one tool, ``generate(tool_calls="none")``
  so each sample is one request), when ``--inspect`` names an ``inspect`` executable or it is on PATH;
* ``promptfoo``: ``promptfoo eval`` of N tests with the tool, when ``--promptfoo`` names its
  ``entrypoint.js`` (run with ``node``) or a ``promptfoo`` executable is on PATH.

Neither peer is a dependency of fcbench: install them apart, e.g.
``python -m venv /tmp/peers && /tmp/peers/bin/pip install inspect-ai openai`` and
``npm install promptfoo`` in a scratch folder.

    python benchmarks/peers.py --n 1000 --concurrency 50 --latency-ms 200 \\
        --inspect /tmp/peers/bin/inspect \\
        --promptfoo /tmp/npm/node_modules/promptfoo/dist/src/entrypoint.js
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from installed import compile_fcbench
from stub_provider import start_server, stop_server, stub_command

KEY = "bench-key"
PROMPT = "Where is order ORD-104821?"
TOOL = {
    "name": "lookup_order",
    "description": "Look up one order by its exact ID.",
    "parameters": {
        "type": "object",
        "properties": {"order_id": {"type": "string", "description": "ORD- and six digits."}},
        "required": ["order_id"],
    },
}

FLOOR_CLIENT = """
import asyncio, json, sys
import httpx
url, n, c = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
body = json.dumps({"model": "stub-model", "messages": [{"role": "user", "content": %(prompt)r}],
                   "tools": [{"type": "function", "function": %(tool)s}]}).encode()
headers = {"authorization": "Bearer %(key)s", "content-type": "application/json"}
async def main():
    limits = httpx.Limits(max_connections=c, max_keepalive_connections=c)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        gate = asyncio.Semaphore(c)
        async def one():
            async with gate:
                r = await client.post(url + "/chat/completions", content=body, headers=headers)
                assert r.json()["choices"][0]["message"]["tool_calls"]
        await asyncio.gather(*(one() for _ in range(n)))
asyncio.run(main())
"""

AIOHTTP_FLOOR = """
import asyncio, itertools, json, sys
import aiohttp
url, n, c = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
body = json.dumps({"model": "stub-model", "messages": [{"role": "user", "content": %(prompt)r}],
                   "tools": [{"type": "function", "function": %(tool)s}]}).encode()
headers = {"authorization": "Bearer %(key)s", "content-type": "application/json"}
async def main():
    pools = [aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=8)) for _ in range(-(-c // 8))]
    turns = itertools.cycle(pools)
    gate = asyncio.Semaphore(c)
    async def one():
        async with gate:
            async with next(turns).post(url + "/chat/completions", data=body, headers=headers) as r:
                assert (await r.json())["choices"][0]["message"]["tool_calls"]
    await asyncio.gather(*(one() for _ in range(n)))
    for pool in pools:
        await pool.close()
asyncio.run(main())
"""

INSPECT_TASK = """
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import Score, Target, accuracy, scorer
from inspect_ai.solver import TaskState, generate, use_tools
from inspect_ai.tool import tool


@tool
def lookup_order():
    async def execute(order_id: str) -> str:
        \"\"\"Look up one order by its exact ID.

        Args:
            order_id: ORD- and six digits.
        \"\"\"
        return "shipped"

    return execute


@scorer(metrics=[accuracy()])
def called_lookup():
    async def score(state: TaskState, target: Target) -> Score:
        calls = state.output.message.tool_calls or []
        return Score(value=1 if calls and calls[0].function == "lookup_order" else 0)

    return score


@task
def peers(n: int = 1000):
    samples = [Sample(input=%(prompt)r, id=i) for i in range(n)]
    return Task(dataset=samples, solver=[use_tools(lookup_order()), generate(tool_calls="none")],
                scorer=called_lookup())
"""


@dataclass(frozen=True)
class Measured:
    """One tool's run."""

    name: str
    wall_s: float
    cpu_s: float
    peak_mib: float
    answered: int
    """Tool calls the stub answered during the run."""
    note: str = ""
    launched_at: float = 0.0
    """Wall-clock time (``time.time()``) the child was started."""


def answered(stats_url: str) -> int:
    with urllib.request.urlopen(stats_url, timeout=10) as reply:
        return int(json.loads(reply.read())["tool_calls"])


def measure(
    name: str, command: list[str], stats_url: str, cwd: Path, env: dict[str, str], note: str = ""
) -> Measured:
    """Run ``command`` as a child; its wall time, CPU and peak RSS, and the stub's answers meanwhile."""
    before = answered(stats_url)
    launched_at = time.time()
    started = time.perf_counter()
    child = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    output = child.stdout.read() if child.stdout else ""
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{name} failed ({status}):\n{output[-3000:]}")
    return Measured(
        name,
        wall,
        usage.ru_utime + usage.ru_stime,
        usage.ru_maxrss / 1024,
        answered(stats_url) - before,
        note,
        launched_at,
    )


def fcbench_run(base_url: str, n: int, c: int, work: Path) -> tuple[list[str], dict[str, str]]:
    config = {
        "endpoints": {
            "stub": {"dialect": "openai-chat", "base_url": base_url, "api_key_env": "STUB_KEY", "local": True}
        },
        "targets": ["stub:stub-model"],
        "suite": str(write_suite(work / "peers-suite.json", n)),
        "repeats": 1,
        "concurrency": c,
        "timeoutMs": 60000,
    }
    (work / "fcbench.json").write_text(json.dumps(config))
    command = [sys.executable, "-m", "fcbench", "run", "-c", "fcbench.json", "--out", "runs", "--no-progress"]
    return command, {**os.environ, "STUB_KEY": KEY}


def write_suite(path: Path, n: int) -> Path:
    """A one-file suite of ``n`` cases, each the one prompt expecting ``lookup_order``."""
    cases = [
        {"id": f"c{i:06d}", "prompt": PROMPT, "expected": {"kind": "tool", "name": "lookup_order",
                                                          "arguments": {"order_id": "ORD-104821"}}}
        for i in range(n)
    ]  # fmt: skip
    path.write_text(json.dumps({"name": "peers", "dataset_version": "1", "tools": [TOOL], "cases": cases}))
    return path


def check_fcbench(work: Path, n: int, run: Measured, ideal_s: float) -> str:
    """Check every record is a tool call; split the wall time at the first request fcbench sent."""
    (run_dir,) = (work / "runs").iterdir()
    records = [json.loads(line) for line in (run_dir / "records.jsonl").open()]
    kinds = {record["outcome"]["kind"] for record in records}
    if len(records) != n or kinds != {"tool_calls"}:
        raise SystemExit(f"fcbench recorded {len(records)} observations, kinds {kinds}")
    first = min(datetime.fromisoformat(record["started_at"]).timestamp() for record in records)
    start_up = first - run.launched_at
    requests = run.wall_s - start_up
    return (
        f"{n} records, every one a tool call; first request after {start_up:.2f} s (start-up), "
        f"the rest {requests:.2f} s ({requests / ideal_s:.2f}x ideal)"
    )


def promptfoo_config(base_url: str, n: int, c: int, work: Path) -> Path:
    config = {
        "description": "peers",
        "prompts": [PROMPT + " (request {{i}})"],
        "providers": [
            {
                "id": "openai:chat:stub-model",
                "config": {
                    "apiBaseUrl": base_url,
                    "apiKey": KEY,
                    "tools": [{"type": "function", "function": TOOL}],
                },
            }
        ],
        "tests": [{"vars": {"i": i}} for i in range(n)],
        "defaultTest": {"assert": [{"type": "is-valid-openai-tools-call"}]},
        "evaluateOptions": {"maxConcurrency": c, "cache": False},
    }
    path = work / "promptfooconfig.json"
    path.write_text(json.dumps(config))
    return path


def main() -> None:
    """Run every tool found and print one table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--latency-ms", type=int, default=200)
    parser.add_argument(
        "--aiohttp-python", default=sys.executable, help="the interpreter of the aiohttp floor (this one)"
    )
    parser.add_argument("--inspect", default=shutil.which("inspect"), help="the inspect executable")
    parser.add_argument(
        "--promptfoo", default=shutil.which("promptfoo"), help="promptfoo's entrypoint.js, or its executable"
    )
    args = parser.parse_args()
    n, c = args.n, args.concurrency
    compile_fcbench()
    proc, urls = start_server(stub_command(args.latency_ms))
    base = urls["openai-chat"]
    stats = base.removesuffix("/v1") + "/stats"
    results: list[Measured] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            floor = FLOOR_CLIENT % {"prompt": PROMPT, "tool": json.dumps(TOOL), "key": KEY}
            results.append(
                measure(
                    "httpx floor",
                    [sys.executable, "-c", floor, base, str(n), str(c)],
                    stats,
                    root,
                    dict(os.environ),
                )
            )
            if args.aiohttp_python:
                floor = AIOHTTP_FLOOR % {"prompt": PROMPT, "tool": json.dumps(TOOL), "key": KEY}
                command = [args.aiohttp_python, "-c", floor, base, str(n), str(c)]
                results.append(measure("aiohttp floor", command, stats, root, dict(os.environ)))
            work = root / "fcbench"
            work.mkdir()
            command, env = fcbench_run(base, n, c, work)
            run = measure("fcbench", command, stats, work, env)
            ideal_s = n * args.latency_ms / 1000 / c
            results.append(Measured(**{**run.__dict__, "note": check_fcbench(work, n, run, ideal_s)}))
            if args.inspect:
                work = root / "inspect"
                work.mkdir()
                (work / "task.py").write_text(textwrap.dedent(INSPECT_TASK % {"prompt": PROMPT}))
                env = {
                    **os.environ,
                    "STUB_API_KEY": KEY,
                    "STUB_BASE_URL": base,
                    "INSPECT_LOG_DIR": str(work / "logs"),
                }
                command = [
                    *(
                        args.inspect,
                        "eval",
                        "task.py",
                        "--model",
                        "openai-api/stub/stub-model",
                        "-T",
                        f"n={n}",
                    ),
                    *("--max-connections", str(c), "--display", "none", "--max-retries", "0"),
                ]
                results.append(
                    measure("inspect_ai", command, stats, work, env, "inspect eval, start-up included")
                )
            if args.promptfoo:
                work = root / "promptfoo"
                work.mkdir()
                config = promptfoo_config(base, n, c, work)
                runner = ["node", args.promptfoo] if args.promptfoo.endswith(".js") else [args.promptfoo]
                quiet = {"PROMPTFOO_DISABLE_TELEMETRY": "1", "PROMPTFOO_DISABLE_UPDATE": "1"}
                env = {**os.environ, **quiet, "PROMPTFOO_CONFIG_DIR": str(work / "home")}
                command = [*runner, "eval", "-c", str(config), "--no-cache", "--max-concurrency", str(c),
                           "--no-progress-bar", "-o", str(work / "out.json")]  # fmt: skip
                results.append(
                    measure("promptfoo", command, stats, work, env, "promptfoo eval, start-up included")
                )
    finally:
        stop_server(proc)
    ideal = n * args.latency_ms / 1000 / c
    print(
        f"scenario: N={n} requests, concurrency {c}, stub latency {args.latency_ms} ms, ideal {ideal:.2f} s"
    )
    print(
        f"{'tool':<13} {'wall s':>7} {'/ideal':>7} {'CPU ms/obs':>11} {'peak MiB':>9} {'answered':>9}  note"
    )
    for r in results:
        print(
            f"{r.name:<13} {r.wall_s:>7.2f} {r.wall_s / ideal:>6.2f}x {1000 * r.cpu_s / n:>11.2f} "
            f"{r.peak_mib:>9.0f} {r.answered:>9}  {r.note}"
        )
    short = [r.name for r in results if r.answered < n]
    if short:
        raise SystemExit(
            f"measured less than planned: {', '.join(short)} got fewer than {n} tool calls answered"
        )
    if not args.inspect or not args.promptfoo:
        missing = [
            name for name, found in (("inspect_ai", args.inspect), ("promptfoo", args.promptfoo)) if not found
        ]
        print(f"not installed here, so not measured: {', '.join(missing)}")


if __name__ == "__main__":
    main()
