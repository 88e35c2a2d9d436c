"""Damaged run-directory files get a clear error naming the file, or are skipped and re-observed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fcbench.store.records import RECORDS_FILE, is_record, iter_record_dicts

CASES = ["--case", "types-01", "--case", "abstain-01"]


def fcbench(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fcbench", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    proc = fcbench(
        "run",
        "-t",
        "sim:sim-careful",
        "--repeats",
        "2",
        *CASES,
        "--out",
        "runs",
        "--no-progress",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    (found,) = list((tmp_path / "runs").iterdir())
    return found


@pytest.mark.parametrize("line", ["{}", "[1, 2]", '"text"', "null", "repeat-as-text"])
def test_a_line_that_is_not_a_record_is_named_by_resume_and_report(run_dir: Path, line: str) -> None:
    records = run_dir / RECORDS_FILE
    kept = records.read_text().splitlines()
    if line == "repeat-as-text":
        broken = json.loads(kept[0])
        broken["repeat"] = str(broken["repeat"])
        line = json.dumps(broken)
    records.write_text("\n".join([kept[0], line, *kept[1:]]) + "\n")
    assert not is_record(list(iter_record_dicts(records))[1])
    for args in (["run", "--resume", str(run_dir)], ["report", str(run_dir)]):
        proc = fcbench(*args, cwd=run_dir)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "records.jsonl" in proc.stderr and "record 2 is not a valid record" in proc.stderr
        assert "Traceback" not in proc.stderr and "None:None" not in proc.stdout
    records.write_text("\n".join(kept) + "\n")  # the line removed, the run resumes and reports
    assert fcbench("run", "--resume", str(run_dir), "--no-progress", cwd=run_dir).returncode == 0


def test_a_cut_config_and_a_non_utf8_manifest_name_the_file(run_dir: Path) -> None:
    config = run_dir / "config.json"
    config.write_text(config.read_text()[:40])
    proc = fcbench("run", "--resume", str(run_dir), cwd=run_dir)
    assert proc.returncode == 2 and "config.json: damaged" in proc.stderr and "Traceback" not in proc.stderr
    (run_dir / "manifest.json").write_bytes(b"\xff\xfe{}")
    proc = fcbench("report", str(run_dir), cwd=run_dir)
    assert (
        proc.returncode == 2 and "manifest.json: not UTF-8" in proc.stderr and "Traceback" not in proc.stderr
    )


def test_os_errors_exit_2_with_the_path(tmp_path: Path, run_dir: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    proc = fcbench("run", "-t", "sim:sim-careful", *CASES, "--out", str(blocker), cwd=tmp_path)
    assert proc.returncode == 2 and str(blocker) in proc.stderr and "Traceback" not in proc.stderr
    proc = fcbench("report", str(run_dir), "-o", str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 2 and "Is a directory" in proc.stderr and "Traceback" not in proc.stderr


def test_a_reference_loop_in_a_tool_schema_is_a_clear_error(core_copy) -> None:  # type: ignore[no-untyped-def]
    tools = core_copy.tools()
    parameters = tools["tools"][0]["parameters"]
    parameters["$defs"] = {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"$ref": "#/$defs/a"}}
    first = next(iter(parameters["properties"]))
    parameters["properties"][first] = {"$ref": "#/$defs/a"}
    core_copy.write_tools(tools)
    proc = fcbench("cases", "validate", str(core_copy.path), cwd=core_copy.path)
    assert proc.returncode == 2, proc.stderr
    assert "a reference loop that never ends" in proc.stderr and "Traceback" not in proc.stderr
