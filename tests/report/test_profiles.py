"""``report`` and ``compare`` re-score a run with another profile (BFCL's leniency, side by side).

The import and the run are real subprocesses; the reports and the comparison go through the entry
point in-process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cli_inprocess import fcbench_in_process

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bfcl"
CLI = [sys.executable, "-m", "fcbench"]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=240)


def test_bfcl_profile_forgives_what_strict_does_not(tmp_path: Path) -> None:
    imported = _cli(
        "import", "bfcl", str(FIXTURES / "BFCL_v4_simple_python.json"), "--out", "suite", cwd=tmp_path
    )
    assert imported.returncode == 0, imported.stderr
    run = _cli(
        "run",
        "--no-progress",
        "--suite",
        "suite",
        "--repeats",
        "1",
        "--target",
        "sim-anthropic:sim-sloppy",
        "--case",
        "simple_python_193",
        "--case",
        "simple_python_369",
        "--case",
        "simple_python_0",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    run_dir = next((tmp_path / "runs").iterdir())

    both = fcbench_in_process(
        "report", str(run_dir), "--profile", "strict,bfcl", "--format", "json", cwd=tmp_path
    )
    assert both.returncode == 0, both.stderr
    data = json.loads(both.stdout)
    strict = data["profiles"]["strict"]["targets"][0]["pass_rate"]
    bfcl = data["profiles"]["bfcl"]["targets"][0]["pass_rate"]
    assert strict["d"] == bfcl["d"] == 3
    assert bfcl["n"] > strict["n"]
    forgiven = {row["case_id"] for row in data["disagreements"]}
    assert forgiven and forgiven <= {"simple_python_193", "simple_python_369"}
    assert all(row["passed"] == {"strict": False, "bfcl": True} for row in data["disagreements"])

    markdown = fcbench_in_process("report", str(run_dir), "--profile", "strict,bfcl", cwd=tmp_path)
    assert "# Scoring profile: bfcl" in markdown.stdout and "disagree" in markdown.stdout

    gate = fcbench_in_process("compare", str(run_dir), str(run_dir), "--profile", "bfcl", cwd=tmp_path)
    assert gate.returncode == 0, gate.stdout + gate.stderr

    bad = fcbench_in_process(
        "report", str(run_dir), "--profile", "strict,bfcl", "--format", "junit", cwd=tmp_path
    )
    assert bad.returncode == 2 and "--profile" in bad.stderr
    unknown = fcbench_in_process("report", str(run_dir), "--profile", "lenient", cwd=tmp_path)
    assert unknown.returncode == 2 and "lenient" in unknown.stderr and "Traceback" not in unknown.stderr
