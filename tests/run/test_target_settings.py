"""Per-target request settings (``params``, ``headers``, ``strict``, ``parallel_tool_calls``) reach the
wire for that target only, and are pinned in the manifest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from robust_server import CHAT_REPLY, Answer, HostileServer, SeenRequest

from fcbench.run.observe import merged_params
from fcbench.store.records import read_manifest


def test_target_params_headers_and_strict_reach_only_that_targets_requests(tmp_path: Path) -> None:
    with HostileServer(lambda seen: Answer(200, CHAT_REPLY)) as server:
        config = {
            "endpoints": {
                "lab": {"dialect": "openai-chat", "base_url": f"{server.url}/v1", "key_required": False}
            },
            "targets": [
                {
                    "name": "tuned",
                    "target": "lab:tuned-model",
                    "params": {
                        "top_p": 0.5,
                        "reasoning_effort": "low",
                        "stop": ["END"],
                        "max_completion_tokens": 64,
                    },
                    "headers": {"X-Team": "evals"},
                    "strict": True,
                    "parallel_tool_calls": False,
                },
                "lab:plain-model",
            ],
            "repeats": 1,
            "cases": ["select-lookup-01"],
        }
        path = tmp_path / "config.json"
        path.write_text(json.dumps(config))
        done = subprocess.run(
            [sys.executable, "-m", "fcbench", "run", "--config", str(path), "--out", str(tmp_path / "runs"),
             "--no-progress"],
            capture_output=True, text=True, timeout=120, check=False, env=dict(os.environ),
        )  # fmt: skip
        seen: list[SeenRequest] = list(server.requests)
    assert done.returncode in (0, 1), done.stdout + done.stderr  # text replies fail the gate: fine here
    by_model: dict[str, list[tuple[dict[str, Any], dict[str, str]]]] = {}
    for request in seen:
        body = json.loads(request.body)
        by_model.setdefault(body["model"], []).append((body, request.headers))
    assert set(by_model) == {"tuned-model", "plain-model"}
    for body, headers in by_model["tuned-model"]:
        assert body["top_p"] == 0.5 and body["reasoning_effort"] == "low" and body["stop"] == ["END"]
        assert body["max_completion_tokens"] == 64  # a param replaces what fcbench set
        assert body["parallel_tool_calls"] is False
        assert all(tool["function"]["strict"] is True for tool in body["tools"])
        assert headers.get("x-team") == "evals"
    for body, headers in by_model["plain-model"]:
        assert not {"top_p", "reasoning_effort", "stop", "parallel_tool_calls"} & set(body)
        assert body["max_completion_tokens"] == 1024
        assert not any(tool["function"].get("strict") for tool in body["tools"])
        assert "x-team" not in headers
    [run_dir] = (tmp_path / "runs").iterdir()
    pinned = {t.ident: t for t in read_manifest(run_dir).targets}
    tuned = pinned["lab:tuned-model"]
    assert tuned.name == "tuned" and tuned.settings is not None
    assert tuned.settings["params"]["top_p"] == 0.5
    assert tuned.settings["strict"] is True
    assert pinned["lab:plain-model"].settings is None


def test_params_merge_objects_key_by_key() -> None:
    body = {"model": "m", "generationConfig": {"temperature": 0, "maxOutputTokens": 1024}, "tools": [1]}
    merged = merged_params(body, {"generationConfig": {"topP": 0.5, "maxOutputTokens": 64}, "tools": [2]})
    assert merged == {
        "model": "m",
        "generationConfig": {"temperature": 0, "maxOutputTokens": 64, "topP": 0.5},
        "tools": [2],
    }
    assert body["generationConfig"] == {"temperature": 0, "maxOutputTokens": 1024}  # not changed in place


def test_a_credential_header_in_target_settings_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text('targets:\n  - {target: "sim:sim-careful", headers: {Authorization: "Bearer x"}}\n')
    done = subprocess.run(
        [sys.executable, "-m", "fcbench", "run", "--config", str(path), "--dry-run"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "looks like a credential" in done.stderr
