"""Pending cases are left out of scoring unless ``--include-pending`` ("pending, not scored: N",
pinned in the manifest); the embedded mock's faults are pinned in the manifest and ``compare``
names a difference (real subprocesses, the embedded mock provider over HTTP)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_run import fcbench

from fcbench.logs.cases import import_logs

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, subprocess.CompletedProcess[str] | Path]:
    """A log-imported suite of 4 cases (1 confirmed, 3 pending), run once as it is and once with
    ``--include-pending`` and injected mock faults."""
    root = tmp_path_factory.mktemp("pending")
    suite = root / "imported"
    import_logs([LOGS / "openai-chat.constructed.jsonl"], "openai-chat", suite)
    lines = (suite / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    lines[0] = json.dumps({**first, "label": "confirmed"})
    (suite / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["run", "--suite", str(suite), "-t", "sim:sim-careful", "--repeats", "1", "--no-progress"]
    plain = fcbench(*args, "--out", "plain", cwd=root)
    every = fcbench(*args, "--include-pending", "--mock-faults", "rate_limit:0.5", "--out", "every", cwd=root)
    return {"root": root, "suite": suite, "plain": plain, "every": every}


def manifest(root: Path, out: str) -> dict[str, object]:
    (run_dir,) = (root / out).iterdir()
    return json.loads((run_dir / "manifest.json").read_text())


def test_pending_cases_are_left_out_and_counted(runs: dict[str, object]) -> None:
    plain = runs["plain"]
    assert isinstance(plain, subprocess.CompletedProcess) and isinstance(runs["root"], Path)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "pending, not scored: 3" in plain.stdout
    assert "1 planned" in plain.stdout
    pinned = manifest(runs["root"], "plain")
    assert pinned["planned"] == 1
    assert pinned["filters"]["include_pending"] is False  # type: ignore[index]
    assert pinned["filters"]["pending_not_scored"] == 3  # type: ignore[index]


def test_include_pending_scores_them_and_pins_the_mock_faults(runs: dict[str, object]) -> None:
    every = runs["every"]
    assert isinstance(every, subprocess.CompletedProcess) and isinstance(runs["root"], Path)
    assert "pending, not scored" not in every.stdout
    pinned = manifest(runs["root"], "every")
    assert pinned["planned"] == 4
    assert pinned["filters"]["include_pending"] is True  # type: ignore[index]
    (target,) = pinned["targets"]  # type: ignore[misc]
    assert target["service"]["faults"] == "rate_limit:0.5"
    (plain_target,) = manifest(runs["root"], "plain")["targets"]  # type: ignore[misc]
    assert plain_target["service"]["faults"] == "none"


def test_compare_names_the_mock_faults_and_pending_differences(runs: dict[str, object]) -> None:
    root = runs["root"]
    assert isinstance(root, Path)
    (base,), (new,) = (root / "plain").iterdir(), (root / "every").iterdir()
    proc = fcbench("compare", str(base), str(new), "--format", "json")
    warnings = json.loads(proc.stdout)["warnings"]
    assert "sim:sim-careful: mock faults differ (BASE none, NEW rate_limit:0.5)" in warnings
    assert "only NEW scored the suite's pending cases (--include-pending)" in warnings
    same = json.loads(fcbench("compare", str(base), str(base), "--format", "json").stdout)
    assert not [w for w in same["warnings"] if "differ" in w or "pending" in w]


def test_a_suite_of_only_pending_cases_is_an_error_naming_the_option(runs: dict[str, object]) -> None:
    root, suite = runs["root"], runs["suite"]
    assert isinstance(root, Path) and isinstance(suite, Path)
    proc = fcbench("run", "--suite", str(suite), "--case", "log-0002", "--dry-run", cwd=root)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "--include-pending" in proc.stderr and "every selected case is pending (1" in proc.stderr
    assert "Traceback" not in proc.stderr
    fine = fcbench(
        "run", "--suite", str(suite), "--case", "log-0002", "--dry-run", "--include-pending", cwd=root
    )
    assert fine.returncode == 0, fine.stderr
