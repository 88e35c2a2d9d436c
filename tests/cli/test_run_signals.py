"""SIGTERM stops a run like Ctrl-C: finished observations kept, a resume command, exit 128 + signal."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fcbench.endpoints import DEFAULT_TARGETS
from fcbench.suite.loader import load_suite

IGNORING_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "os.execv(sys.executable, [sys.executable, '-m', 'fcbench', *sys.argv[1:]])"
)
"""Runs ``fcbench ARGS`` with SIGINT ignored (it stays ignored across ``exec``)."""


def default_run_size() -> int:
    """Observations of one repeat of the default run: core's single-turn cases on every default target."""
    return sum(1 for case in load_suite("core").cases if case.recovery is None) * len(DEFAULT_TARGETS)


@pytest.mark.parametrize(
    ("sig", "code", "name"), [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "SIGINT")]
)
def test_a_signal_keeps_every_finished_observation_and_says_how_to_resume(
    tmp_path: Path, sig: signal.Signals, code: int, name: str
) -> None:
    check_signal_stops_the_run(tmp_path, sig, code, name)


def test_sigterm_stops_a_run_started_with_sigint_ignored(tmp_path: Path) -> None:
    # a background job of a script (`fcbench run &` without job control) starts with SIGINT ignored
    check_signal_stops_the_run(tmp_path, signal.SIGTERM, 143, "SIGTERM", ignore_sigint=True)


def check_signal_stops_the_run(
    tmp_path: Path, sig: signal.Signals, code: int, name: str, ignore_sigint: bool = False
) -> None:
    """Start the default run, send ``sig`` once observations are on disk, check the orderly stop
    (exit ``code``, every finished observation kept once, the resume command) and the resume."""
    args = [
        sys.executable,
        "-m",
        "fcbench",
        "run",
        "--repeats",
        "1",
        "--mock-latency-ms",
        "400",
        "--out",
        "runs",
    ]
    if ignore_sigint:  # SIGINT ignored before exec, as a shell does for a background job
        args = [sys.executable, "-c", IGNORING_SIGINT, *args[3:]]
    proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    records = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait until some observations are on disk
        found = list((tmp_path / "runs").glob("*/records.jsonl"))
        if found and len(found[0].read_text().splitlines()) >= 8:
            records = found[0]
            break
        time.sleep(0.1)
    assert records is not None, "the run wrote nothing"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, (out, err)
    assert f"interrupted by {name}: every finished observation is kept" in err
    stopped = re.search(r"stopped: (\d+) of (\d+) recorded", err)
    assert stopped is not None, err
    assert "resume with: " in err and f"fcbench run --resume runs/{records.parent.name}" in err
    assert "Traceback" not in err, err
    kept = [json.loads(line) for line in records.read_text().splitlines()]
    assert int(stopped.group(1)) == len(kept) and int(stopped.group(2)) == default_run_size()
    assert len(kept) >= 8 and len({r["seq"] for r in kept}) == len(kept)
    resumed = subprocess.run(
        [sys.executable, "-m", "fcbench", "run", "--resume", str(records.parent), "--no-progress"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    final = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(final) == len({r["seq"] for r in final}) == default_run_size()
