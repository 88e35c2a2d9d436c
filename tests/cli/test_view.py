"""``fcbench view``: its help, a bad folder, and one run directory served by a real process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
from html_runs import running_view, scale_run

CLI = [sys.executable, "-m", "fcbench"]


def test_help_names_the_options() -> None:
    out = subprocess.run(
        [*CLI, "view", "--help"], capture_output=True, text=True, timeout=60, env={"COLUMNS": "200"}
    )
    assert out.returncode == 0, out.stderr
    assert "--port" in out.stdout and "--no-open" in out.stdout


def test_a_missing_folder_is_bad_input(tmp_path: Path) -> None:
    out = subprocess.run(
        [*CLI, "view", str(tmp_path / "nope"), "--no-open"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 2 and "no such folder" in out.stderr


def test_one_run_directory_opens_its_page(tmp_path: Path) -> None:
    run = scale_run(tmp_path / "one-run", 80, repeats=2)
    with running_view(run) as url, httpx.Client(base_url=url, timeout=60) as client:
        index = client.get("/", follow_redirects=False)
        assert index.status_code == 307 and index.headers["location"] == "/runs/one-run"
        assert [r["key"] for r in client.get("/api/runs").json()] == ["one-run"]
        page = client.get("/runs/one-run")
        assert page.status_code == 200 and "fcbench report: one-run" in page.text
        assert client.get("/api/runs/one-run/observations", params={"limit": 5}).json()["total"] == 80
