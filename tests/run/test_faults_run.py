"""A run against a faulty mock: each observation recorded once, faults are coverage loss, retries counted."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import yaml

from fcbench.store.blobs import expand_blobs, load_blobs

ERROR_CODES = {"rate_limited", "server", "overloaded", "timeout", "bad_response"}


def test_fault_storm_is_recorded_classified_and_retried(tmp_path: Path) -> None:
    config = {
        "targets": [
            "sim:sim-careful",
            "sim-responses:sim-careful",
            "sim-anthropic:sim-careful",
            "sim-gemini:sim-careful",
        ],
        "repeats": 2,
        "modes": ["selection", "stream"],
        "tags": ["selection"],
        "timeoutMs": 1500,
        "concurrency": 24,
        "max_retries": 2,
    }
    path = tmp_path / "faulty.yaml"
    path.write_text(yaml.safe_dump(config))
    faults = (
        "rate_limit:0.25,server_error:0.1,overload:0.05,timeout:0.03,stream_cut:0.08,malformed_json:0.05,"
        "seed=11,retry_after=0,hang_s=4"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "fcbench",
            "run",
            "--no-progress",
            "--config",
            str(path),
            "--mock-faults",
            faults,
            "--min-coverage",
            "0",  # this run loses observations on purpose; the coverage gate has its own tests
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    run_dir = next((tmp_path / "runs").iterdir())
    manifest = json.loads((run_dir / "manifest.json").read_text())
    blobs = load_blobs(run_dir)
    rows = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    for row in rows:
        row["raw"] = expand_blobs(row["raw"], blobs)
    keys = Counter((r["target"]["endpoint"], r["case_id"], r["repeat"], r["mode"]) for r in rows)
    assert len(keys) == manifest["planned"] == len(rows)
    assert manifest["finished_at"]

    errors = [r for r in rows if r["outcome"]["kind"] == "provider_error"]
    assert {r["outcome"]["code"] for r in errors} <= ERROR_CODES
    # Provider errors are coverage loss, never model failures.
    assert all(r["verdict"]["decision"] == "not_scored" for r in errors)
    # Retries happened, were counted per observation, and stayed within the per-request cap.
    attempts = [r["attempts"] for r in rows]
    assert max(attempts) <= 1 + config["max_retries"]
    assert sum(a - 1 for a in attempts) > 0
    retried = [r for r in rows if r["attempts"] > 1]
    assert all(len(r["raw"]["attempts"]) == r["attempts"] for r in retried)
    # Most observations recover through retries; some faults outlast the budget and stay recorded as errors.
    assert len(errors) < len(rows) / 2
    assert any(r["attempts"] > 1 and r["outcome"]["kind"] != "provider_error" for r in rows)
