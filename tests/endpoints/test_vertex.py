"""Gemini on Vertex AI is endpoint configuration of the ``gemini`` dialect, not code.

A project-and-region endpoint with a bearer access token, and the built-in express-mode ``vertex``
endpoint, both run against the mock provider's Vertex routes over real HTTP through the CLI.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from cli_run import fcbench
from robust_run import everything_written

from fcbench.endpoints import BUILTIN_ENDPOINTS
from fcbench.store.blobs import expand_blobs, load_blobs

TOKEN = "ya29.vertex-test-token-0123456789abcdef"
PROJECT_PATH = "/v1/projects/demo-project/locations/us-central1/publishers/google"


def _run(tmp_path: Path, endpoint: dict[str, Any], mode: str) -> tuple[Path, list[dict[str, Any]]]:
    config = tmp_path / "fcbench.json"
    config.write_text(
        json.dumps(
            {
                "targets": ["vertex-us:sim-careful"],
                "endpoints": {"vertex-us": endpoint},
                "repeats": 1,
                "modes": [mode],
                "cases": ["select-lookup-01", "types-01"],
            }
        )
    )
    out = tmp_path / "runs"
    result = fcbench(
        "run", "--config", str(config), "--out", str(out), "--no-progress",
        env={**os.environ, "VERTEX_ACCESS_TOKEN": TOKEN},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = out.iterdir()
    rows = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    return run_dir, rows


@pytest.mark.parametrize(
    ("mode", "method"), [("selection", "generateContent"), ("stream", "streamGenerateContent")]
)
def test_a_project_endpoint_with_a_bearer_token_runs_and_keeps_the_token_off_disk(
    tmp_path: Path, mock_server: str, mode: str, method: str
) -> None:
    endpoint = {
        "dialect": "gemini",
        "base_url": f"{mock_server}{PROJECT_PATH}",
        "auth": "bearer",
        "api_key_env": "VERTEX_ACCESS_TOKEN",
    }
    run_dir, rows = _run(tmp_path, endpoint, mode)
    assert len(rows) == 2
    blobs = load_blobs(run_dir)
    for row in rows:
        assert row["outcome"]["kind"] == "tool_calls", row["outcome"]
        request = expand_blobs(row["raw"], blobs)["request"]
        assert f"{PROJECT_PATH}/models/sim-careful:{method}" in request["url"]
        headers = {name.lower(): value for name, value in request["headers"].items()}
        assert headers["authorization"] != f"Bearer {TOKEN}" and "x-goog-api-key" not in headers
    assert sum(row["verdict"]["passed"] for row in rows) >= 1
    written = everything_written(tmp_path)
    assert TOKEN not in written and TOKEN[12:] not in written


def test_an_unset_token_variable_is_named_before_anything_is_sent(tmp_path: Path, mock_server: str) -> None:
    endpoint = {
        "dialect": "gemini",
        "base_url": f"{mock_server}{PROJECT_PATH}",
        "api_key_env": "NO_SUCH_VAR_X",
    }
    config = tmp_path / "fcbench.json"
    config.write_text(
        json.dumps({"targets": ["vertex-us:sim-careful"], "endpoints": {"vertex-us": endpoint}, "repeats": 1})
    )
    result = fcbench("run", "--config", str(config), "--out", str(tmp_path / "runs"), "--no-progress")
    assert result.returncode == 2
    assert "NO_SUCH_VAR_X" in result.stderr and "Traceback" not in result.stderr


def test_the_builtin_vertex_endpoint_is_the_gemini_dialect_on_vertex_express() -> None:
    vertex = BUILTIN_ENDPOINTS["vertex"]
    assert vertex.dialect == "gemini"
    assert vertex.base_url == "https://aiplatform.googleapis.com/v1/publishers/google"
    assert vertex.api_key_env == "VERTEX_API_KEY"
    listed = fcbench("targets", env={**os.environ, "COLUMNS": "200"})
    assert listed.returncode == 0, listed.stderr
    assert "aiplatform.googleapis.com" in listed.stdout
