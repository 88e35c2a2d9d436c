"""The core suite against a real small model served by llama.cpp on this machine.

    .venv/bin/python benchmarks/real_model.py [--model qwen2.5-coder-0.5b] [--model qwen2.5-coder-1.5b]

Needs the ``local`` extra and the models (``fcbench local pull NAME``). For each model it runs
``fcbench run -t local:NAME`` on the core suite (single-turn selection and the recovery scenarios,
one repeat, concurrency 1: the server has one slot) and prints:

- strict and repairs pass rates (``fcbench report --profile strict,repairs``), the repairs used by
  kind, and the share of observations a repair changed;
- seconds per request and tokens per second (the server's own generation rate, from the
  ``timings`` llama.cpp writes into each reply, and output tokens over request time);
- where the time went: the share of the run's wall time spent waiting on the server (the
  bottleneck is the llama.cpp server process, generating tokens), the rest being fcbench's start-up,
  grading and writing.

It checks that it measured real replies: every observation scored (no provider or harness error)
and every raw response a llama.cpp reply (it carries ``timings``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))

from robust_run import records  # noqa: E402

TIMEOUT_MS = 300_000
"""Per-request deadline of the benchmark's runs."""
MAX_LOST_SHARE = 0.05
"""The benchmark refuses to report figures when more observations than this were lost."""


def exchanges(row: dict[str, Any]) -> list[dict[str, Any]]:
    raw = row["raw"]
    return [x["response"] for x in raw["exchanges"]] if "exchanges" in raw else [raw["response"]]


def measure(model: str, modes: list[str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.json"
        # a request may write up to max_tokens (1024) at ~10-20 tokens/s: allow it to finish
        config.write_text(json.dumps({"targets": [f"local:{model}"], "modes": modes, "repeats": 1,
                                      "concurrency": 1, "timeoutMs": TIMEOUT_MS}))  # fmt: skip
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "fcbench", "run", "--config", str(config), "--out", tmp,
             "--min-coverage", "0", "--no-progress"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        wall = time.perf_counter() - started
        if done.returncode not in (0, 1):
            raise SystemExit(f"fcbench run failed ({done.returncode}):\n{done.stderr[-2000:]}")
        [run_dir] = [p for p in Path(tmp).iterdir() if p.is_dir()]
        rows = records(run_dir)
        report = subprocess.run(
            [sys.executable, "-m", "fcbench", "report", str(run_dir), "--profile", "strict,repairs",
             "--format", "json"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        profiles = json.loads(report.stdout)
    lost = [r for r in rows if r["verdict"]["decision"] == "not_scored"]
    for row in lost:
        print(f"   not scored: {row['case_id']} {row['mode']}: {json.dumps(row['outcome'])[:200]}")
    replies = [reply for row in rows if row not in lost for reply in exchanges(row)]
    not_llama = [r for r in replies if r.get("status") != 200 or '"timings"' not in json.dumps(r)]
    if len(lost) > len(rows) * MAX_LOST_SHARE or not_llama:
        raise SystemExit(
            f"{model}: {len(lost)} observations not scored, {len(not_llama)} replies not from llama.cpp"
        )
    timings = [r["body"]["timings"] for r in replies if "body" in r]
    predicted_n = sum(t["predicted_n"] for t in timings)
    predicted_s = sum(t["predicted_ms"] for t in timings) / 1000
    latency_s = sum(r["latency_ms"] or 0 for r in rows) / 1000
    output_tokens = sum((r.get("usage") or {}).get("output_tokens") or 0 for r in rows)

    def passed(profile: str) -> tuple[int, int]:
        n = d = 0
        for target in profiles["profiles"][profile]["targets"]:
            n += target["pass_rate"]["n"]
            d += target["pass_rate"]["d"]
        return n, d

    repairs: dict[str, int] = {}
    repaired_n = repaired_d = 0
    for target in profiles["profiles"]["repairs"]["targets"]:
        for kind, count in (target.get("repairs") or {}).items():
            repairs[kind] = repairs.get(kind, 0) + count
        if target.get("repaired"):
            repaired_n += target["repaired"]["n"]
            repaired_d += target["repaired"]["d"]
    return {
        "model": model,
        "observations": len(rows),
        "lost": len(lost),
        "requests": len(replies),
        "strict": passed("strict"),
        "repairs": passed("repairs"),
        "repair_kinds": dict(sorted(repairs.items(), key=lambda kv: -kv[1])),
        "repaired": (repaired_n, repaired_d),
        "seconds_per_request": latency_s / max(len(replies), 1),
        "generation_tokens_per_s": predicted_n / predicted_s if predicted_s else 0.0,
        "output_tokens_per_request_s": output_tokens / latency_s if latency_s else 0.0,
        "wall_s": wall,
        "server_share": latency_s / wall,
    }


def rate(pair: tuple[int, int]) -> str:
    n, d = pair
    return f"{100 * n / d:.1f}% ({n}/{d})" if d else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", help="catalogue model (repeatable)")
    parser.add_argument("--mode", action="append", help="modes (default: selection and recovery)")
    args = parser.parse_args()
    models = args.model or ["qwen2.5-coder-0.5b"]
    modes = args.mode or ["selection", "recovery"]
    for model in models:
        m = measure(model, modes)
        print(
            f"== local:{m['model']} ({m['observations']} observations, {m['lost']} lost, "
            f"{m['requests']} requests, {', '.join(modes)})"
        )
        print(f"   strict pass rate   {rate(m['strict'])}")
        print(f"   repairs pass rate  {rate(m['repairs'])}   ratio to strict: "
              f"{(m['repairs'][0] / m['strict'][0]) if m['strict'][0] else float('inf'):.2f}x")  # fmt: skip
        print(f"   repaired           {rate(m['repaired'])} of scorable observations")
        print(f"   repairs by kind    {m['repair_kinds']}")
        print(f"   seconds/request    {m['seconds_per_request']:.2f}")
        print(f"   tokens/s           {m['generation_tokens_per_s']:.1f} generating (server timings), "
              f"{m['output_tokens_per_request_s']:.1f} output tokens per request second")  # fmt: skip
        print(f"   wall               {m['wall_s']:.0f} s, {100 * m['server_share']:.0f}% of it waiting on "
              "the llama.cpp server (the bottleneck: token generation in that process)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
