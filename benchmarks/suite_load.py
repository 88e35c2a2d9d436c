"""Start-up against the suite's size: from process start to the first request of ``fcbench run``.

For each size it writes a suite folder (the core suite's tool sets, system prompt and claims,
with ``cases.jsonl`` holding that many single-turn cases (the smallest size, 10 by default, is
the baseline: what start-up costs without a suite to speak of): the core suite's, cycled, each with a
new id), then

- times the phases of loading it in this process (read, JSON parse, pydantic validation, the
  semantic checks, the id checks, hashing; then selecting, planning and the manifest's counts and
  tool-set pins), fresh and from the suite cache, and names the largest phase: the bottleneck;
- runs ``fcbench run --suite DIR`` in a child process twice against the stub provider of
  ``stub_provider.py`` (one real dialect with an API key; the first run with an empty suite
  cache, the second with the cache the first one left), stops each once it has recorded
  ``--observations`` observations, and reads its records back: every one must be an HTTP 200
  tool call from the stub, or the benchmark fails. Start-up is the first record's ``started_at``
  minus the moment the child was started.

    python benchmarks/suite_load.py --sizes 1000 10000 100000
    python benchmarks/suite_load.py --sizes 1000 --observations 20
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from harness_overhead import check_records
from stub_provider import start_server, stop_server, stub_command

KEY_ENV = "FCBENCH_BENCH_KEY"
DIALECT = "openai-chat"
SUITE_PARTS = ("suite.json", "system.txt", "tools.core.json", "tools.compatibility.json", "claims.json")
"""The core suite's files copied as they are (its recovery scenarios are left out)."""
CACHE_ENV = "FCBENCH_CACHE_DIR"


