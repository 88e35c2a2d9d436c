"""Damaged lines of ``records.jsonl`` are counted in every report format, in ``show``, ``history`` and
``compare``, and fail the gate while the observations they held are missing; a resume observes those
again (the gate passes, the count is still shown) and drops a torn last line (then nothing is counted)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_run import fcbench

from fcbench.config import Gate
from fcbench.metrics import compute_metrics
from fcbench.report.gate import check_gate
from fcbench.store.records import RECORDS_FILE, iter_record_dicts, record_key

NOTE = "1 damaged record line skipped"
PLANNED = 4


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("damaged-lines")
    proc = fcbench(
        "run", "-t", "sim:sim-careful", "--repeats", "2", "--case", "types-01", "--case", "abstain-01",
        "--out", "runs", "--no-progress", cwd=root,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (found,) = list((root / "runs").iterdir())
    return found


def _copy(clean_run: Path, where: Path) -> Path:
    return Path(shutil.copytree(clean_run, where / "runs" / clean_run.name))


def _garble_second_line(run: Path) -> None:
    path = run / RECORDS_FILE
    lines = path.read_bytes().split(b"\n")
    lines[1] = lines[1][: len(lines[1]) // 2] + b" <- cut by a disk error"
    path.write_bytes(b"\n".join(lines))


@pytest.fixture(scope="module")
def damaged_run(clean_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = _copy(clean_run, tmp_path_factory.mktemp("damaged"))
    _garble_second_line(run)
    return run


@pytest.mark.parametrize("fmt", ["md", "github", "html", "junit", "json"])
def test_every_report_format_counts_the_damaged_line(damaged_run: Path, fmt: str) -> None:
    proc = fcbench("report", str(damaged_run), "-f", fmt)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    if fmt == "json":
        assert json.loads(out)["damaged_lines"] == 1
        return
    assert NOTE in out and "Traceback" not in proc.stderr
    if fmt in ("md", "github"):  # the observation it held is missing: the gate fails, saying why
        assert "**FAIL**" in out and "1 planned observation(s) not recorded" in out
    if fmt == "junit":
        assert 'type="damaged_lines"' in out and 'name="records.jsonl"' in out


def test_a_clean_run_reports_no_damage(clean_run: Path) -> None:
    proc = fcbench("report", str(clean_run))
    assert proc.returncode == 0 and "damaged" not in proc.stdout and "**PASS**" in proc.stdout
    assert json.loads(fcbench("report", str(clean_run), "-f", "json").stdout)["damaged_lines"] == 0


def test_show_history_and_compare_count_it(clean_run: Path, damaged_run: Path) -> None:
    shown = fcbench("show", str(damaged_run))
    assert shown.returncode == 0 and NOTE in shown.stdout, shown.stderr
    assert NOTE not in fcbench("show", str(clean_run)).stdout
    history = fcbench("history", str(damaged_run.parent), env={"COLUMNS": "200"})
    assert history.returncode == 0 and NOTE in " ".join(history.stdout.split()), history.stderr
    points = json.loads(fcbench("history", str(damaged_run.parent), "-f", "json").stdout)
    assert {p["damaged_lines"] for s in points["series"] for p in s["points"]} == {1}
    compared = fcbench("compare", str(clean_run), str(damaged_run))
    assert f"NEW: {NOTE}" in " ".join(compared.stdout.split()), compared.stdout + compared.stderr
    assert "BASE: " not in compared.stdout


def test_the_gate_fails_while_a_damaged_line_leaves_an_observation_missing(damaged_run: Path) -> None:
    metrics = compute_metrics(damaged_run)
    assert metrics.damaged_lines == 1
    coverage = [t.coverage for t in metrics.targets]
    assert [(c.n, c.d) for c in coverage] == [(PLANNED - 1, PLANNED)]
    lenient = Gate.model_validate({"min_coverage": 0.5})  # a shorter file alone passes this
    assert [str(f) for f in check_gate(metrics, lenient)] == [
        f"* [*]: {NOTE} (the observations they held are missing); 1 planned observation(s) not recorded"
    ]
    clean = metrics.model_copy(update={"damaged_lines": 0})
    assert check_gate(clean, lenient) == []


def test_a_resume_observes_it_again_and_the_gate_passes_with_the_count_shown(
    clean_run: Path, tmp_path: Path
) -> None:
    run = _copy(clean_run, tmp_path)
    _garble_second_line(run)
    resumed = fcbench("run", "--resume", str(run), "--no-progress")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"warning: {NOTE}" in " ".join(resumed.stdout.split())
    report = fcbench("report", str(run))
    assert "**PASS**" in report.stdout and NOTE in report.stdout
    keys = [record_key(r) for r in iter_record_dicts(run / RECORDS_FILE)]
    assert len(keys) == len(set(keys)) == PLANNED


def test_a_torn_last_line_counts_once_until_a_resume_drops_it(clean_run: Path, tmp_path: Path) -> None:
    run = _copy(clean_run, tmp_path)
    path = run / RECORDS_FILE
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) - 40])  # the last record cut by a kill: no newline
    assert json.loads(fcbench("report", str(run), "-f", "json").stdout)["damaged_lines"] == 1
    resumed = fcbench("run", "--resume", str(run), "--no-progress")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "damaged" not in resumed.stdout
    assert json.loads(fcbench("report", str(run), "-f", "json").stdout)["damaged_lines"] == 0
    keys = [record_key(r) for r in iter_record_dicts(path)]
    assert len(keys) == len(set(keys)) == PLANNED and path.read_bytes().endswith(b"\n")
