"""``fcbench local list`` and ``fcbench local serve``: real subprocesses (serve needs the model)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
from local_engine import SMALL_MODEL, require_model


def test_list_shows_the_catalogue_and_what_is_assembled(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "fcbench", "local", "list"],
        capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "FCBENCH_CACHE_DIR": str(tmp_path), "COLUMNS": "200"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "qwen2.5-coder-0.5b" in done.stdout and "qwen2.5-coder-1.5b" in done.stdout
    assert "no (fcbench local pull)" in done.stdout  # an empty cache holds nothing
    assert f"cache: {tmp_path}" in done.stdout


def test_serve_prints_a_base_url_that_answers_and_stops_on_ctrl_c() -> None:
    require_model()
    proc = subprocess.Popen(
        [sys.executable, "-m", "fcbench", "local", "serve", SMALL_MODEL],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        dialect, url = proc.stdout.readline().split()
        assert dialect == "openai-chat" and url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        models = httpx.get(f"{url}/models", timeout=10, trust_env=False).json()
        assert [m["id"] for m in models["data"]] == [SMALL_MODEL]
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=60)
    assert code == 0