def write_suite(size: int, folder: Path) -> Path:
    """A suite folder with ``size`` single-turn cases (the core suite's, cycled, new ids)."""
    from fcbench.suite.loader import BUILTIN_DIR

    core = BUILTIN_DIR / "core"
    folder.mkdir(parents=True, exist_ok=True)
    for name in SUITE_PARTS:
        shutil.copy(core / name, folder / name)
    lines = (core / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    models = [json.loads(line) for line in lines if line.strip()]
    with (folder / "cases.jsonl").open("w", encoding="utf-8") as out:
        for number in range(size):
            case = dict(models[number % len(models)])
            suffix = f"-{number // len(models)}"
            case["id"] += suffix
            if case.get("paraphrase_of"):
                case["paraphrase_of"] += suffix
            out.write(json.dumps(case, ensure_ascii=False) + "\n")
    return folder


class Phases:
    """Seconds spent per phase, in the order first met."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started

    def line(self) -> str:
        return ", ".join(f"{name} {seconds * 1000:.0f} ms" for name, seconds in self.seconds.items())

    def bottleneck(self) -> str:
        name, seconds = max(self.seconds.items(), key=lambda item: item[1])
        return f"{name} ({seconds / sum(self.seconds.values()):.0%})"


def fresh_phases(folder: Path) -> Phases:
    """The phases of a fresh load, done one after the other as the loader does them per case."""
    from fcbench.suite import loader
    from fcbench.suite.checks import case_findings
    from fcbench.suite.models import Case
    from fcbench.suite.parts import SuiteReader, check_case_ids
    from fcbench.suite.reading import decode_lines, strict_json_loads

    phases = Phases()
    reader = SuiteReader(folder)
    with phases.timed("read"):
        data = (folder / loader.CASES_FILE).read_bytes()
        lines = [line for line in decode_lines(data, str(folder), reader.problems) if line and line.strip()]
    with phases.timed("json"):
        values = [strict_json_loads(line) for line in lines]
    with phases.timed("tool sets"):
        context = loader._load_tool_sets(reader, [])
    with phases.timed("pydantic"):
        cases = [Case.model_validate(value) for value in values]
    with phases.timed("checks"):
        for case in cases:
            case_findings(case, context)
    with phases.timed("ids"):
        check_case_ids([(lambda findings: None, lambda: "", case) for case in cases])
    with phases.timed("hash"):
        reader.texts["cases.jsonl"] = "\n".join(lines)
        reader.dataset_hash()
    return phases


def load_phases(folder: Path) -> tuple[Phases, Any]:
    """``load_suite`` as a whole, then what the run does with the suite before its first request."""
    from fcbench.config import RunConfig
    from fcbench.endpoints import BUILTIN_ENDPOINTS
    from fcbench.run.pins import tool_pins
    from fcbench.run.plan import Plan, Target, select_cases
    from fcbench.suite.loader import load_suite

    phases = Phases()
    with phases.timed("load_suite"):
        suite = load_suite(folder)
    config = RunConfig()
    with phases.timed("select"):
        cases = select_cases(suite.cases, config.categories, config.tags, config.cases)
    with phases.timed("plan counts"):
        plan = Plan([Target(BUILTIN_ENDPOINTS["sim"], "sim-a")], cases, 1, ["selection"])
        len(plan), plan.planned_by()
    with phases.timed("tool pins"):
        tool_pins(suite)
    with phases.timed("first observation"):
        next(iter(plan.in_execution_order()))
    return phases, suite


def run_config(url: str, folder: Path) -> Path:
    config = folder / "fcbench.json"
    endpoint = {"dialect": DIALECT, "base_url": url, "api_key_env": KEY_ENV, "local": True}
    body = {"endpoints": {"bench": endpoint}, "targets": ["bench:stub-model"], "concurrency": 10}
    config.write_text(json.dumps(body), encoding="utf-8")
    return config


def records_in(run_root: Path) -> int:
    found = list(run_root.glob("*/records.jsonl"))
    if not found:
        return 0
    with found[0].open("rb") as records:
        return sum(1 for _ in records)


def first_request(
    url: str, suite: Path, work: Path, observations: int, env: dict[str, str]
) -> tuple[float, int]:
    """Start ``fcbench run`` on ``suite``, stop it after ``observations`` records; the seconds from
    its start to its first request, and the observations checked (every one a tool call)."""
    out = Path(tempfile.mkdtemp(dir=work))
    config = run_config(url, out)
    command = [sys.executable, "-m", "fcbench", "run", "-c", str(config), "--suite", str(suite)]
    started = time.time()
    with tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(
            [*command, "--no-progress", "--out", str(out / "runs")],
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
        )
        while child.poll() is None and records_in(out / "runs") < observations:
            time.sleep(0.02)
        if child.poll() is None:
            child.send_signal(signal.SIGINT)
        child.wait()
        err.seek(0)
        if not (out / "runs").is_dir() or records_in(out / "runs") == 0:
            raise SystemExit(
                f"fcbench run made no observation (exit {child.returncode}): {err.read()[-2000:]}"
            )
    (run_dir,) = (out / "runs").iterdir()
    checked, _, _ = check_records(run_dir)  # fails unless every one is a tool call
    first = min(
        datetime.fromisoformat(json.loads(line)["started_at"]).timestamp()
        for line in (run_dir / "records.jsonl").open(encoding="utf-8")
    )
    return first - started, checked


def measure(size: int, work: Path, url: str, observations: int) -> None:
    """Print the figures of one suite size."""
    folder = write_suite(size, work / f"suite-{size}")
    fresh = fresh_phases(folder)
    os.environ[CACHE_ENV] = str(work / f"cache-in-{size}")
    cold, _ = load_phases(folder)  # with an empty suite cache
    warm, _ = load_phases(folder)  # with the cache the first load left
    env = {**os.environ, KEY_ENV: "bench-key", CACHE_ENV: str(work / f"cache-run-{size}")}
    (empty, checked), (filled, checked_too) = (
        first_request(url, folder, work, observations, env) for _ in "12"
    )
    print(
        f"{size:>7} cases: first request {empty:.2f} s (empty cache), {filled:.2f} s (cache filled); "
        f"{checked + checked_too} tool calls checked"
    )
    print(f"         fresh load by phase: {fresh.line()}; bottleneck {fresh.bottleneck()}")
    print(f"         run start, empty cache: {cold.line()}; bottleneck {cold.bottleneck()}")
    print(f"         run start, cache filled: {warm.line()}; bottleneck {warm.bottleneck()}")


def main() -> None:
    """Print, per suite size, the time to the first request and the phases, and the bottleneck."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 1000, 10_000, 100_000])
    parser.add_argument("--observations", type=int, default=20, help="records to wait for per run")
    args = parser.parse_args()
    from fcbench.suite.loader import load_suite

    load_suite("core")  # the imports and the first compiled validators are not the suite's size
    with tempfile.TemporaryDirectory() as tmp:
        proc, urls = start_server(stub_command(0))
        try:
            for size in args.sizes:
                measure(size, Path(tmp), urls[DIALECT], args.observations)
        finally:
            stop_server(proc)


if __name__ == "__main__":
    main()
