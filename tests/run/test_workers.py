"""``fcbench run --workers N``: several processes share one run directory and leave the records and
metrics one process leaves, also when the run is killed and resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_run import fcbench, keyless_env
from run_equivalence import comparable_metrics, comparable_records, only_run_in

from fcbench.config import RunConfig
from fcbench.run import prepare
from fcbench.run.plan import Plan, Shard
from fcbench.run.workers import share, worker_count, worker_shard

PLAN = [
    "--repeats",
    "1",
    "--target",
    "sim:sim-careful",
    "--target",
    "sim-gemini:sim-flaky",
    "--category",
    "boundary",
    "--mode",
    "forced",
    "--mode",
    "recovery",
]
"""Two dialects, a single and a multi-turn mode: 116 observations, each sending requests no other
sends. The mock varies its answer to the n-th identical request (a repeat, or a recovery turn
equal to a selection request), counting from 0 again when it restarts (a resume) and in whatever
order requests arrive, so only a plan whose requests are all distinct has one right answer per
observation whatever the processes and their order."""


def run_cli(out: Path, *extra: str) -> Path:
    proc = fcbench("run", *PLAN, "--no-progress", "--out", str(out), *extra)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return only_run_in(out)


@pytest.fixture(scope="module")
def one_process(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plan run by one process: the reference."""
    return run_cli(tmp_path_factory.mktemp("one"), "--workers", "1")


def test_two_runs_of_one_process_differ_only_in_what_is_set_aside(one_process: Path, tmp_path: Path) -> None:
    again = run_cli(tmp_path / "again", "--workers", "1")
    assert comparable_records(again) == comparable_records(one_process)
    raw = {json.loads(line)["started_at"] for line in (again / "records.jsonl").read_text().splitlines()}
    assert raw.isdisjoint(json.loads(line)["started_at"] for line in (one_process / "records.jsonl").open())


def worker_streams(out: Path) -> list[Path]:
    return [path for run in out.glob("*") for path in sorted((run / "workers").glob("*/records.jsonl"))]


