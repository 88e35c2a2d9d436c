"""End-to-end runs of ``fcbench run`` in real subprocesses against the embedded mock provider."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from fcbench.endpoints import DEFAULT_TARGETS
from fcbench.store.blobs import expand_blobs, load_blobs
from fcbench.suite.loader import load_suite

CLI = [sys.executable, "-m", "fcbench"]


def run_cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def only_run_dir(out: Path) -> Path:
    dirs = [p for p in out.iterdir() if p.is_dir()]
    assert len(dirs) == 1, dirs
    return dirs[0]


def records(run_dir: Path) -> list[dict]:
    """The run's records with their raw exchanges expanded from the blob store."""
    blobs = load_blobs(run_dir)
    rows = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    for row in rows:
        row["raw"] = expand_blobs(row["raw"], blobs)
    return rows


def test_default_run_covers_all_dialects_and_writes_manifest(tmp_path: Path) -> None:
    proc = run_cli("run", "--no-progress", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    run_dir = only_run_dir(tmp_path / "runs")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    suite = load_suite("core")
    single_turn = [c for c in suite.cases if c.recovery is None]
    planned = len(DEFAULT_TARGETS) * len(single_turn) * 3
    assert manifest["planned"] == planned
    assert manifest["finished_at"] and manifest["dataset_version"] == suite.info.dataset_version
    assert manifest["dataset_hash"] == suite.dataset_hash and manifest["config_hash"]
    assert {t["dialect"] for t in manifest["targets"]} == {
        "openai-chat",
        "openai-responses",
        "anthropic-messages",
        "gemini",
    }
    rows = records(run_dir)
    assert len(rows) == planned
    assert (
        len(
            {
                (r["target"]["endpoint"], r["target"]["model"], r["case_id"], r["repeat"], r["mode"])
                for r in rows
            }
        )
        == planned
    )
    assert all(r["verdict"] and "decision" in r["verdict"] for r in rows)
    assert all(r["raw"]["request"]["body"] for r in rows)
    # The summary table names every target.
    for target in DEFAULT_TARGETS:
        assert target.split(":")[1] in proc.stdout


def _line_count(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_sigkill_midway_then_resume_records_each_observation_once(tmp_path: Path) -> None:
    args = [
        "run",
        "--no-progress",
        "--repeats",
        "2",
        "--concurrency",
        "2",
        "--mock-latency-ms",
        "40",
        "--target",
        "sim:sim-careful",
        "--target",
        "sim-anthropic:sim-flaky",
    ]
    proc = subprocess.Popen([*CLI, *args], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    run_dir = None
    while time.monotonic() < deadline:
        runs = tmp_path / "runs"
        if runs.exists() and any(runs.iterdir()):
            run_dir = only_run_dir(runs)
            if _line_count(run_dir / "records.jsonl") >= 20:
                break
        time.sleep(0.05)
    assert run_dir is not None and proc.poll() is None, "run finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = _line_count(run_dir / "records.jsonl")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert before < manifest["planned"] and manifest["finished_at"] is None

    resumed = run_cli("run", "--no-progress", "--resume", str(run_dir), cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    rows = records(run_dir)
    keys = Counter(
        (r["target"]["endpoint"], r["target"]["model"], r["case_id"], r["repeat"], r["mode"]) for r in rows
    )
    assert len(keys) == manifest["planned"]
    assert max(keys.values()) == 1
    assert json.loads((run_dir / "manifest.json").read_text())["finished_at"]


def test_resume_refuses_a_different_config(tmp_path: Path) -> None:
    first = run_cli(
        "run",
        "--no-progress",
        "--repeats",
        "1",
        "--target",
        "sim:sim-careful",
        "--case",
        "abstain-01",
        cwd=tmp_path,
    )
    assert first.returncode == 0, first.stderr
    run_dir = only_run_dir(tmp_path / "runs")
    config = tmp_path / "other.yaml"
    config.write_text("repeats: 4\ntargets: ['sim:sim-careful']\ncases: [abstain-01]\n")
    proc = run_cli("run", "--no-progress", "--resume", str(run_dir), "--config", str(config), cwd=tmp_path)
    assert proc.returncode == 2
    assert "config_hash differs" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_key_for_a_real_endpoint_fails_before_any_request(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    proc = subprocess.run(
        [*CLI, "run", "--target", "openai:gpt-4o"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "OPENAI_API_KEY" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("dialect_endpoint", ["sim", "sim-responses", "sim-anthropic", "sim-gemini"])
def test_forced_and_stream_modes(tmp_path: Path, dialect_endpoint: str) -> None:
    proc = run_cli(
        "run",
        "--no-progress",
        "--repeats",
        "1",
        "--target",
        f"{dialect_endpoint}:sim-careful",
        "--mode",
        "forced",
        "--mode",
        "stream",
        "--tag",
        "selection",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    rows = records(only_run_dir(tmp_path / "runs"))
    modes = Counter(r["mode"] for r in rows)
    assert modes["forced"] == modes["stream"] > 0
    forced_choice = [r["raw"]["request"]["body"] for r in rows if r["mode"] == "forced"]
    streamed = [r for r in rows if r["mode"] == "stream"]
    assert all("events" in r["raw"]["response"] for r in streamed)
    assert all(r["outcome"]["kind"] != "provider_error" for r in rows), [r["outcome"] for r in rows][:3]
    assert forced_choice and all(json.dumps(b) for b in forced_choice)
