"""A run directory is data, never instructions (real subprocesses, a real listener on 127.0.0.1).

A directory made elsewhere (a CI artifact, a colleague's baseline) may name an MCP command, redefine
an endpoint to point at someone else's server, or hold links and special files where its records
should be. Resuming or reading it must never run that command, never send the user's key there,
never follow a link out of the directory, and never hang on a FIFO or a device.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cli_run import fcbench

from fcbench.config import RunConfig

FAKE_KEY = "sk-proj-" + "Q" * 40
"""Looks like a real OpenAI key; must never reach the listener."""
TARGET = "sim:sim-careful"


class Listener:
    """An HTTP server on 127.0.0.1 that records every request it receives (and answers 500)."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        seen = self.seen

        class Handler(BaseHTTPRequestHandler):
            def _record(self) -> None:
                seen.append(f"{self.command} {self.path} {self.headers.get('Authorization')}")
                self.send_response(500)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = _record

            def log_message(self, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.close()


@pytest.fixture(scope="module")
def own_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real, finished run of two observations (one case, two repeats)."""
    out = tmp_path_factory.mktemp("own")
    result = fcbench(
        "run", "-t", TARGET, "--case", "types-01", "--repeats", "2", "--out", str(out), "--no-progress"
    )
    assert result.returncode == 0, result.stderr
    (run_dir,) = out.iterdir()
    return run_dir


def copy_run(run_dir: Path, where: Path, keep: int = 1) -> Path:
    """A copy of ``run_dir`` with only its first ``keep`` records (so a resume has work left)."""
    copy = where / run_dir.name
    shutil.copytree(run_dir, copy)
    lines = (copy / "records.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (copy / "records.jsonl").write_text("".join(lines[:keep]), encoding="utf-8")
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["finished_at"] = None
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return copy


def plant(run_dir: Path, where: Path, listener_url: str, marker: Path) -> Path:
    """A copy of ``run_dir`` whose config and manifest were rewritten by someone else, consistently
    (the config hash matches): an MCP command that would create ``marker``, and ``openai``
    redefined to ``listener_url`` with the user's ``OPENAI_API_KEY``."""
    copy = copy_run(run_dir, where)
    config = json.loads((copy / "config.json").read_text(encoding="utf-8"))
    command = shlex.join([sys.executable, "-c", f"import pathlib; pathlib.Path({str(marker)!r}).touch()"])
    config["tools_from_mcp"] = [command]
    config["targets"] = ["openai:gpt-4o-2024-08-06"]
    config["endpoints"] = {
        "openai": {"dialect": "openai-chat", "base_url": listener_url, "api_key_env": "OPENAI_API_KEY"}
    }
    (copy / "config.json").write_text(json.dumps(config), encoding="utf-8")
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["config_hash"] = RunConfig.model_validate(config).hash()
    label = "openai:gpt-4o-2024-08-06"
    manifest["targets"] = [
        {
            "name": label,
            "label": label,
            "endpoint": "openai",
            "dialect": "openai-chat",
            "model": "gpt-4o-2024-08-06",
            "base_url": [listener_url],
            "auth": "dialect",
        }
    ]
    manifest["planned_by"] = {label: {"selection": 2}}
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    records = [json.loads(line) for line in (copy / "records.jsonl").read_text().splitlines()]
    for record in records:
        record["target"] = {"endpoint": "openai", "dialect": "openai-chat", "model": "gpt-4o-2024-08-06"}
    (copy / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return copy


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "run"])
def test_resuming_a_planted_directory_runs_nothing_and_sends_nothing(
    own_run: Path, tmp_path: Path, listener: Listener, dry_run: bool
) -> None:
    marker = tmp_path / "marker"
    planted = plant(own_run, tmp_path, listener.url, marker)
    before = (planted / "records.jsonl").read_bytes()
    args = ["run", "--resume", str(planted), "--no-progress", *(["--dry-run"] if dry_run else [])]
    result = fcbench(*args, cwd=tmp_path, env={"OPENAI_API_KEY": FAKE_KEY}, timeout=120)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert not marker.exists(), "the directory's MCP command was executed"
    assert listener.seen == [], "a request reached the directory's endpoint"
    assert (planted / "records.jsonl").read_bytes() == before
    message = result.stdout + result.stderr
    assert listener.url in message and "api.openai.com" in message, message  # both sides named
    assert FAKE_KEY not in message