def test_two_workers_leave_the_records_and_metrics_of_one_process(one_process: Path, tmp_path: Path) -> None:
    out = tmp_path / "two"
    command = [sys.executable, "-m", "fcbench", "run", *PLAN, "--out", str(out)]
    proc = subprocess.Popen(
        [*command, "--workers", "2", "--mock-latency-ms", "20"],
        env=keyless_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen: set[str] = set()
    while proc.poll() is None:  # both workers' streams exist while they run
        seen.update(path.parent.name for path in worker_streams(out))
        time.sleep(0.02)
    stdout, stderr = proc.communicate()
    assert proc.returncode == 0, stdout + stderr
    assert seen == {"1", "2"}
    two = only_run_in(out)
    assert not (two / "workers").exists()  # folded into the run's records
    assert comparable_records(two) == comparable_records(one_process)
    assert comparable_metrics(two) == comparable_metrics(one_process)
    assert "116 recorded now, 0 already recorded, 116 planned" in stdout
    assert "progress: done, 116/116 observations" in stderr  # the workers' progress, drawn by the parent
    assert json.loads((two / "manifest.json").read_text())["finished_at"]


def recorded_lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def slow_two_worker_run(out: Path, *, own_group: bool) -> subprocess.Popen[str]:
    """A two-worker run slow enough to be stopped midway, returned once each worker has recorded
    some observations (``own_group``: in a process group of its own, to be killed whole)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "fcbench", "run", *PLAN, "--no-progress", "--out", str(out), "--workers", "2"]
        + ["--mock-latency-ms", "100", "--concurrency", "4"],
        env=keyless_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=own_group,
    )
    deadline = time.monotonic() + 120
    while len(worker_streams(out)) < 2 or not all(recorded_lines(p) >= 8 for p in worker_streams(out)):
        assert proc.poll() is None and time.monotonic() < deadline, "the run ended before it could be stopped"
        time.sleep(0.05)
    return proc


def test_a_killed_two_worker_run_resumes_without_duplicates_or_loss(
    one_process: Path, tmp_path: Path
) -> None:
    out = tmp_path / "killed"
    proc = slow_two_worker_run(out, own_group=True)  # the parent, its workers and the mock
    os.killpg(proc.pid, signal.SIGKILL)  # a crash: nobody gets to write anything more
    proc.communicate()
    killed = only_run_in(out)
    in_streams = sum(recorded_lines(p) for p in worker_streams(out))
    assert in_streams >= 16 and recorded_lines(killed / "records.jsonl") == 0

    resumed = fcbench("run", "--resume", str(killed), "--no-progress", "--workers", "2")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{116 - in_streams} recorded now, {in_streams} already recorded, 116 planned" in resumed.stdout
    assert comparable_records(killed) == comparable_records(one_process)  # each seq once, none missing
    assert comparable_metrics(killed) == comparable_metrics(one_process)
    assert not (killed / "workers").exists()


def test_the_slices_of_the_workers_cover_a_shard_exactly_once() -> None:
    spec = prepare(RunConfig(repeats=3), out_root=Path("unused"), check_keys=False)
    cases = spec.suite.cases[:40]
    whole = Plan(spec.targets, cases, 3, ["selection", "recovery"], shard=Shard(2, 3))
    owned = [p.seq for p in whole]
    slices = [
        [
            p.seq
            for p in Plan(
                spec.targets, cases, 3, ["selection", "recovery"], shard=worker_shard(whole.shard, w, 4)
            )
        ]
        for w in range(1, 5)
    ]
    assert sorted(seq for part in slices for seq in part) == owned
    assert all(part for part in slices)
    assert [share(10, w, 4) for w in range(1, 5)] == [3, 3, 2, 2]


def test_the_worker_count_is_bounded_by_the_plan_and_the_concurrency() -> None:
    spec = prepare(RunConfig(concurrency=3), out_root=Path("unused"), check_keys=False)
    assert worker_count(8, spec, 1000) == 3
    assert worker_count(8, spec, 2) == 2
    assert worker_count("auto", spec, 10) == 1  # too little work for a second process
    assert worker_count(1, spec, 1000) == 1


def test_a_bad_worker_count_is_a_config_error_naming_the_flag(tmp_path: Path) -> None:
    proc = fcbench("run", "--workers", "two", "--dry-run", cwd=tmp_path)
    assert proc.returncode == 2 and "--workers" in proc.stderr and "Traceback" not in proc.stderr


def test_sigterm_stops_the_workers_orderly_and_keeps_what_they_recorded(
    one_process: Path, tmp_path: Path
) -> None:
    out = tmp_path / "stopped"
    proc = slow_two_worker_run(out, own_group=False)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 143, stdout + stderr
    stopped = only_run_in(out)
    kept = recorded_lines(stopped / "records.jsonl")
    assert not (stopped / "workers").exists() and 8 <= kept < 116  # folded on the way out
    assert f"stopped: {kept} of 116 recorded" in stderr and "Traceback" not in stderr

    resumed = fcbench("run", "--resume", str(stopped), "--no-progress", "--workers", "1")  # one process
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{116 - kept} recorded now, {kept} already recorded" in resumed.stdout
    assert comparable_records(stopped) == comparable_records(one_process)


def test_a_worker_that_cannot_go_on_fails_the_run_and_keeps_what_the_others_recorded(tmp_path: Path) -> None:
    small = ["--repeats", "1", "--target", "sim:sim-careful", "--category", "boundary", "--mode", "forced"]
    made = fcbench("run", *small, "--no-progress", "--out", str(tmp_path))
    assert made.returncode in (0, 1), made.stderr
    run_dir = only_run_in(tmp_path)
    records = run_dir / "records.jsonl"
    lines = records.read_text(encoding="utf-8").splitlines(keepends=True)
    records.write_text("".join(lines[:10]), encoding="utf-8")  # a stopped run
    (run_dir / "workers").mkdir()
    (run_dir / "workers" / "2").symlink_to(tmp_path)  # where worker 2's stream belongs

    resumed = fcbench("run", "--resume", str(run_dir), "--no-progress", "--workers", "2")
    assert resumed.returncode == 2 and "Traceback" not in resumed.stderr
    assert (
        "worker 2: RunStateError" in resumed.stderr
        and "a link where a worker stream belongs" in resumed.stderr
    )
    kept = records.read_text(encoding="utf-8").splitlines()
    assert 10 < len(kept) < len(lines)  # worker 1's slice is in the run; worker 2's is not
    assert len({json.loads(line)["seq"] for line in kept}) == len(kept)
