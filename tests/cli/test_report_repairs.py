"""``report`` and ``compare`` with the ``repairs`` profile, on real runs of the embedded mock.

``sim-sloppy`` writes numbers as strings and adds parameters the schemas do not allow; the
``repairs`` profile repairs them, counts each repair per target, and lists every one.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from cli_run import fcbench

from fcbench.suite.loader import load_suite

CLI = [sys.executable, "-m", "fcbench"]
SCORED = 2 * sum(1 for case in load_suite("core").cases if case.recovery is None)
"""Observations of a two-repeat selection run of the core suite."""


def run(target: str, out: Path, cwd: Path) -> Path:
    args = ["run", "--no-progress", "--out", str(out), "-t", target, "--mode", "selection", "--repeats", "2"]
    proc = fcbench(*args, "--min-coverage", "0", cwd=cwd)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr  # 1: the run's own pass-rate gate
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return run_dir


def test_repairs_are_counted_per_target_and_listed_per_observation(tmp_path: Path) -> None:
    run_dir = run("sim:sim-sloppy", tmp_path / "sloppy", tmp_path)
    recorded = (run_dir / "records.jsonl").read_text(encoding="utf-8")
    assert '"repairs"' not in recorded  # records hold strict verdicts, serialised as they always were

    proc = fcbench("report", str(run_dir), "--profile", "strict,repairs", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    (strict,) = data["profiles"]["strict"]["targets"]
    (repaired,) = data["profiles"]["repairs"]["targets"]
    assert strict["repairs"] == {} and strict["repaired"] is None
    assert strict["pass_rate"]["d"] == repaired["pass_rate"]["d"] == SCORED
    assert repaired["pass_rate"]["n"] >= strict["pass_rate"]["n"]
    assert repaired["pass_rate"]["n"] > strict["pass_rate"]["n"]  # sloppy writing is what repairs fix

    rows: list[dict[str, Any]] = data["repairs"]
    assert rows and {row["target"] for row in rows} == {"sim:sim-sloppy"}
    assert {row["profile"] for row in rows} == {"repairs"} and {row["mode"] for row in rows} == {"selection"}
    assert repaired["repairs"] == dict(Counter(row["kind"] for row in rows))
    assert {"numeric_string", "unknown_key_dropped"} <= set(repaired["repairs"])
    observations = {(row["case_id"], row["repeat"], row["mode"]) for row in rows}
    assert repaired["repaired"]["n"] == len(observations)
    # calls read from text are graded calls: they join the schema-validity denominator
    from_text = {(r["case_id"], r["repeat"], r["mode"]) for r in rows if r["kind"] == "call_from_text"}
    assert repaired["schema_valid"]["d"] == strict["schema_valid"]["d"] + len(from_text)
    assert repaired["repaired"]["d"] == repaired["scorable"] == SCORED
    for row in rows:
        assert set(row) == {"seq", "profile", "target", "case_id", "repeat", "mode"} | {
            "kind",
            "call",
            "tool",
            "path",
            "before",
            "after",
        }
        if row["kind"] == "numeric_string":
            assert isinstance(row["before"], str) and json.loads(row["before"]) == row["after"]
        if row["kind"] == "unknown_key_dropped":
            assert row["after"] is None and row["path"]

    # every observation the repairs profile forgives was repaired, and none it fails passed strict
    assert data["disagreements"]
    for row in data["disagreements"]:
        assert row["passed"] == {"strict": False, "repairs": True}
        assert (row["case_id"], row["repeat"], row["mode"]) in observations
        assert row["verdicts"]["repairs"]["repairs"] and "repairs" not in row["verdicts"]["strict"]

    markdown = fcbench("report", str(run_dir), "--profile", "strict,repairs", cwd=tmp_path)
    assert markdown.returncode == 0, markdown.stderr
    text = markdown.stdout
    assert "# Scoring profile: repairs" in text and "## Repairs" in text
    assert f"# Repairs under repairs ({len(rows)} repairs in {len(observations)} observations)" in text
    strict_part = text.split("# Scoring profile: repairs")[0]
    assert "## Repairs" not in strict_part  # strict repairs nothing, so it has no repairs section
    summary = text.split("## Repairs\n", 1)[1].split("\n## ", 1)[0]
    count = repaired["repaired"]["n"]
    assert f"| sim:sim-sloppy | selection | {100 * count / SCORED:.1f}% ({count}/{SCORED})" in summary

    single = fcbench("report", str(run_dir), "--profile", "repairs", cwd=tmp_path)
    assert single.returncode == 0, single.stderr
    assert "## Repairs" in single.stdout and "# Repairs under repairs" in single.stdout
    metrics = json.loads(
        fcbench("report", str(run_dir), "--profile", "repairs", "--format", "json", cwd=tmp_path).stdout
    )
    assert metrics["targets"][0]["repairs"] == repaired["repairs"]
    csv_text = fcbench("report", str(run_dir), "--profile", "repairs", "--format", "csv", cwd=tmp_path).stdout
    assert f",selection,repaired,,{count},{SCORED}," in csv_text
    for kind, n in repaired["repairs"].items():
        assert f",selection,repairs,{kind},,,{n}\n" in csv_text


def test_compare_gates_under_the_repairs_profile(tmp_path: Path) -> None:
    sloppy = run("sim:sim-sloppy", tmp_path / "sloppy", tmp_path)
    careful = run("sim:sim-careful", tmp_path / "careful", tmp_path)
    same = fcbench("compare", str(sloppy), str(sloppy), "--profile", "repairs", cwd=tmp_path)
    assert same.returncode == 0, same.stdout + same.stderr
    args = ["compare", str(careful), str(sloppy), "--profile", "repairs", "--format", "json"]
    worse = fcbench(*args, "--pair", "sim:sim-careful=sim:sim-sloppy", cwd=tmp_path)
    assert worse.returncode == 1, worse.stdout + worse.stderr
    assert json.loads(worse.stdout)["regression"] is True
    unknown = fcbench("compare", str(sloppy), str(sloppy), "--profile", "repair", cwd=tmp_path)
    assert unknown.returncode == 2 and "repairs" in unknown.stderr and "Traceback" not in unknown.stderr
