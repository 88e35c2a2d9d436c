"""One writer per run directory: a second process is refused at once, and the lock dies with its holder."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from fcbench.errors import RunStateError
from fcbench.store.lock import LOCK_FILE, run_dir_lock

HOLD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from fcbench.store.lock import run_dir_lock
    with run_dir_lock(Path(sys.argv[1])):
        print("locked", flush=True)
        time.sleep(float(sys.argv[2]))
    """
)


def hold(run_dir: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(run_dir), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_a_second_process_is_refused_while_the_first_holds_the_run(tmp_path: Path) -> None:
    holder = hold(tmp_path, 30)
    try:
        busy = rf"in use by another fcbench process \(pid {holder.pid}\)"
        with pytest.raises(RunStateError, match=busy), run_dir_lock(tmp_path):
            pass
    finally:
        holder.kill()
        holder.wait()
    with run_dir_lock(tmp_path):  # a killed holder leaves no stale lock
        assert (tmp_path / LOCK_FILE).read_text().strip() == f"pid {os.getpid()}"


def test_two_concurrent_resumes_never_record_an_observation_twice(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "fcbench", "run", "--no-progress", "--repeats", "2", "--category", "normal"]
    start = subprocess.run(
        [*run, "--sample", "6", "-t", "sim:sim-careful", "--out", str(tmp_path / "runs")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert start.returncode == 0, start.stderr
    (run_dir,) = list((tmp_path / "runs").iterdir())
    records = run_dir / "records.jsonl"
    planned = len(records.read_text().splitlines())
    assert planned >= 10
    records.write_text("")  # as if killed before anything was written: both resumes have everything to do
    (run_dir / LOCK_FILE).unlink()
    resume = [sys.executable, "-m", "fcbench", "run", "--resume", str(run_dir), "--no-progress"]
    # Every request of the first resume waits a while at the mock, so it is still running when it is
    # paused (SIGSTOP) right after taking the lock; it holds the lock, paused, however long the second
    # resume takes to start on a busy machine, and finishes its work once continued.
    one = subprocess.Popen(
        [*resume, "--mock-latency-ms", "1500"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while (
            not (run_dir / LOCK_FILE).is_file() or f"pid {one.pid}" not in (run_dir / LOCK_FILE).read_text()
        ):
            assert time.monotonic() < deadline and one.poll() is None, "the first resume never took the lock"
            time.sleep(0.02)
        one.send_signal(signal.SIGSTOP)
        assert one.poll() is None, "the first resume ended before the second started"
        two = subprocess.run(resume, capture_output=True, text=True, timeout=300)
    finally:
        one.send_signal(signal.SIGCONT)
    _, err = one.communicate(timeout=300)
    assert one.returncode == 0, err
    assert two.returncode == 2, two.stdout + two.stderr
    assert f"in use by another fcbench process (pid {one.pid})" in two.stderr
    keys = [(r["case_id"], r["repeat"], r["mode"]) for r in map(json.loads, records.read_text().splitlines())]
    assert len(keys) == len(set(keys)) == planned
