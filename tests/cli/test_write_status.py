"""Write status survives every import: the ``init`` scaffold's tools pasted in OpenAI format with a
``writes:`` list fail the gate on the same unsafe write; without it, ``run`` and ``cases validate``
warn that a read tool looks like a write; ``import logs`` and ``cases review`` ask about it
(real subprocesses, the embedded mock provider over HTTP)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from cli_run import fcbench

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
GATE_LINE = "gate failed: sim-anthropic:sim-eager [selection]: 3 unsafe write call(s)"
WARNING = "warning: tool set core: create_ticket is marked read but looks like a write ('create')"


@pytest.fixture(scope="module")
def pasted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scaffold with its tools pasted as an OpenAI Chat list: ``writes.yaml`` lists the write
    tool, ``plain.yaml`` does not."""
    root = tmp_path_factory.mktemp("write-status")
    assert fcbench("init", "scaffold", cwd=root).returncode == 0
    folder = root / "scaffold"
    suite = yaml.safe_load((folder / "suite.yaml").read_text(encoding="utf-8"))
    suite["tools"] = [
        {"type": "function", "function": {k: tool[k] for k in ("name", "description", "parameters")}}
        for tool in suite["tools"]
    ]
    (folder / "plain.yaml").write_text(yaml.safe_dump(suite, sort_keys=False), encoding="utf-8")
    suite["writes"] = ["create_ticket"]
    (folder / "writes.yaml").write_text(yaml.safe_dump(suite, sort_keys=False), encoding="utf-8")
    return folder


def run(folder: Path, suite: str) -> tuple[int, str, str]:
    args = ["run", "-c", str(folder / "fcbench.yaml"), "--suite", str(folder / suite), "--mode", "selection"]
    proc = fcbench(*args, "--no-progress", "--out", "runs", cwd=folder.parent)
    return proc.returncode, proc.stdout, proc.stderr


def test_pasted_openai_tools_with_writes_fail_the_gate_like_the_canonical_ones(pasted: Path) -> None:
    code, out, err = run(pasted, "writes.yaml")
    assert code == 1, out + err
    (failed,) = [line for line in out.splitlines() if line.startswith("gate failed")]
    assert failed.startswith(GATE_LINE) and "create_ticket in case clarify-01 (repeat 1)" in failed
    assert "looks like a write" not in err
    same_code, same_out, _ = run(pasted, "suite.yaml")
    assert same_code == 1 and [line for line in same_out.splitlines() if line.startswith(GATE_LINE)]


def test_pasted_openai_tools_without_writes_warn_and_count_no_write(pasted: Path) -> None:
    code, out, err = run(pasted, "plain.yaml")
    assert code == 0, out + err
    assert WARNING in err
    assert "gate failed" not in out
    checked = fcbench("cases", "validate", str(pasted / "plain.yaml"))
    assert checked.returncode == 0, checked.stderr
    assert WARNING in checked.stderr
    quiet = fcbench("cases", "validate", str(pasted / "writes.yaml"))
    assert quiet.returncode == 0 and "looks like a write" not in quiet.stderr


def test_import_logs_and_cases_review_ask_whether_a_logged_tool_writes(tmp_path: Path) -> None:
    logs = tmp_path / "prod.jsonl"
    text = (LOGS / "openai-chat.constructed.jsonl").read_text(encoding="utf-8")
    logs.write_text(text.replace("search_orders", "cancel_orders"), encoding="utf-8")
    out = tmp_path / "imported"
    imported = fcbench("import", "logs", str(logs), "--dialect", "openai-chat", "--out", str(out))
    assert imported.returncode == 0, imported.stderr
    assert "warning: tool set core: cancel_orders is marked read but looks like a write" in imported.stdout
    review = fcbench("cases", "review", str(out))
    assert review.returncode == 0, review.stderr
    assert "does it write? tool set core: cancel_orders is marked read" in review.stdout
    assert "lookup_order is marked read" not in review.stdout
    asked = json.loads(fcbench("cases", "review", str(out), "--json").stdout)["writes"]
    assert [q.split(" is marked")[0] for q in asked] == ["tool set core: cancel_orders"]
    info = json.loads((out / "suite.json").read_text())
    (out / "suite.json").write_text(json.dumps({**info, "writes": ["cancel_orders"]}))
    answered = fcbench("cases", "review", str(out))
    assert answered.returncode == 0 and "does it write?" not in answered.stdout