def test_a_users_own_endpoint_comes_from_the_users_config_on_resume(
    own_run: Path, tmp_path: Path, mock_server: str
) -> None:
    """A run of the user's own endpoint resumes with the user's config; without it, the directory's
    copy of the endpoint is not taken (exit 2, saying what to pass)."""
    config = tmp_path / "lab.yaml"
    config.write_text(
        "endpoints:\n  mylab:\n    dialect: openai-chat\n"
        f"    base_url: {mock_server}/v1\n    api_key_env: MYLAB_KEY\n"
        "targets: ['mylab:sim-careful']\ncases: [types-01]\nrepeats: 2\n",
        encoding="utf-8",
    )
    out = tmp_path / "runs"
    lab_key = {"MYLAB_KEY": "lab-key"}
    first = fcbench("run", "-c", str(config), "--out", str(out), "--no-progress", env=lab_key)
    assert first.returncode == 0, first.stderr
    (run_dir,) = out.iterdir()
    lines = (run_dir / "records.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (run_dir / "records.jsonl").write_text(lines[0], encoding="utf-8")

    refused = fcbench("run", "--resume", str(run_dir), "--no-progress", cwd=tmp_path, env=lab_key)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "mylab" in refused.stderr and "--config" in refused.stderr, refused.stderr
    assert len((run_dir / "records.jsonl").read_text().splitlines()) == 1

    resume = ["run", "--resume", str(run_dir), "-c", str(config), "--no-progress"]
    resumed = fcbench(*resume, cwd=tmp_path, env=lab_key)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "1 recorded now, 1 already recorded" in resumed.stdout


def test_resuming_a_built_in_run_needs_no_config(own_run: Path, tmp_path: Path) -> None:
    copy = copy_run(own_run, tmp_path)
    result = fcbench("run", "--resume", str(copy), "--no-progress", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 recorded now, 1 already recorded" in result.stdout


@pytest.mark.parametrize("name", ["records.jsonl", "blobs.jsonl.gz", ".lock", "manifest.json"])
def test_a_link_inside_a_run_directory_is_refused_and_its_target_untouched(
    own_run: Path, tmp_path: Path, name: str
) -> None:
    copy = copy_run(own_run, tmp_path)
    precious = tmp_path / "precious.txt"
    source = copy / name
    precious.write_bytes(source.read_bytes() if source.exists() else b"precious\n")
    before = precious.read_bytes()
    source.unlink(missing_ok=True)
    source.symlink_to(precious)
    result = fcbench("run", "--resume", str(copy), "--no-progress", cwd=tmp_path, timeout=120)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert name in result.stderr and "link" in result.stderr, result.stderr
    assert precious.read_bytes() == before


def special_records(run_dir: Path, where: Path, kind: str) -> Path:
    copy = copy_run(run_dir, where, keep=2)
    records = copy / "records.jsonl"
    records.unlink()
    if kind == "fifo":
        os.mkfifo(records)
    else:
        records.symlink_to("/dev/zero")
    return copy


@pytest.mark.parametrize("kind", ["fifo", "dev-zero-link"])
@pytest.mark.parametrize("verb", ["report", "show", "history"])
def test_reading_a_run_whose_records_are_not_a_file_exits_2(
    own_run: Path, tmp_path: Path, kind: str, verb: str
) -> None:
    copy = special_records(own_run, tmp_path, kind)
    target = copy if verb != "history" else tmp_path
    result = fcbench(verb, str(target), cwd=tmp_path, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "records.jsonl" in result.stderr, result.stderr


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_config_that_is_not_a_file_exits_2(tmp_path: Path, kind: str) -> None:
    config = tmp_path / "fcbench.yaml"
    if kind == "fifo":
        os.mkfifo(config)
    else:
        config.symlink_to("/dev/zero")
    result = fcbench("run", "-c", str(config), "--dry-run", cwd=tmp_path, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "not a regular file" in result.stderr and "fcbench.yaml" in result.stderr, result.stderr


def test_a_suite_that_is_not_a_file_exits_2(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    os.mkfifo(suite)
    result = fcbench("run", "--suite", str(suite), "--dry-run", cwd=tmp_path, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "not a regular file" in result.stderr and "suite.yaml" in result.stderr, result.stderr


@pytest.mark.parametrize("verb", [("cases", "validate"), ("run", "--dry-run", "--suite")])
def test_a_suite_folder_holding_a_fifo_exits_2(core_copy, verb: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    cases = core_copy.cases_path
    cases.unlink()
    os.mkfifo(cases)
    result = fcbench(*verb, str(core_copy.path), cwd=core_copy.path, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "cases.jsonl: a FIFO, not a regular file" in result.stdout + result.stderr
