"""``fcbench run --judge TARGET`` from the command line: the summary gives the judge's agreement
and its disagreements; a judge that names no endpoint is a usage error."""

from __future__ import annotations

import json
from pathlib import Path

from cli_run import fcbench


def test_the_summary_gives_the_judges_agreement(tmp_path: Path) -> None:
    cases = ["--case", "clarify-01", "--case", "abstain-04", "--case", "abstain-01"]
    args = ["run", "-t", "sim:sim-careful", "--judge", "sim-gemini:sim-careful", "--repeats", "1", *cases]
    run = fcbench(*args, "--out", "runs", "--no-progress", "--min-coverage", "0", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "judge sim-gemini:sim-careful, rubric fcbench-judge-1" in run.stdout
    assert "judge agreement sim:sim-careful [selection]: 66.7% (2/3) (judged 3, judge failed 0;" in run.stdout
    disagreement = "disagrees sim:sim-careful [selection] abstain-04 #0: correct_abstention vs asks_again"
    assert disagreement in run.stdout
    (run_dir,) = list((tmp_path / "runs").iterdir())
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["judge"]["target"]["dialect"] == "gemini"
    config = json.loads((run_dir / "config.json").read_text(encoding="utf-8"))
    assert config["judge"] == "sim-gemini:sim-careful"


def test_a_judge_on_no_endpoint_is_a_usage_error(tmp_path: Path) -> None:
    run = fcbench("run", "--judge", "nowhere:some-model", "--dry-run", cwd=tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "judge" in run.stderr and "nowhere" in run.stderr and "Traceback" not in run.stderr
