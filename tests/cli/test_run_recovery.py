"""``fcbench run --mode recovery`` end to end, in a subprocess, on the default (simulated) targets."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from fcbench.endpoints import DEFAULT_TARGETS
from fcbench.grading.verdict import RECOVERY_OUTCOMES
from fcbench.store.blobs import expand_blobs, load_blobs
from fcbench.suite.loader import BUILTIN_DIR, load_suite


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fcbench", "run", "--no-progress", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def read_run(out: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The manifest and the records of the only run under ``out``, raw exchanges expanded."""
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    manifest = json.loads((run_dir / "manifest.json").read_text())
    blobs = load_blobs(run_dir)
    records = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines() if line]
    for record in records:
        record["raw"] = expand_blobs(record["raw"], blobs)
    return manifest, records


def check_recovery_record(record: dict[str, Any]) -> None:
    assert record["mode"] == "recovery"
    recovery = record["verdict"]["recovery"]
    assert recovery["outcome"] in RECOVERY_OUTCOMES
    assert record["verdict"]["passed"] == (
        recovery["success"] and record["verdict"]["decision"] != "not_scored" and not recovery["failed_turns"]
    )
    assert recovery["turns"] == len(record["turns"]) == len(record["raw"]["exchanges"]) >= 1
    assert record["attempts"] >= recovery["turns"]
    assert all(exchange["request"]["body"] for exchange in record["raw"]["exchanges"])
    for turn in record["turns"]:
        calls = turn["outcome"].get("calls", [])
        if turn["results"]:
            assert [r["name"] for r in turn["results"]] == [c["name"] for c in calls]


def test_run_recovery_mode_on_builtin_suite(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    result = run_cli(
        "--suite", "refunds", "--mode", "recovery", "--repeats", "1", "--out", str(out), cwd=tmp_path
    )
    # the run completes; its gate fails on sim-eager's unasked refunds (unsafe writes, limit 0)
    assert result.returncode == 1 and "unsafe write call(s)" in result.stdout, result.stdout + result.stderr
    manifest, records = read_run(out)
    assert manifest["finished_at"] and manifest["modes"] == ["recovery"]
    assert len(records) == manifest["planned"] > 0
    assert {r["target"]["endpoint"] + ":" + r["target"]["model"] for r in records} == set(DEFAULT_TARGETS)
    scenarios = {c.id for c in load_suite("refunds").cases if c.recovery is not None}
    assert len(scenarios) >= 10
    assert {r["case_id"] for r in records} == scenarios
    for record in records:
        check_recovery_record(record)
    assert any(r["verdict"]["recovery"]["turns"] > 1 for r in records)


def test_run_recovery_on_a_suite_with_its_own_store(tmp_path: Path) -> None:
    """A user suite brings its own fake data (``store.json``) and recovery scenarios in ``cases.jsonl``."""
    suite = tmp_path / "mysuite"
    suite.mkdir()
    for name in ("suite.json", "system.txt", "tools.core.json"):
        shutil.copy(BUILTIN_DIR / "refunds" / name, suite / name)
    store = {
        "orders": [
            {
                "order_id": "ORD-900",
                "status": "paid",
                "paid": True,
                "total_cents": 1234,
                "email": "u@example.test",
            }
        ]
    }
    (suite / "store.json").write_text(json.dumps(store))
    case = {
        "id": "own-store-01",
        "prompt": "What's the status of ORD-900?",
        "expected": {"kind": "tool", "name": "query_order", "arguments": {"order_id": "ORD-900"}},
        "recovery": {"success": "final_answer", "answer_mentions": ["paid"], "max_turns": 3},
    }
    (suite / "cases.jsonl").write_text(json.dumps(case) + "\n")
    out = tmp_path / "runs"
    result = run_cli(
        "--suite",
        str(suite),
        "--mode",
        "recovery",
        "--repeats",
        "1",
        "--target",
        "sim:sim-careful",
        "--out",
        str(out),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    _, records = read_run(out)
    (record,) = records
    check_recovery_record(record)
    results = [r for turn in record["turns"] for r in turn["results"]]
    assert results and results[0]["content"]["result"]["orders"][0]["total"] == 12.34
    assert record["verdict"]["recovery"]["success"] is True
