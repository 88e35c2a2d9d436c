"""Provider faults never lower a model metric, only coverage: `fcbench run` with and without `--mock-faults`.

Two runs of the same plan (a sample of the core suite's cases) against the embedded mock (all four
dialects, modes selection and stream, no retries so every drawn fault is seen): one fault-free, one
with corrupted bodies and stream events, cut connections, 5xx, 429, 504 and in-stream errors, plus
fragmented arguments (not an error). The simulated models answer the same request the same way in
both runs (one repeat: each request is sent once, so even ``sim-flaky``'s seeded variation is the
same).

- every faulty-run record is either ``not_scored`` with a provider-error code, or scored exactly
  as the same observation of the fault-free run (same verdict, outcome key and anomalies);
- the faulty run's model rates (`fcbench report --format json`) equal the fault-free run's
  rates restricted to the observations the faulty run scored; only coverage falls.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from cli_inprocess import fcbench_in_process

from fcbench import normalised_outcome_key
from fcbench.report.compare import GATED_METRICS

TARGETS = [
    "sim:sim-careful",
    "sim-responses:sim-careful",
    "sim-anthropic:sim-careful",
    "sim-gemini:sim-careful",
    "sim:sim-sloppy",
    "sim-responses:sim-eager",
    "sim-gemini:sim-flaky",
]
"""sim-careful in every dialect, and models whose own mistakes (bad or cut arguments) must stay theirs."""

FAULTS = (
    "malformed_json:0.3,stream_cut:0.2,server_error:0.2,stream_error:0.2,split_args:0.3,"
    "rate_limit:0.05,overload:0.05,timeout:0.05,seed=5,retry_after=0,hang_s=0.05"
)
FAULT_CODES = {"bad_response", "server", "overloaded", "rate_limited", "timeout"}

MODEL_RATES = (*GATED_METRICS, "stability", "pass_hat_k", "by_category", "by_tag")
"""Every model metric of a report's target entry (each an ``{n, d}`` rate or a map of them); the
gated ones are the compare gate's."""

SAMPLE = 60
"""Cases per run, in proportion per category (the same cases in both runs): about 800 observations
per run, dozens per target and mode, so every fault kind is drawn many times."""

Key = tuple[str, str, int, str]


def _start_run(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "fcbench", "run", "--no-progress", *args]
    return subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(proc: subprocess.Popen[str], out: Path) -> Path:
    _, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 0, stderr
    (run_dir,) = out.iterdir()
    return run_dir


def _rows(run_dir: Path) -> dict[Key, dict[str, Any]]:
    rows: dict[Key, dict[str, Any]] = {}
    for line in (run_dir / "records.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        target = f"{row['target']['endpoint']}:{row['target']['model']}"
        key = (target, row["case_id"], row["repeat"], row["mode"])
        assert key not in rows
        rows[key] = row
    return rows


def _report(run_dir: Path) -> dict[tuple[str, str], dict[str, Any]]:
    proc = fcbench_in_process("report", str(run_dir), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return {(t["target"], t["mode"]): t for t in json.loads(proc.stdout)["targets"]}


def _scored_as(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "verdict": row["verdict"],
        "key": normalised_outcome_key(row["outcome"], row["verdict"]),
        "anomalies": sorted(a["code"] for a in row["anomalies"]),
    }


def test_provider_faults_lower_coverage_never_a_model_metric(tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "targets": TARGETS,
                "repeats": 1,
                "modes": ["selection", "stream"],
                "max_retries": 0,  # every drawn fault reaches the record
                "timeoutMs": 20000,
                "concurrency": 16,
            }
        )
    )
    common = ["--config", str(config), "--sample", str(SAMPLE)]
    clean_proc = _start_run([*common, "--out", str(tmp_path / "clean")], tmp_path)
    faulty_proc = _start_run(
        [*common, "--out", str(tmp_path / "faulty"), "--mock-faults", FAULTS, "--min-coverage", "0"], tmp_path
    )
    clean_dir = _finish(clean_proc, tmp_path / "clean")
    faulty_dir = _finish(faulty_proc, tmp_path / "faulty")
    clean, faulty = _rows(clean_dir), _rows(faulty_dir)
    assert clean.keys() == faulty.keys()
    assert all(row["outcome"]["kind"] != "provider_error" for row in clean.values())

    # Record by record: a fault is not_scored coverage loss, everything else is scored as without faults.
    codes: Counter[tuple[str, str, str]] = Counter()
    scored: dict[tuple[str, str], int] = Counter()
    for key, row in faulty.items():
        target, _, _, mode = key
        assert row["attempts"] == 1
        if row["outcome"]["kind"] == "provider_error":
            assert row["outcome"]["code"] in FAULT_CODES, row["outcome"]
            assert row["verdict"]["decision"] == "not_scored" and not row["verdict"]["passed"]
            codes[(target, mode, row["outcome"]["code"])] += 1
        else:
            assert _scored_as(row) == _scored_as(clean[key]), key
            scored[(target, mode)] += 1
    for target in TARGETS:
        for mode in ("selection", "stream"):
            assert scored[(target, mode)] > 0
            assert codes[(target, mode, "bad_response")] > 0 and codes[(target, mode, "server")] > 0
    assert {code for _, _, code in codes} == FAULT_CODES

    # Metric by metric: the faulty run's model rates are the fault-free rates of the observations it scored.
    restricted = tmp_path / "restricted"
    shutil.copytree(clean_dir, restricted)
    kept = [
        json.dumps(clean[key], ensure_ascii=False)
        for key, row in faulty.items()
        if row["outcome"]["kind"] != "provider_error"
    ]
    (restricted / "records.jsonl").write_text("\n".join(kept) + "\n", encoding="utf-8")
    faulty_report, restricted_report, clean_report = (
        _report(faulty_dir),
        _report(restricted),
        _report(clean_dir),
    )
    assert faulty_report.keys() == restricted_report.keys() == clean_report.keys()
    for entry, metrics in faulty_report.items():
        for name in MODEL_RATES:
            assert metrics[name] == restricted_report[entry][name], (entry, name)
        assert metrics["coverage"]["n"] == scored[entry] < metrics["coverage"]["d"]
        assert clean_report[entry]["coverage"]["n"] == clean_report[entry]["coverage"]["d"]
