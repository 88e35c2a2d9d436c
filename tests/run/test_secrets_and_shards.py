"""Secrets never reach the run directory or the console; shards merge into the unsharded run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml
from cli_inprocess import fcbench_in_process

from fcbench.store.blobs import BLOBS_FILE, expand_blobs, iter_blobs, load_blobs

CLI = [sys.executable, "-m", "fcbench"]
SECRETS = {
    "LAB_CHAT_KEY": "sk-fcbench-canary-chat-8f3a1c",
    "LAB_RESP_KEY": "sk-fcbench-canary-responses-77b2",
    "LAB_ANTHROPIC_KEY": "sk-ant-fcbench-canary-41d9e0",
    "LAB_GEMINI_KEY": "AIza-fcbench-canary-gem-5c2e",
}


def _cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=240
    )


def test_api_keys_never_reach_disk_or_console(tmp_path: Path, mock_server: str) -> None:
    config = {
        "endpoints": {
            "lab-chat": {
                "dialect": "openai-chat",
                "base_url": f"{mock_server}/v1",
                "api_key_env": "LAB_CHAT_KEY",
            },
            "lab-resp": {
                "dialect": "openai-responses",
                "base_url": f"{mock_server}/v1",
                "api_key_env": "LAB_RESP_KEY",
            },
            "lab-anthropic": {
                "dialect": "anthropic-messages",
                "base_url": mock_server,
                "api_key_env": "LAB_ANTHROPIC_KEY",
            },
            "lab-gemini": {
                "dialect": "gemini",
                "base_url": f"{mock_server}/v1beta",
                "api_key_env": "LAB_GEMINI_KEY",
            },
        },
        "targets": [
            "lab-chat:sim-careful",
            "lab-resp:sim-careful",
            "lab-anthropic:sim-sloppy",
            "lab-gemini:sim-eager",
        ],
        "repeats": 1,
        "modes": ["selection", "stream"],
        "tags": ["selection"],
    }
    path = tmp_path / "lab.yaml"
    path.write_text(yaml.safe_dump(config))
    proc = _cli("run", "--no-progress", "--config", str(path), cwd=tmp_path, env=SECRETS)
    assert proc.returncode == 0, proc.stderr
    run_dir = next((tmp_path / "runs").iterdir())
    blobs = load_blobs(run_dir)
    rows = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    for row in rows:
        row["raw"] = expand_blobs(row["raw"], blobs)
    assert rows and all(r["outcome"]["kind"] != "provider_error" for r in rows), rows[0]["outcome"]
    # The key was really sent (the mock accepted it), and its header is present but redacted.
    headers = [r["raw"]["request"]["headers"] for r in rows]
    assert all("[REDACTED]" in json.dumps(h) for h in headers)
    report = _cli("report", str(run_dir), "--format", "md", cwd=tmp_path, env=SECRETS)
    texts = [proc.stdout, proc.stderr, report.stdout, report.stderr]
    texts += [p.read_text(errors="replace") for p in run_dir.rglob("*") if p.is_file() and p.suffix != ".gz"]
    texts += [json.dumps(blob) for blob in iter_blobs(run_dir / BLOBS_FILE)]
    for secret in SECRETS.values():
        assert not any(secret in text for text in texts), f"{secret} leaked"


def _keys(run_dir: Path) -> set[tuple[str, str, int, str]]:
    out = set()
    for line in (run_dir / "records.jsonl").read_text().splitlines():
        r = json.loads(line)
        out.add((r["target"]["endpoint"] + ":" + r["target"]["model"], r["case_id"], r["repeat"], r["mode"]))
    return out


def _metrics(run_dir: Path) -> dict:
    proc = fcbench_in_process("report", str(run_dir), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    for volatile in ("run", "latency_ms", "started_at", "finished_at", "manifest"):
        data.pop(volatile, None)
    for target in (
        data.get("targets", {}).values() if isinstance(data.get("targets"), dict) else data.get("targets", [])
    ):
        if isinstance(target, dict):
            target.pop("latency_ms", None)
    return data


def test_three_shards_merge_into_the_unsharded_run(tmp_path: Path) -> None:
    common = [
        "run",
        "--no-progress",
        "--repeats",
        "2",
        "--target",
        "sim:sim-careful",
        "--target",
        "sim-gemini:sim-sloppy",
        "--category",
        "boundary",
    ]
    whole = _cli(*common, "--out", "whole", cwd=tmp_path)
    assert whole.returncode == 0, whole.stderr
    for i in (1, 2, 3):  # the shards and the merge through the entry point in-process
        shard = fcbench_in_process(*common, "--shard", f"{i}/3", "--out", str(tmp_path / f"shard{i}"))
        assert shard.returncode == 0, shard.stderr
    shard_dirs = [str(next((tmp_path / f"shard{i}").iterdir())) for i in (1, 2, 3)]
    merged = fcbench_in_process("merge", *shard_dirs, "--out", str(tmp_path / "merged" / "all"))
    assert merged.returncode == 0, merged.stderr
    whole_dir = next((tmp_path / "whole").iterdir())
    merged_dir = tmp_path / "merged" / "all"
    assert _keys(merged_dir) == _keys(whole_dir)
    manifest = json.loads((merged_dir / "manifest.json").read_text())
    assert manifest["shard"] is None and manifest["planned"] == len(_keys(whole_dir))
    assert _metrics(merged_dir) == _metrics(whole_dir)
    # Two shards are not a whole run.
    partial = _cli("merge", *shard_dirs[:2], "--out", "merged/partial", cwd=tmp_path)
    assert partial.returncode == 2 and "exactly once" in partial.stderr
