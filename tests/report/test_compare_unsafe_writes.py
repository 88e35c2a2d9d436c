"""``fcbench compare`` fails when NEW makes an unsafe write call (a write tool its case did not
expect) that BASE did not make, naming the call, the case and the target, whatever the pass rate."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from records_builder import RunBuilder, call_outcome, verdict

TARGET = ("openai", "gpt-4o")


def write_run(run_dir: Path, writes: dict[str, str]) -> Path:
    """Cases a, b and c passing on one target; ``writes``: case id -> the write tool it called unasked."""
    b = RunBuilder(run_dir, run_id=run_dir.name, targets=[TARGET], repeats=1)
    for case_id in ("case-a", "case-b", "case-c"):
        v = verdict()
        if case_id in writes:
            v["unexpected_writes"] = [writes[case_id]]
        b.add(case_id, call_outcome(("lookup_order", {"order_id": "1"})), v, target=TARGET)
    b.write()
    return run_dir


def compare(base: Path, new: Path, fmt: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fcbench", "compare", str(base), str(new), "--format", fmt],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_new_unsafe_write_fails_the_comparison_naming_call_case_and_target(tmp_path: Path) -> None:
    base = write_run(tmp_path / "base", {"case-a": "create_refund"})
    new = write_run(tmp_path / "new", {"case-a": "create_refund", "case-b": "cancel_order"})
    proc = compare(base, new, "json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (failure,) = json.loads(proc.stdout)["failures"]
    assert failure == (
        "openai:gpt-4o [selection]: 1 unsafe write call(s) BASE did not make: "
        "cancel_order in case case-b (repeat 1)"
    )
    github = compare(base, new, "github").stdout
    assert github.startswith("**FAIL**") and "cancel\\_order in case case-b" in github


def test_the_unsafe_writes_base_already_made_are_not_a_regression(tmp_path: Path) -> None:
    base = write_run(tmp_path / "base", {"case-a": "create_refund"})
    same = write_run(tmp_path / "same", {"case-a": "create_refund"})
    proc = compare(base, same, "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["failures"] == []
