"""``fcbench run`` on one-file suites whose tools are in each import format, and on an MCP server's tools.

Every run is a real subprocess against the embedded mock provider (one target, one repeat, two cases).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
GEMINI_SCHEMA = {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}, "required": ["city"]}
DESCRIPTION = "Current weather for a city."

TOOLS: dict[str, Any] = {
    "openai-chat": [
        {
            "type": "function",
            "function": {"name": "get_weather", "description": DESCRIPTION, "parameters": SCHEMA},
        }
    ],
    "openai-responses": [
        {
            "type": "function",
            "name": "get_weather",
            "description": DESCRIPTION,
            "parameters": SCHEMA,
            "strict": False,
        }
    ],
    "anthropic": [{"name": "get_weather", "description": DESCRIPTION, "input_schema": SCHEMA}],
    "gemini": {
        "functionDeclarations": [
            {"name": "get_weather", "description": DESCRIPTION, "parameters": GEMINI_SCHEMA}
        ]
    },
    "mcp": {"tools": [{"name": "get_weather", "description": DESCRIPTION, "inputSchema": SCHEMA}]},
}
CASES = [
    {
        "id": "weather-01",
        "prompt": "What is the weather in Paris?",
        "expected": {"kind": "tool", "name": "get_weather", "arguments": {"city": "Paris"}},
    },
    {"id": "abstain-01", "prompt": "Thanks, that is all!", "expected": {"kind": "text"}},
]
SERVER = Path(__file__).resolve().parents[1] / "support" / "mcp_server.py"


def _run(tmp_path: Path, suite: Path, *extra: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    args = ["run", "--suite", str(suite), "-t", "sim:sim-careful", "--repeats", "1", "--out", "runs", *extra]
    keyless = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    proc = subprocess.run(
        [sys.executable, "-m", "fcbench", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=keyless,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (run_dir,) = list((tmp_path / "runs").iterdir())
    manifest = json.loads((run_dir / "manifest.json").read_text())
    records = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    return manifest, records


@pytest.mark.parametrize("fmt", sorted(TOOLS))
def test_a_run_on_tools_in_each_format(tmp_path: Path, fmt: str) -> None:
    suite = tmp_path / "weather.json"
    suite.write_text(json.dumps({"dataset_version": "1", "tools": TOOLS[fmt], "cases": CASES}, indent=2))
    manifest, records = _run(tmp_path, suite)
    (record,) = manifest["tool_imports"]
    assert record["format"] == fmt and record["tools"] == 1 and record["source"] == "weather.json#tools"
    assert manifest["system_prompt"] == "none"
    assert {r["case_id"]: r["verdict"]["passed"] for r in records} == {"weather-01": True, "abstain-01": True}


def test_a_run_on_a_live_mcp_servers_tools(tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="the mcp extra is not installed (pip install -e '.[test]')")
    suite = tmp_path / "tickets.yaml"
    suite.write_text(
        "dataset_version: '1'\n"
        "system: You are a help desk assistant.\n"
        "cases:\n"
        "  - id: weather-01\n"
        "    prompt: What is the weather in Paris?\n"
        "    expected:\n"
        "      kind: tool\n"
        "      name: get_weather\n"
        "      arguments: {requiredEquals: {city: Paris}, optional: [unit]}\n"
        "  - id: abstain-01\n"
        "    prompt: Thanks, that is all!\n"
        "    expected: {kind: text}\n",
        encoding="utf-8",
    )
    command = shlex.join([sys.executable, str(SERVER)])
    manifest, records = _run(tmp_path, suite, "--tools-from-mcp", command)
    (record,) = manifest["tool_imports"]
    assert record["source"] == f"mcp:{command}" and record["format"] == "mcp" and record["tools"] == 3
    assert (record["server_name"], record["server_version"]) == ("fcbench-test-tools", "1.2.3")
    assert manifest["system_prompt"].startswith("sha256:")
    assert all(r["verdict"]["decision"] != "not_scored" for r in records)
    assert len(records) == 2
