"""Real small models served by llama.cpp on this machine, over three dialects; writes the results page.

    .venv/bin/python benchmarks/real_model.py [--model M]... [--variant own|json-fence]... \
        [--suite core=16] [--suite refunds=8] [--repeats 2] [--write docs/real-models.md]

Needs the ``local`` extra and the models (``fcbench local pull NAME``). For each model, template
(the model's own, or a variant such as ``json-fence``) and suite it runs one ``fcbench run``: the
model's own template over ``local`` (openai-chat; ``--own-dialects all`` for the three), a variant
over ``local``, ``local-anthropic`` and ``local-responses``, all on the one managed server, on a
stratified sample of the suite (``--sample``, the same cases for every target: same modes, same
seed), ``--repeats`` times, one request in flight. Per target it reports:

- the strict pass rate with its Wilson 95% interval, and the repairs profile's beside it;
- the share of answers that were structured calls, and of calls written as text (``call_in_text``);
- the failure breakdown (decisions of the failed observations) and the coverage loss by code;
- stability (the share of repeats agreeing with the case's majority), tokens and latency;
- dialect parity: for each case and repeat seen in all three dialects, whether the three verdicts
  (decision and pass) agree, n/d. It checks fcbench's adapters against an independent server.

With ``--write`` the table goes into the page between its markers, with the date, the machine and
the command; the page is rewritten after every finished run, so a cut-short benchmark leaves the
finished part, with its sample stated. ``--runs DIR --reuse`` reads the runs already finished in
``DIR`` (same targets, suite, repeats and sample size) and runs only the rest.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))

from robust_run import records  # noqa: E402

TIMEOUT_MS = 300_000
"""Per-request deadline of the benchmark's runs (a request may write up to max_tokens slowly)."""
DIALECT_ENDPOINTS = ("local", "local-anthropic", "local-responses")
"""The managed endpoints, one per dialect, that share one llama.cpp server."""
BEGIN = "<!-- real-model-results:begin -->"
END = "<!-- real-model-results:end -->"
OWN = "own"
"""The name this script gives the model's own template."""


@dataclass
class Run:
    """One finished fcbench run: its targets' figures and its records."""

    model: str
    variant: str
    suite: str
    rows: list[dict[str, Any]]
    strict: dict[str, dict[str, Any]]
    repairs: dict[str, dict[str, Any]]
    wall_s: float
    pins: dict[str, Any] = field(default_factory=dict)


def served_name(model: str, variant: str) -> str:
    return model if variant == OWN else f"{model}@{variant}"


