"""``fcbench compat --suite``: keyword probes derived from a suite folder's own tools, as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fcbench.store.records import RECORDS_FILE, iter_record_dicts, read_manifest

CHAT = "sim:sim-careful"
ANTHROPIC = "sim-anthropic:sim-careful"

TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "side_effect": "read",
        "parameters": {
            "type": "object",
            "additionalProperties": False,
            "required": ["city"],
            "properties": {
                "city": {
                    "type": "string",
                    "pattern": "^[A-Z][a-z]+$",
                    "description": "City name, capitalised.",
                },
                "units": {"type": "string", "enum": ["metric", "imperial"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
                "at": {"$ref": "#/$defs/place"},
            },
            "$defs": {
                "place": {
                    "type": "object",
                    "required": ["lat"],
                    "properties": {"lat": {"type": "number", "minimum": -90}},
                }
            },
        },
    },
    {
        "name": "find_customer",
        "description": "Find a customer by email or by number.",
        "side_effect": "read",
        "parameters": {
            "type": "object",
            "properties": {"email": {"type": "string", "format": "email"}, "number": {"type": "integer"}},
            "anyOf": [{"required": ["email"]}, {"required": ["number"]}],
        },
    },
]


def make_suite(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "suite.json").write_text(
        json.dumps({"name": "weather", "dataset_version": "2.1.0"}), encoding="utf-8"
    )
    (folder / "system.txt").write_text("You are a weather assistant.\n", encoding="utf-8")
    (folder / "tools.core.json").write_text(json.dumps({"tools": TOOLS}), encoding="utf-8")
    case = {
        "id": "weather-01",
        "prompt": "What is the weather in Paris?",
        "expected": {"kind": "tool", "name": "get_weather", "arguments": {"city": "Paris"}},
    }
    (folder / "cases.jsonl").write_text(json.dumps(case) + "\n", encoding="utf-8")
    return folder


def compat(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Path | None]:
    """Run ``fcbench compat ARGS`` into ``tmp_path/runs``; the run directory it made, if one."""
    out = tmp_path / "runs"
    command = [sys.executable, "-m", "fcbench", "compat", *args, "--out", str(out), "--no-progress"]
    proc = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=240)
    made = sorted(p for p in out.iterdir() if p.is_dir()) if out.is_dir() else []
    assert len(made) <= 1
    return proc, made[0] if made else None


def test_only_suite_json_classifies_derived_keywords_per_target(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "weather")
    args = ["--suite", str(suite), "--only-suite", "--target", CHAT, "--target", ANTHROPIC, "--repeats", "1"]
    proc, run_dir = compat(tmp_path, *args, "--strict", "off", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert run_dir is not None
    data = json.loads(proc.stdout)
    rows = {row["case_id"]: row for row in data["keywords"]}
    assert data["capabilities"] == [] and all(row["derived"] for row in rows.values())
    assert list(rows)[:3] == [
        "suite.get_weather.#.required",
        "suite.get_weather.#.additionalProperties",
        "suite.get_weather.#/properties/city.pattern",
    ]
    assert "suite.get_weather.#/$defs/place/properties/lat.minimum" in rows
    assert rows["suite.get_weather.#/$defs/place/properties/lat.minimum"]["property"] == "at.lat"

    any_of = rows["suite.find_customer.#.anyOf"]["cells"]
    assert any_of[ANTHROPIC]["status"] == "rejected"  # no anyOf at the root of an Anthropic input_schema
    assert any_of[CHAT]["status"] != "rejected" and any_of[CHAT]["rejected"] == 0
    assert any("anyOf at the top level" in m for m in any_of[ANTHROPIC]["messages"])
    pattern = rows["suite.get_weather.#/properties/city.pattern"]["cells"]
    for cell in (pattern[CHAT], pattern[ANTHROPIC]):  # judged only on calls that carried the value
        carried = cell["calls"] - cell["omitted"]
        assert cell["status"] in ({"accepted_enforced", "accepted_violated"} if carried else {"untested"})

    manifest = read_manifest(run_dir)
    pinned = manifest.filters["suite"]
    assert pinned["name"] == "weather" and pinned["dataset_version"] == "2.1.0"
    assert pinned["probes_hash"] == data["suite"]["probes_hash"] and pinned["probes"] == len(rows)
    assert manifest.dataset_version.endswith("+weather.2.1.0.derived.1")
    records = list(iter_record_dicts(run_dir / RECORDS_FILE))
    assert {r["case_id"] for r in records} == set(rows) and len(records) == 2 * len(rows)
    assert json.loads((run_dir / "compat.json").read_text(encoding="utf-8")) == data


def test_markdown_groups_derived_probes_by_tool_and_property(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "weather")
    args = ["--suite", str(suite), "--probe", "pattern", "--probe", "find_customer"]
    targets = ["--target", CHAT, "--target", ANTHROPIC, "--strict", "off", "--repeats", "1"]
    proc, run_dir = compat(tmp_path, *args, *targets)
    assert proc.returncode == 0, proc.stderr
    assert run_dir is not None
    out = proc.stdout
    assert "## Schema keywords x targets" in out and "| pattern |" in out  # the shipped probe still runs
    assert "## Your tools: suite weather 2.1.0" in out
    assert f"- find_customer: anyOf -> rejected by {ANTHROPIC}" in out
    assert "| find_customer.email: format |" in out
    assert "- get_weather.city: pattern -> " in out  # --probe pattern also selects derived pattern uses
    assert "get_weather.units" not in out  # and no other use of get_weather
    assert "14 keyword uses found in its tools, 5 probed" in out
    assert "- find_customer (anyOf 0): required -> rejected by" in out
    first = json.loads((run_dir / "compat.json").read_text(encoding="utf-8"))
    assert [r["case_id"] for r in first["keywords"]][0] == "compat.pattern"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--only-suite"], "--only-suite needs --suite"),
        (["--suite", "no/such/folder"], "no such suite folder"),
    ],
)
def test_bad_suite_input_exits_2(tmp_path: Path, args: list[str], message: str) -> None:
    proc, run_dir = compat(tmp_path, *args)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert run_dir is None
