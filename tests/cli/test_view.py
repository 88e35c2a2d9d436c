"""``fcbench view``: its help, a bad folder, one run directory served by a real process, the ``Host``
and ``Origin`` it answers (DNS rebinding), and the port it picks."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

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


def test_answers_only_its_own_address_as_host_and_origin(tmp_path: Path) -> None:
    run = scale_run(tmp_path / "one-run", 20)
    with running_view(run) as url, httpx.Client(base_url=url, timeout=60) as client:
        port = urlsplit(url).port
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
            answer = client.get("/api/runs", headers={"Host": host})
            assert answer.status_code == 200 and answer.json()[0]["key"] == "one-run"
        for host in (
            f"evil.example:{port}",
            "evil.example",
            f"localhost.evil.example:{port}",
            f"localhost:{port}1",
        ):
            refused = client.get("/api/runs", headers={"Host": host})
            assert refused.status_code == 403 and "one-run" not in refused.text, host
        assert client.get("/runs/one-run", headers={"Host": f"evil.example:{port}"}).status_code == 403
        for origin in (
            "http://evil.example",
            f"http://evil.example:{port}",
            "null",
            f"https://localhost:{port}",
        ):
            refused = client.get("/api/runs", headers={"Origin": origin})
            assert refused.status_code == 403 and "one-run" not in refused.text, origin
        for origin in (f"http://localhost:{port}", f"http://127.0.0.1:{port}"):
            assert client.get("/api/runs", headers={"Origin": origin}).status_code == 200
        assert client.post("/api/runs").status_code == 405  # read-only
        assert client.delete("/runs/one-run").status_code == 405


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_without_a_port_each_viewer_takes_a_free_one(tmp_path: Path) -> None:
    run = scale_run(tmp_path / "one-run", 20)
    with running_view(run) as first, running_view(run) as second:
        assert urlsplit(first).port != urlsplit(second).port
        for url in (first, second):
            assert httpx.get(url + "/api/runs", timeout=60).json()[0]["key"] == "one-run"
    port = free_port()
    with running_view(run, "--port", str(port)) as given:
        assert urlsplit(given).port == port
