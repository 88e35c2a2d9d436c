"""The three conversation limits of recovery mode (calls per turn, result size, deadline) and the
evidence of tool results, on a user's suite with scripted fakes run against the mock provider over
real HTTP: each limit hit is enforced, recorded (turn results, ``verdict.recovery.limits_hit``),
counted in the metrics and shown by ``fcbench report`` and the terminal summary."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from fcbench.config import RunConfig
from fcbench.endpoints import RunningService
from fcbench.fake_tools import result_bytes
from fcbench.metrics import compute_metrics
from fcbench.mock.scripted import REPLY_HEADER
from fcbench.report.terminal import print_summary
from fcbench.run import execute, prepare
from fcbench.run.plan import Planned
from fcbench.store.blobs import expand_blobs, load_blobs
from fcbench.store.records import RECORDS_FILE, Record
from fcbench.suite.models import Case, RecoverySpec


def tool(name: str, description: str, write: bool = False, **properties: str) -> dict[str, Any]:
    """A tool whose arguments are all required, each of the JSON type given."""
    schema = {
        "type": "object",
        "properties": {key: {"type": kind} for key, kind in properties.items()},
        "required": list(properties),
        "additionalProperties": False,
    }
    return {"name": name, "description": description, "parameters": schema} | (
        {"side_effect": "write"} if write else {}
    )


TOOLS = [
    tool("get_invoice", "Look up one invoice by its id.", invoice_id="string"),
    tool("send_invoice", "Create and email an invoice.", write=True, customer="string", amount="number"),
    tool("export_ledger", "Export the whole ledger."),
    tool("slow_report", "Build the yearly report (slow)."),
]
LEDGER_LINES = 1200
"""Ledger rows of the export: about 22 kB of canonical JSON, over the default 16 KiB."""
SLOW_MS = 600
DEADLINE_S = 0.3
FAKES = {
    "get_invoice": {
        "responses": [
            {"when": {"invoice_id": "INV-7"}, "result": {"invoice_id": "INV-7", "total": 120}},
            {"when": {"invoice_id": "INV-8"}, "result": {"invoice_id": "INV-8", "total": 80}},
        ],
        "evidence_source": "billing-ledger",
    },
    "send_invoice": {"default": {"result": {"invoice_id": "INV-9"}}},
    "export_ledger": {
        "default": {"result": {"rows": [f"row {i:05d}: paid 12.00 EUR" for i in range(LEDGER_LINES)]}}
    },
    "slow_report": {"default": {"result": {"ready": True}}, "latency_ms": SLOW_MS},
}
SEND = {"customer": "acme", "amount": 120}
RECOVERY_CASES = [
    {
        "id": "lim-calls",
        "prompt": "Check INV-7 and INV-8, then send acme an invoice for 120.",
        "expected": {
            "kind": "tools",
            "calls": [
                {"name": "get_invoice", "arguments": {"invoice_id": "INV-7"}},
                {"name": "get_invoice", "arguments": {"invoice_id": "INV-8"}},
                {"name": "send_invoice", "arguments": SEND},
            ],
        },
        "recovery": {
            "success": "repaired_call",
            "expect_call": {"name": "send_invoice", "arguments": SEND},
            "max_turns": 3,
            "max_calls_per_turn": 2,
        },
    },
    {
        "id": "lim-size",
        "prompt": "Export the ledger and tell me how many rows it has.",
        "expected": {"kind": "tool", "name": "export_ledger", "arguments": {}},
        "recovery": {"success": "final_answer", "answer_mentions": ["rows"], "max_turns": 2},
    },
    {
        "id": "lim-deadline",
        "prompt": "Build the yearly report, then summarise it.",
        "expected": {"kind": "tool", "name": "slow_report", "arguments": {}},
        "recovery": {"success": "final_answer", "max_turns": 3, "deadline_s": DEADLINE_S},
    },
    {
        "id": "lim-none",
        "prompt": "What does invoice INV-7 total?",
        "expected": {"kind": "tool", "name": "get_invoice", "arguments": {"invoice_id": "INV-7"}},
        "recovery": {"success": "final_answer", "answer_mentions": ["120"], "max_turns": 2},
    },
]


def calls(*pairs: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "calls", "calls": [{"name": name, "arguments": args} for name, args in pairs]}


REPLIES: dict[str, list[dict[str, Any]]] = {
    # three calls where two are executed: the write is cut, then made again in the next turn
    "lim-calls": [
        calls(
            ("get_invoice", {"invoice_id": "INV-7"}),
            ("get_invoice", {"invoice_id": "INV-8"}),
            ("send_invoice", SEND),
        ),
        calls(("send_invoice", SEND)),
        {"kind": "text", "text": "Sent invoice INV-9."},
    ],
    "lim-size": [calls(("export_ledger", {})), {"kind": "text", "text": "The ledger has 1200 rows."}],
    "lim-deadline": [calls(("slow_report", {})), {"kind": "text", "text": "The report is ready."}],
    "lim-none": [calls(("get_invoice", {"invoice_id": "INV-7"})), {"kind": "text", "text": "It totals 120."}],
}


def write_suite(folder: Path) -> Path:
    """A folder suite of the tools, the recovery cases (and one selection case) and the fakes."""
    selection = {"id": "sel-read", "prompt": "Look up invoice INV-7.", "tools": "core"}
    selection["expected"] = {"kind": "tool", "name": "get_invoice", "arguments": {"invoice_id": "INV-7"}}
    files = {
        "suite.json": json.dumps({"name": "billing", "dataset_version": "0.1.0"}),
        "system.txt": "You are a billing assistant.\n",
        "tools.core.json": json.dumps({"tools": TOOLS}),
        "cases.jsonl": json.dumps(selection) + "\n",
        "recovery.jsonl": "".join(json.dumps(c | {"tools": "core"}) + "\n" for c in RECOVERY_CASES),
        "fakes.json": json.dumps(FAKES),
    }
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def headers(planned: Planned, turn: int) -> Mapping[str, str]:
    script = REPLIES[planned.case.id]
    return {REPLY_HEADER: json.dumps(script[min(turn, len(script)) - 1])}


def run_suite(mock_server: str, root: Path, cases: list[str] | None = None) -> Path:
    """Run the recovery cases (all, or ``cases``) of the suite once; the run directory."""
    config = RunConfig.model_validate(
        {
            "suite": str(write_suite(root / "suite")),
            "targets": ["sim:sim-scripted"],
            "repeats": 1,
            "modes": ["recovery"],
            "cases": cases or [],
            "max_retries": 0,
            "concurrency": 1,
        }
    )
    spec = prepare(config, out_root=root / "runs")
    done = asyncio.run(execute(spec, services={"mock": RunningService(mock_server)}, headers=headers))
    return done.run_dir


@pytest.fixture(scope="module")
def run_dir(mock_server: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_suite(mock_server, tmp_path_factory.mktemp("limits"))


def records(run_dir: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in (run_dir / RECORDS_FILE).read_text().splitlines()]
    return {row["case_id"]: row for row in rows}


def test_the_limits_default_on_every_scenario() -> None:
    spec = RecoverySpec()
    assert (spec.max_calls_per_turn, spec.max_result_bytes, spec.deadline_s) == (8, 16 * 1024, 120.0)


def test_calls_beyond_the_turn_limit_are_not_executed(run_dir: Path) -> None:
    row = records(run_dir)["lim-calls"]
    first = row["turns"][0]["results"]
    assert [r["source"] for r in first] == ["fake", "fake", "limit"]
    cut = first[2]
    assert cut["name"] == "send_invoice" and cut["error_code"] == "LIMIT_EXCEEDED" and cut["is_error"]
    assert cut["content"]["error"]["retryable"] is True and cut["side_effect"] is False
    recovery = row["verdict"]["recovery"]
    # only the call made again in turn 2 was executed: one side effect, not two
    assert recovery["side_effects"] == 1 and row["turns"][1]["results"][0]["side_effect"] is True
    assert recovery["limits_hit"] == [
        {"limit": "max_calls_per_turn", "turn": 1, "calls": [cut["call_id"]], "value": 3, "bound": 2}
    ]
    assert recovery["outcome"] == "repaired" and row["verdict"]["passed"] is True
    # the model was told: exactly one result per call, the cut one saying why
    second_request = expand_blobs(row["raw"], load_blobs(run_dir))["exchanges"][1]["request"]["body"]
    assert json.dumps(second_request).count("LIMIT_EXCEEDED") == 1


def test_a_result_over_the_size_limit_is_sent_truncated(run_dir: Path) -> None:
    row = records(run_dir)["lim-size"]
    result = row["turns"][0]["results"][0]
    content = result["content"]
    assert content["ok"] is True and content["truncated"] is True
    assert content["max_result_bytes"] == 16 * 1024
    assert result["truncated_from_bytes"] == content["original_bytes"] > 16 * 1024
    assert result_bytes(content) <= 16 * 1024
    assert content["partial"].startswith('{"evidence":{"retrieved_at":')  # canonical JSON, sorted keys
    assert content["evidence"]["source"] == "scripted:export_ledger"
    assert "result" not in content  # the rows themselves are only in the partial text
    recovery = row["verdict"]["recovery"]
    assert recovery["limits_hit"] == [
        {
            "limit": "max_result_bytes",
            "turn": 1,
            "calls": [result["call_id"]],
            "value": content["original_bytes"],
            "bound": 16 * 1024,
        }
    ]
    assert recovery["outcome"] == "completed"
    # what went over the wire is the truncation envelope
    request = expand_blobs(row["raw"], load_blobs(run_dir))["exchanges"][1]["request"]["body"]
    assert '\\"truncated\\":true' in json.dumps(request)


def test_the_deadline_stops_the_conversation(run_dir: Path) -> None:
    row = records(run_dir)["lim-deadline"]
    assert len(row["turns"]) == 1 == len(row["raw"]["exchanges"])  # turn 2 was never sent
    recovery = row["verdict"]["recovery"]
    assert recovery["outcome"] == "deadline" and recovery["success"] is False
    assert row["verdict"]["passed"] is False
    (hit,) = recovery["limits_hit"]
    assert (hit["limit"], hit["turn"], hit["calls"], hit["bound"]) == ("deadline", 1, [], DEADLINE_S)
    assert hit["value"] >= SLOW_MS / 1000  # the slow tool's latency was waited for
    assert "deadline" in recovery["reasons"][0]


def test_a_conversation_within_its_limits_records_none(run_dir: Path) -> None:
    row = records(run_dir)["lim-none"]
    assert row["verdict"]["recovery"]["outcome"] == "completed"
    assert "limits_hit" not in row["verdict"]["recovery"]


def test_limit_hits_are_counted_and_reported(run_dir: Path) -> None:
    metrics = compute_metrics(run_dir).find("sim:sim-scripted", "recovery")
    assert metrics is not None
    assert metrics.limit_hits == {"deadline": 1, "max_calls_per_turn": 1, "max_result_bytes": 1}
    assert metrics.recovery_outcomes["deadline"] == 1
    report = [sys.executable, "-m", "fcbench", "report", str(run_dir), "--format", "md"]
    proc = subprocess.run(report, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    section = proc.stdout.split("## Conversation limits hit", 1)[1].split("\n## ", 1)[0]
    assert r"| Target | Mode | max\_calls\_per\_turn | max\_result\_bytes | deadline |" in section
    assert "| sim:sim-scripted | recovery | 1 | 1 | 1 |" in section
    out = io.StringIO()
    print_summary(Console(file=out, width=200, emoji=False, highlight=False), run_dir)
    assert (
        "conversation limits hit sim:sim-scripted [recovery]: deadline x1, max_calls_per_turn x1, "
        "max_result_bytes x1" in out.getvalue()
    )


def test_a_report_without_limit_hits_has_no_limits_section(
    mock_server: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    run = run_suite(mock_server, tmp_path_factory.mktemp("no-limits"), cases=["lim-none"])
    assert compute_metrics(run).targets[0].limit_hits == {}
    report = [sys.executable, "-m", "fcbench", "report", str(run), "--format", "md"]
    proc = subprocess.run(report, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "## Conversation limits hit" not in proc.stdout


def test_scripted_results_in_the_transcript_carry_their_evidence(run_dir: Path) -> None:
    results = records(run_dir)["lim-calls"]["turns"][0]["results"]
    sources = [r["content"].get("evidence", {}).get("source") for r in results]
    assert sources == ["billing-ledger", "billing-ledger", None]  # the cut call retrieved nothing
    for result in results[:2]:
        stamp = result["content"]["evidence"]["retrieved_at"]
        assert stamp.endswith("Z") and datetime.fromisoformat(stamp).utcoffset().total_seconds() == 0
    sent = records(run_dir)["lim-calls"]["turns"][1]["results"][0]["content"]
    assert sent["evidence"]["source"] == "scripted:send_invoice"


def test_builtin_results_in_the_transcript_carry_their_evidence(observe: Callable[..., Record]) -> None:
    case = Case.model_validate(
        {
            "id": "t-evidence",
            "prompt": "Where is order ORD-104821?",
            "tools": "core",
            "expected": {"kind": "tool", "name": "lookup_order", "arguments": {"order_id": "ORD-104821"}},
            "recovery": {"success": "final_answer", "max_turns": 2},
        }
    )
    script = [
        calls(("lookup_order", {"order_id": "ORD-104821"}), ("lookup_order", {"order_id": "bad"})),
        {"kind": "text", "text": "It has shipped."},
    ]
    record = observe("sim", "sim-scripted", case, script=script)
    found, failed = record.turns[0].results
    assert found["content"]["evidence"]["source"] == "fake:lookup_order"
    assert found["content"]["result"]["order"]["order_id"] == "ORD-104821"
    assert failed["is_error"] and "evidence" not in failed["content"]  # a failure retrieved nothing
    # the model received the evidence with the result
    body = json.dumps(record.raw["exchanges"][1]["request"]["body"])
    assert "fake:lookup_order" in body and "retrieved_at" in body
