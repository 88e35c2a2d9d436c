"""Every output names each unsafe write call (tool with its arguments, case, target): the terminal
summary, markdown, github and JUnit (one ``<failure>`` per call in its testcase). The ``init``
scaffold on ``sim-eager`` is run by the real CLI against the embedded mock over HTTP."""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from cli_run import fcbench

from fcbench.report.gate import ARGUMENTS_PREVIEW, unsafe_write_lines, unsafe_writes
from fcbench.store.view import view_of

CALL = 'create_ticket in case clarify-01 (repeat {n}) with {{"priority":"high","title":"unknown"}}'
WHERE = "on sim-anthropic:sim-eager [selection]"


@pytest.fixture(scope="module")
def eager_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    root = tmp_path_factory.mktemp("unsafe")
    assert fcbench("init", "scaffold", cwd=root).returncode == 0
    args = ["run", "-c", "scaffold/fcbench.yaml", "-t", "sim-anthropic:sim-eager", "--mode", "selection"]
    proc = fcbench(*args, "--no-progress", "--out", "runs", cwd=root)
    (run_dir,) = (root / "runs").iterdir()
    return proc, run_dir


def test_the_run_exits_1_and_its_terminal_summary_names_each_unsafe_write(
    eager_run: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    proc, _ = eager_run
    assert proc.returncode == 1, proc.stdout + proc.stderr
    listed = [line for line in proc.stdout.splitlines() if line.startswith("unsafe write: ")]
    assert listed == [f"unsafe write: {CALL.format(n=n)} {WHERE}" for n in (1, 2, 3)]
    (gate,) = [line for line in proc.stdout.splitlines() if line.startswith("gate failed")]
    assert CALL.format(n=1) in gate


@pytest.mark.parametrize("fmt", ["md", "github"])
def test_markdown_and_github_list_each_unsafe_write(
    eager_run: tuple[subprocess.CompletedProcess[str], Path], fmt: str
) -> None:
    _, run_dir = eager_run
    proc = fcbench("report", str(run_dir), "--format", fmt)
    escaped = [
        f"{CALL.format(n=n)} {WHERE}".replace("_", "\\_").replace("[", "\\[").replace("]", "\\]")
        for n in (1, 2, 3)
    ]
    for line in escaped:
        assert line in proc.stdout, proc.stdout
    if fmt == "github":
        assert "### Unsafe writes" in proc.stdout


def test_junit_has_a_failure_per_unsafe_write_in_its_testcase(
    eager_run: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    _, run_dir = eager_run
    root = ET.fromstring(fcbench("report", str(run_dir), "--format", "junit").stdout)
    by_case = {
        case.get("name"): [f for f in case.findall("failure") if f.get("type") == "fcbench.unsafe_write"]
        for case in root.iter("testcase")
    }
    writes = by_case.pop("clarify-01 [selection]")
    assert [f.get("message") for f in writes] == [
        f"unsafe write: {CALL.format(n=n)} {WHERE}" for n in (1, 2, 3)
    ]
    assert 'arguments: {"priority":"high","title":"unknown"}' in (writes[0].text or "")
    assert not any(by_case.values())


def test_the_preview_is_redacted_cut_and_matched_per_call() -> None:
    secret = "sk-proj-" + "A1b2C3d4" * 6
    record = {
        "target": {"endpoint": "sim", "dialect": "openai-chat", "model": "m"},
        "case_id": "c1",
        "repeat": 0,
        "mode": "selection",
        "outcome": {
            "kind": "tool_calls",
            "calls": [
                {
                    "id": "1",
                    "name": "send",
                    "arguments": {"key": secret},
                    "raw_arguments": "",
                    "parse_error": None,
                },
                {
                    "id": "2",
                    "name": "send",
                    "arguments": {"body": "x" * 500},
                    "raw_arguments": "",
                    "parse_error": None,
                },
            ],
        },
        "verdict": {"unexpected_writes": ["send", "send"]},
    }
    first, second = unsafe_writes([view_of(record)])
    assert secret not in first.arguments and first.arguments.startswith('{"key":')
    assert len(second.arguments) == ARGUMENTS_PREVIEW and second.arguments.endswith("…")
    many = unsafe_write_lines([first] * 25, limit=20)
    assert len(many) == 21 and many[-1].startswith("5 more unsafe write call(s)")
