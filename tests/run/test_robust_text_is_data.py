"""Safe defaults: model and case text is data, never code; write tools run only against the fake
tools, and single-turn modes run no tool at all."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from robust_run import records, run_in_process

from fcbench.fake_tools import REGISTRY
from fcbench.report.render import render_report
from fcbench.suite.loader import BUILTIN_DIR


def _snippets(marker_dir: Path) -> list[str]:
    """Shell, Python and template snippets that would create a marker file if anything ran them."""
    m = marker_dir
    return [
        f"$(touch {m}/shell-subst)",
        f"`touch {m}/backticks`",
        f"; touch {m}/semicolon #",
        f"__import__('os').system('touch {m}/python')",
        f"{{{{ cycler.__init__.__globals__.os.system('touch {m}/jinja') }}}}",
        "{% for x in range(1) %}{{ x }}{% endfor %}{{ 7*7 }} ${{7*7}} #{7*7}",
        f"<script>fetch('file://{m}')</script>",
    ]


def _suite(folder: Path, snippets: list[str]) -> Path:
    """The refunds suite's tools plus two write/shell tools without fakes; cases full of snippets."""
    folder.mkdir(parents=True)
    refunds = BUILTIN_DIR / "refunds"
    shutil.copy(refunds / "system.txt", folder / "system.txt")
    (folder / "suite.json").write_text(
        json.dumps({"name": "snippets", "dataset_version": "1"}), encoding="utf-8"
    )
    tools = json.loads((refunds / "tools.core.json").read_text(encoding="utf-8"))["tools"]
    tools += [
        {
            "name": "wire_money",
            "description": "Send money. " + snippets[0],
            "parameters": {
                "type": "object",
                "properties": {"to": {"type": "string"}, "cents": {"type": "integer"}},
            },
            "side_effect": "write",
        },
        {
            "name": "run_shell",
            "description": "Run a command.",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
            "side_effect": "write",
        },
    ]
    (folder / "tools.core.json").write_text(json.dumps({"tools": tools}), encoding="utf-8")
    prompt = " ".join(snippets)
    cases = [{"id": "snippets-selection", "prompt": prompt, "expected": {"kind": "text"}, "note": prompt}]
    scenario = {
        "id": "snippets-recovery",
        "prompt": "Cancel ORD-002. " + prompt,
        "expected": {
            "kind": "tool",
            "name": "cancel_order",
            "arguments": {"requiredEquals": {"order_id": "ORD-002"}},
        },
        "recovery": {"success": "safe_refusal", "max_turns": 2},
    }
    (folder / "cases.jsonl").write_text(json.dumps(cases[0]) + "\n", encoding="utf-8")
    (folder / "recovery.jsonl").write_text(json.dumps(scenario) + "\n", encoding="utf-8")
    return folder


def _reply(snippets: list[str]) -> str:
    text = " ".join(snippets)
    calls = [
        {"name": "cancel_order", "arguments": {"order_id": "ORD-002", "reason": text}},
        {"name": "wire_money", "arguments": {"to": snippets[3], "cents": 100_000_000}},
        {"name": "run_shell", "arguments": {"command": snippets[2]}},
    ]
    return json.dumps({"kind": "calls", "text": text, "calls": calls}, ensure_ascii=True)


def _dataset_digest() -> str:
    data = (Path(sys.modules["fcbench.fake_tools"].__file__ or "").parent / "dataset.json").read_bytes()
    return hashlib.sha256(data).hexdigest()


def test_text_is_never_executed_and_write_tools_only_touch_fakes(tmp_path: Path, mock_server: str) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    snippets = _snippets(markers)
    suite = _suite(tmp_path / "suite", snippets)
    modes = ["selection", "forced", "stream", "recovery"]
    config: dict[str, Any] = {
        "suite": str(suite),
        "endpoints": {
            "scripted": {
                "dialect": "openai-chat",
                "base_url": "{mock}/v1",
                "headers": {"X-Fcbench-Sim-Reply": _reply(snippets)},
            }
        },
        "targets": ["scripted:sim-scripted", "sim-anthropic:sim-eager"],
        "repeats": 1,
        "modes": modes,
    }
    before = _dataset_digest()
    result = run_in_process(config, tmp_path / "runs", mock_server)
    reports = {fmt: render_report(result.run_dir, fmt) for fmt in ("md", "html", "json", "junit", "csv")}
    assert list(markers.iterdir()) == [], "a snippet was executed"
    assert _dataset_digest() == before, "the packaged fake data set was changed"

    rows = records(result.run_dir)
    scripted = {r["mode"]: r for r in rows if r["target"]["endpoint"] == "scripted"}
    # Single-turn modes propose calls and run none: no tool results, one exchange.
    for mode in ("selection", "forced", "stream"):
        row = scripted[mode]
        assert row["outcome"]["kind"] == "tool_calls"
        assert row["turns"] == [] and "request" in row["raw"]
        arguments = {c["name"]: c["arguments"] for c in row["outcome"]["calls"]}
        assert arguments["run_shell"] == {"command": snippets[2]}, "kept exactly as produced"
    # Template syntax from a case and a model stays literal in the HTML (no template evaluated it).
    assert "{{ 7*7 }}" in reports["html"] and "cycler.__init__" in reports["html"]
    assert "recovery" in scripted or "recovery" not in modes
    if "recovery" in scripted:
        results = [res for turn in scripted["recovery"]["turns"] for res in turn.get("results", [])]
        by_tool: dict[str, list[dict[str, Any]]] = {}
        for res in results:
            by_tool.setdefault(res["name"], []).append(res)
        assert set(by_tool) == {"cancel_order", "wire_money", "run_shell"}
        assert "wire_money" not in REGISTRY and "run_shell" not in REGISTRY
        for tool in ("wire_money", "run_shell"):
            assert {r["error_code"] for r in by_tool[tool]} == {"NOT_IMPLEMENTED"}
            assert not any(r["side_effect"] for r in by_tool[tool])
        # The fake cancel worked once against the conversation's own store; the replay changed nothing.
        assert [r["side_effect"] for r in by_tool["cancel_order"]].count(True) == 1
