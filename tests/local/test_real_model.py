"""The live path: the small model with the ``json-fence`` template, over three dialects of one real server.

One ``fcbench run`` (a real subprocess, one managed llama.cpp server for the module) sends a few core
cases to ``local`` (openai-chat), ``local-anthropic`` (anthropic-messages) and ``local-responses``
(openai-responses) with the target ``qwen2.5-coder-0.5b@json-fence``: every dialect must return
structured tool calls (not calls written as text) that are graded, with no provider or harness error.

Selected with ``-m real_model``; ``.ci/run`` installs the ``local`` extra and the model and sets
``FCBENCH_REQUIRE_REAL_MODEL=1``, so there these tests run (or fail), never skip.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from local_engine import SMALL_MODEL, require_model
from robust_run import records

from fcbench.local import find_served
from fcbench.store.records import Manifest, read_manifest

pytestmark = pytest.mark.real_model

VARIANT = "json-fence"
ENDPOINTS = {
    "local": "openai-chat",
    "local-anthropic": "anthropic-messages",
    "local-responses": "openai-responses",
}
"""The managed endpoints, by the dialect each speaks."""
CALL_CASES = ("select-quote-02", "args-country-01")
"""Core cases this model answers with a call when asked for fenced JSON."""
CASES = (*CALL_CASES, "history-abstain-02")
"""The calls and an abstention."""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]], str]:
    """The run folder, its records and the run's terminal summary."""
    require_model()
    tmp = tmp_path_factory.mktemp("real-model")
    config = tmp / "config.json"
    served = f"{SMALL_MODEL}@{VARIANT}"
    config.write_text(json.dumps({
        "targets": [f"{endpoint}:{served}" for endpoint in ENDPOINTS], "modes": ["selection"],
        "repeats": 1, "concurrency": 1, "timeoutMs": 240_000,
    }))  # fmt: skip
    case_flags = [flag for case in CASES for flag in ("--case", case)]
    done = subprocess.run(
        [sys.executable, "-m", "fcbench", "run", "--config", str(config), "--out", str(tmp), *case_flags,
         "--min-coverage", "1", "--no-progress"],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 1: a pass-rate threshold, never coverage
    [run_dir] = [p for p in tmp.iterdir() if p.is_dir()]
    return run_dir, records(run_dir), done.stdout


def test_every_dialect_answers_every_case_once_with_no_error(
    run: tuple[Path, list[dict[str, Any]], str],
) -> None:
    run_dir, rows, _ = run
    seen = sorted((r["target"]["endpoint"], r["target"]["dialect"], r["case_id"]) for r in rows)
    assert seen == sorted((e, d, c) for e, d in ENDPOINTS.items() for c in CASES), "every observation, once"
    for row in rows:
        assert row["outcome"]["kind"] != "provider_error", json.dumps(row["outcome"])
        assert row["error"] is None
        assert row["verdict"]["decision"] != "not_scored"
        assert row["raw"]["response"]["status"] == 200
    assert read_manifest(run_dir).finished_at is not None


def test_structured_calls_arrive_in_every_dialect_and_are_graded(
    run: tuple[Path, list[dict[str, Any]], str],
) -> None:
    _, rows, _ = run
    for endpoint in ENDPOINTS:
        calls = [
            r for r in rows if r["target"]["endpoint"] == endpoint and r["outcome"]["kind"] == "tool_calls"
        ]
        assert calls, f"{endpoint}: no structured tool call at all"
        for row in calls:
            assert row["verdict"]["decision"] != "call_in_text"
            assert row["verdict"]["calls_scored"] >= 1 and row["verdict"]["schema_valid"] is not None
            assert all(isinstance(call["arguments"], dict) for call in row["outcome"]["calls"])
        assert not any(a["code"] == "json_call_in_text" for r in calls for a in r["anomalies"])
    structured = {r["case_id"] for r in rows if r["outcome"]["kind"] == "tool_calls"}
    assert structured & set(CALL_CASES), structured


def test_the_raw_replies_are_the_real_servers_in_its_three_wire_formats(
    run: tuple[Path, list[dict[str, Any]], str],
) -> None:
    _, rows, _ = run
    for row in rows:
        body = row["raw"]["response"]["body"]
        dialect = row["target"]["dialect"]
        if dialect == "openai-chat":
            assert body["model"] == f"{SMALL_MODEL}@{VARIANT}"  # the alias the server reports
            assert body["timings"]["predicted_n"] > 0 and body["system_fingerprint"].startswith("b")
            assert row["usage"]["output_tokens"] == body["usage"]["completion_tokens"]
        elif dialect == "anthropic-messages":
            assert body["type"] == "message" and body["content"]
            if row["outcome"]["kind"] == "tool_calls":
                assert body["stop_reason"] == "tool_use"
                assert any(block["type"] == "tool_use" for block in body["content"])
        else:
            assert body["object"] == "response" and body["status"] == "completed"
            if row["outcome"]["kind"] == "tool_calls":
                assert any(item["type"] == "function_call" for item in body["output"])


def _pins(manifest: Manifest) -> list[dict[str, Any]]:
    return [target.service or {} for target in manifest.targets]


def test_the_manifest_pins_the_shipped_template_the_server_reports(
    run: tuple[Path, list[dict[str, Any]], str],
) -> None:
    run_dir, _, _ = run
    template = find_served(f"{SMALL_MODEL}@{VARIANT}").template
    assert template is not None
    shipped = hashlib.sha256(template.text().encode("utf-8")).hexdigest()
    pins = _pins(read_manifest(run_dir))
    assert len(pins) == len(ENDPOINTS)
    for service in pins:
        assert service["template_variant"] == VARIANT
        assert service["chat_template_sha256"] == shipped
        assert service["props"]["chat_template_sha256"] == shipped, "the server runs the template as shipped"
        assert service["sha256"] == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
        assert service["engine"].startswith("llama.cpp server (xllamacpp ")
    report = subprocess.run(
        [sys.executable, "-m", "fcbench", "report", str(run_dir)], capture_output=True, text=True, check=True
    ).stdout
    assert f"json-fence (sha256 {shipped})" in report