def execute(model: str, variant: str, suite: str, sample: int, args: argparse.Namespace, out: Path) -> Run:
    """One ``fcbench run`` of every dialect endpoint the template is measured over."""
    name = served_name(model, variant)
    endpoints = DIALECT_ENDPOINTS if variant != OWN or args.own_dialects == "all" else DIALECT_ENDPOINTS[:1]
    config = out / f"{name}-{suite}.json"
    config.write_text(json.dumps({
        "targets": [f"{e}:{name}" for e in endpoints], "modes": ["selection"], "repeats": args.repeats,
        "concurrency": 1, "timeoutMs": TIMEOUT_MS,
    }))  # fmt: skip
    labels = [f"{e}:{name}" for e in endpoints]
    run_dir = finished_run(out, labels, suite, args.repeats, sample) if args.reuse else None
    if run_dir is not None:
        print(f"   reusing {run_dir.name}", flush=True)
        return read_run(model, variant, suite, run_dir)
    before = {p for p in out.iterdir() if p.is_dir()}
    done = subprocess.run(
        [sys.executable, "-m", "fcbench", "run", "--config", str(config), "--suite", suite, "--out", str(out),
         "--sample", str(sample), "--seed", str(args.seed), "--min-coverage", "0", "--no-progress"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode not in (0, 1):
        raise SystemExit(f"fcbench run failed ({done.returncode}):\n{done.stderr[-2000:]}")
    [run_dir] = [p for p in out.iterdir() if p.is_dir() and p not in before]
    return read_run(model, variant, suite, run_dir)


def finished_run(out: Path, labels: list[str], suite: str, repeats: int, sample: int) -> Path | None:
    """A finished run in ``out`` of exactly these targets, suite, repeats and sample size, if any."""
    for run_dir in sorted(p for p in out.iterdir() if (p / "manifest.json").is_file()):
        manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
        if (
            manifest.get("finished_at")
            and manifest.get("suite") == suite
            and manifest.get("repeats") == repeats
            and manifest.get("planned") == len(labels) * repeats * sample
            and [t.get("label") for t in manifest["targets"]] == labels
        ):
            return run_dir
    return None


def read_run(model: str, variant: str, suite: str, run_dir: Path) -> Run:
    """A finished run's figures (both profiles), records and wall time."""
    report = subprocess.run(
        [sys.executable, "-m", "fcbench", "report", str(run_dir), "--profile", "strict,repairs",
         "--format", "json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    profiles = json.loads(report.stdout)["profiles"]
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    began, ended = (datetime.fromisoformat(manifest[key]) for key in ("started_at", "finished_at"))
    wall = (ended - began).total_seconds()
    return Run(
        model, variant, suite, records(run_dir),
        {t["target"]: t for t in profiles["strict"]["targets"]},
        {t["target"]: t for t in profiles["repairs"]["targets"]},
        wall, (manifest["targets"][0].get("service") or {}),
    )  # fmt: skip


def rate(figure: dict[str, Any] | None) -> str:
    if not figure or not figure.get("d"):
        return "–"
    low, high = figure.get("low"), figure.get("high")
    interval = f" [{100 * low:.0f}–{100 * high:.0f}]" if low is not None and high is not None else ""
    return f"{100 * figure['n'] / figure['d']:.0f}% ({figure['n']}/{figure['d']}){interval}"


def share(n: int, d: int) -> str:
    return f"{100 * n / d:.0f}% ({n}/{d})" if d else "–"


def label(row: dict[str, Any]) -> str:
    target = row["target"]
    return f"{target['endpoint']}:{target['model']}"


def target_row(run: Run, target: str) -> list[str]:
    """One line of the table: a target's figures in this run."""
    rows = [r for r in run.rows if label(r) == target]
    strict, repairs = run.strict[target], run.repairs[target]
    scored = [r for r in rows if r["verdict"]["decision"] != "not_scored"]
    structured = sum(r["outcome"]["kind"] == "tool_calls" for r in scored)
    in_text = sum(r["verdict"]["decision"] == "call_in_text" for r in scored)
    failures = Counter(r["verdict"]["decision"] for r in scored if not r["verdict"]["passed"])
    lost = {**strict.get("provider_errors", {})}
    harness = sum(r.get("error") is not None for r in rows)
    if harness:
        lost["harness"] = harness
    stability = strict.get("stability") or {}
    latency = strict.get("latency_ms") or {}
    tokens = strict.get("tokens") or {}
    dialect = strict.get("dialect", "")
    return [
        run.model, "own" if run.variant == OWN else f"`{run.variant}`", dialect, run.suite,
        rate(strict["pass_rate"]), rate(repairs["pass_rate"]),
        share(structured, len(scored)), share(in_text, len(scored)),
        ", ".join(f"{k} {v}" for k, v in failures.most_common(3)) or "–",
        ", ".join(f"{k} {v}" for k, v in sorted(lost.items())) or "0",
        "–" if stability.get("mean") is None else f"{100 * stability['mean']:.0f}%",
        f"{tokens.get('input', 0)} / {tokens.get('output', 0)}",
        f"{(latency.get('p50') or 0) / 1000:.1f} / {(latency.get('p95') or 0) / 1000:.1f}",
    ]  # fmt: skip


def parity(run: Run) -> tuple[int, int]:
    """Cases x repeats seen in every dialect whose verdicts (decision, pass) all agree, and how many."""
    by_key: dict[tuple[str, int], dict[str, tuple[str, bool]]] = {}
    for row in run.rows:
        verdict = row["verdict"]
        if verdict["decision"] == "not_scored":
            continue
        by_key.setdefault((row["case_id"], row["repeat"]), {})[row["target"]["endpoint"]] = (
            verdict["decision"], verdict["passed"],
        )  # fmt: skip
    complete = [v for v in by_key.values() if set(v) == set(DIALECT_ENDPOINTS)]
    return sum(len(set(v.values())) == 1 for v in complete), len(complete)


HEADER = (
    "model", "template", "dialect", "suite", "pass (strict) [95% CI]", "pass (repairs)", "structured calls",
    "calls as text", "failures (top 3)", "lost", "stability", "tokens in / out", "latency p50 / p95 s",
)  # fmt: skip


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu})"


def render(runs: list[Run], args: argparse.Namespace, command: str, planned: int) -> str:
    """The table, the parity figures and how they were made, as markdown."""
    lines = [
        f"Generated by `{command}` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {machine()}; "
        f"{len(runs)} of {planned} runs finished. Sample per suite: "
        + ", ".join(f"{suite} {n} cases" for suite, n in args.suites)
        + f" (stratified by category, seed {args.seed}), {args.repeats} repeats, selection mode, "
        "one request in flight, the other work of the machine beside it.",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "|".join("---" for _ in HEADER) + "|",
    ]
    for run in runs:
        for target in run.strict:
            lines.append("| " + " | ".join(target_row(run, target)) + " |")
    lines += [
        "",
        "Dialect parity (same server, same cases: verdicts agreeing across the three dialects):",
        "",
    ]
    for run in runs:
        if len(run.strict) == len(DIALECT_ENDPOINTS):
            n, d = parity(run)
            lines.append(f"- {run.model} `{run.variant}`, {run.suite}: {share(n, d)}")
    lines += ["", "Templates pinned (chat template sha256, as the manifests record it):", ""]
    pinned = {(r.model, r.variant): r.pins.get("chat_template_sha256") for r in runs}
    lines += [f"- {m} {v}: `{sha}`" for (m, v), sha in pinned.items()]
    wall = sum(r.wall_s for r in runs)
    lines += ["", f"Wall time of the finished runs: {wall / 60:.0f} min."]
    return "\n".join(lines)


def write_page(page: Path, body: str) -> None:
    text = page.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{page}: has no {BEGIN} ... {END} markers")
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    page.write_text(f"{head}{BEGIN}\n{body}\n{END}{tail}", encoding="utf-8")


def suite_size(text: str) -> tuple[str, int]:
    name, _, size = text.partition("=")
    return name, int(size or 16)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", help="catalogue model (repeatable)")
    parser.add_argument("--variant", action="append", help="own or a template variant (repeatable)")
    parser.add_argument("--suite", action="append", type=suite_size, dest="suites", help="SUITE=SAMPLE")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--own-dialects", choices=("chat", "all"), default="chat")
    parser.add_argument("--write", type=Path, help="docs page to write the table into (between its markers)")
    parser.add_argument(
        "--runs", type=Path, help="folder that keeps the run directories (default: temporary)"
    )
    parser.add_argument("--reuse", action="store_true", help="read the finished runs in --runs, run the rest")
    args = parser.parse_args()
    args.suites = args.suites or [("core", 16), ("refunds", 8)]
    models = args.model or ["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"]
    variants = args.variant or [OWN, "json-fence"]
    command = "python benchmarks/real_model.py " + shlex.join(sys.argv[1:])
    plan = [(m, v, s, n) for m in models for v in variants for s, n in args.suites]
    runs: list[Run] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = args.runs or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        for model, variant, suite, sample in plan:
            print(f"== {served_name(model, variant)} on {suite} ({sample} cases)", flush=True)
            runs.append(execute(model, variant, suite, sample, args, out))
            body = render(runs, args, command, len(plan))
            if args.write:
                write_page(args.write, body)
            for target in runs[-1].strict:
                print("   " + " | ".join(target_row(runs[-1], target)), flush=True)
    print(render(runs, args, command, len(plan)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
