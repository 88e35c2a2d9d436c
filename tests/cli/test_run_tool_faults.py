"""``fcbench run --tool-fault duplicate_delivery``: every tool call reaches the fakes twice."""

from __future__ import annotations

import json
from pathlib import Path

from cli_run import fcbench


def test_duplicate_delivery_from_the_command_line(tmp_path: Path) -> None:
    assert fcbench("init", "helpdesk", cwd=tmp_path).returncode == 0
    args = ["run", "--config", "helpdesk/fcbench.yaml", "--mode", "recovery", "--repeats", "1"]
    run = fcbench(*args, "--tool-fault", "duplicate_delivery", "--out", "runs", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    (run_dir,) = list((tmp_path / "runs").iterdir())
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["tool_faults"] == ["duplicate_delivery"]
    records = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    assert records and all(r["mode"] == "recovery" for r in records)
    for record in records:
        results = [result for turn in record["turns"] for result in turn["results"]]
        assert results and all(len(result["deliveries"]) == 2 for result in results), results


def test_an_unknown_tool_fault_names_the_key(tmp_path: Path) -> None:
    run = fcbench("run", "--tool-fault", "lost_delivery", "--dry-run", cwd=tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "tool_faults" in run.stderr and "Traceback" not in run.stderr
