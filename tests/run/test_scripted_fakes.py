"""A user's own suite, its tools answered by scripted fakes (``fakes.json``), run against the mock
provider over real HTTP: a scripted error repaired, latency waited for, a write counted once
under ``duplicate_delivery``, and an unexpected write flagged in the verdict, metrics and report."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from fcbench.config import RunConfig
from fcbench.endpoints import RunningService
from fcbench.metrics import compute_metrics
from fcbench.mock.scripted import REPLY_HEADER
from fcbench.run import execute, prepare
from fcbench.run.plan import Planned
from fcbench.store.blobs import expand_blobs, load_blobs
from fcbench.store.records import RECORDS_FILE

TOOLS = [
    {
        "name": "get_invoice",
        "description": "Look up one invoice by its id.",
        "parameters": {
            "type": "object",
            "properties": {"invoice_id": {"type": "string", "pattern": "^INV-[0-9]+$"}},
            "required": ["invoice_id"],
            "additionalProperties": False,
        },
    },
    {
        "name": "send_invoice",
        "description": "Create and email an invoice to a customer.",
        "side_effect": "write",
        "parameters": {
            "type": "object",
            "properties": {"customer": {"type": "string"}, "amount": {"type": "number"}},
            "required": ["customer", "amount"],
            "additionalProperties": False,
        },
    },
]
LATENCY_MS = 400
FAKES = {
    "get_invoice": {
        "responses": [{"when": {"invoice_id": "INV-7"}, "result": {"invoice_id": "INV-7", "total": 120}}],
        "fail_on_call": [
            {"call": 1, "error": {"code": "TEMPORARILY_UNAVAILABLE", "message": "The ledger is busy; retry."}}
        ],
        "latency_ms": LATENCY_MS,
    },
    "send_invoice": {
        "responses": [{"when": {"customer": "acme", "amount": 120}, "result": {"invoice_id": "INV-9"}}],
    },
}
RECOVERY_CASES = [
    {
        "id": "rec-retry",
        "prompt": "Show me invoice INV-7.",
        "expected": {"kind": "tool", "name": "get_invoice", "arguments": {"invoice_id": "INV-7"}},
        "recovery": {"success": "repaired_call", "max_turns": 3},
    },
    {
        "id": "rec-send",
        "prompt": "Send acme an invoice for 120.",
        "expected": {
            "kind": "tool",
            "name": "send_invoice",
            "arguments": {"customer": "acme", "amount": 120},
        },
        "recovery": {"success": "repaired_call", "max_turns": 2},
    },
]
CASES = [
    {"id": "sel-explain", "prompt": "What does an invoice usually list?", "expected": {"kind": "text"}},
    {
        "id": "sel-read",
        "prompt": "Look up invoice INV-7.",
        "expected": {"kind": "tool", "name": "get_invoice", "arguments": {"invoice_id": "INV-7"}},
    },
]


def calls(*pairs: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "calls", "calls": [{"name": name, "arguments": args} for name, args in pairs]}


GET = ("get_invoice", {"invoice_id": "INV-7"})
SEND = ("send_invoice", {"customer": "acme", "amount": 120})
REPLIES: dict[str, list[dict[str, Any]]] = {
    # the model retries the same look-up after the scripted transient error
    "rec-retry": [calls(GET), calls(GET), {"kind": "text", "text": "Invoice INV-7 totals 120."}],
    "rec-send": [calls(SEND), {"kind": "text", "text": "Sent."}],
    # a write where the case expects an answer in text: an unexpected write
    "sel-explain": [calls(SEND)],
    "sel-read": [calls(GET)],
}


def write_suite(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "suite.json").write_text(json.dumps({"name": "billing", "dataset_version": "0.1.0"}))
    (folder / "system.txt").write_text("You are a billing assistant.\n")
    (folder / "tools.core.json").write_text(json.dumps({"tools": TOOLS}))
    (folder / "cases.jsonl").write_text("".join(json.dumps(c | {"tools": "core"}) + "\n" for c in CASES))
    (folder / "recovery.jsonl").write_text(
        "".join(json.dumps(c | {"tools": "core"}) + "\n" for c in RECOVERY_CASES)
    )
    (folder / "fakes.json").write_text(json.dumps(FAKES))
    return folder


def headers(planned: Planned, turn: int) -> Mapping[str, str]:
    script = REPLIES[planned.case.id]
    return {REPLY_HEADER: json.dumps(script[min(turn, len(script)) - 1])}


def run_suite(mock_server: str, root: Path, tool_faults: list[str]) -> tuple[Path, float]:
    suite = root / "suite" if (root / "suite").exists() else write_suite(root / "suite")
    config = RunConfig.model_validate(
        {
            "suite": str(suite),
            "targets": ["sim:sim-scripted"],
            "repeats": 1,
            "modes": ["selection", "recovery"],
            "max_retries": 0,
            "concurrency": 1,
            "tool_faults": tool_faults,
        }
    )
    spec = prepare(config, out_root=root / "runs")
    started = time.monotonic()
    done = asyncio.run(execute(spec, services={"mock": RunningService(mock_server)}, headers=headers))
    return done.run_dir, time.monotonic() - started


def without_evidence(content: dict[str, Any]) -> dict[str, Any]:
    """A success envelope without its ``evidence`` (whose ``retrieved_at`` is the time it ran)."""
    return {key: value for key, value in content.items() if key != "evidence"}


def records(run_dir: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in (run_dir / RECORDS_FILE).read_text().splitlines()]
    return {row["case_id"]: row for row in rows}


@pytest.fixture(scope="module")
def plain(mock_server: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, float]:
    return run_suite(mock_server, tmp_path_factory.mktemp("plain"), [])


@pytest.fixture(scope="module")
def duplicated(mock_server: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, float]:
    return run_suite(mock_server, tmp_path_factory.mktemp("duplicated"), ["duplicate_delivery"])


def test_a_scripted_error_is_repaired_by_retrying(plain: tuple[Path, float]) -> None:
    run_dir, elapsed = plain
    row = records(run_dir)["rec-retry"]
    first, second = (turn["results"][0] for turn in row["turns"][:2])
    assert first["source"] == "fake" and first["error_code"] == "TEMPORARILY_UNAVAILABLE"
    assert first["content"]["error"]["retryable"] is True
    assert without_evidence(second["content"]) == {
        "ok": True,
        "result": {"invoice_id": "INV-7", "total": 120},
    }
    assert second["content"]["evidence"]["source"] == "scripted:get_invoice"
    assert "deliveries" not in first  # one delivery per call without a tool fault
    recovery = row["verdict"]["recovery"]
    assert recovery["outcome"] == "repaired" and recovery["success"] is True
    assert row["verdict"]["passed"] is True
    assert recovery["side_effects"] == 0  # a read tool makes none
    # the scripted latency is a real wait after each execution: get_invoice ran twice in rec-retry
    # (single-turn modes execute no call)
    assert elapsed >= 2 * LATENCY_MS / 1000


def test_a_scripted_write_counts_one_side_effect(plain: tuple[Path, float]) -> None:
    run_dir, _ = plain
    row = records(run_dir)["rec-send"]
    result = row["turns"][0]["results"][0]
    assert without_evidence(result["content"]) == {"ok": True, "result": {"invoice_id": "INV-9"}}
    assert result["side_effect"] is True and result["replayed"] is False
    assert row["verdict"]["recovery"]["side_effects"] == 1
    assert row["verdict"]["recovery"]["replayed"] == 0
    metrics = compute_metrics(run_dir)
    recovery = metrics.find("sim:sim-scripted", "recovery")
    assert recovery is not None and recovery.side_effects == 1 and recovery.replayed_writes == 0
    assert recovery.recovery_success.n == recovery.recovery_success.d == 2


def test_duplicate_delivery_executes_a_write_once(duplicated: tuple[Path, float]) -> None:
    run_dir, _ = duplicated
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["tool_faults"] == ["duplicate_delivery"]
    row = records(run_dir)["rec-send"]
    result = row["turns"][0]["results"][0]
    first, second = result["deliveries"]
    assert first | {"content": without_evidence(first["content"])} == {
        "content": {"ok": True, "result": {"invoice_id": "INV-9"}},
        "side_effect": True,
        "replayed": False,
    }
    assert second == {"content": first["content"], "side_effect": False, "replayed": True}
    assert result["content"] == second["content"]  # the model sees the second delivery's result
    assert result["side_effect"] is True and result["replayed"] is True
    recovery = row["verdict"]["recovery"]
    assert (recovery["side_effects"], recovery["replayed"]) == (1, 1)
    assert row["verdict"]["passed"] is True
    metrics = compute_metrics(run_dir).find("sim:sim-scripted", "recovery")
    assert metrics is not None and metrics.side_effects == 1 and metrics.replayed_writes == 1


def test_duplicate_delivery_redelivers_a_read_as_the_same_call(duplicated: tuple[Path, float]) -> None:
    run_dir, _ = duplicated
    row = records(run_dir)["rec-retry"]
    first_turn = row["turns"][0]["results"][0]
    # the redelivery is the same (first) call of the tool: fail_on_call answers it again
    assert [d["content"]["error"]["code"] for d in first_turn["deliveries"]] == [
        "TEMPORARILY_UNAVAILABLE"
    ] * 2
    assert not any(d["replayed"] for d in first_turn["deliveries"])  # reads are executed again
    # exactly one result per call went back to the model (a valid tool-result turn in every dialect)
    second_request = expand_blobs(row["raw"], load_blobs(run_dir))["exchanges"][1]["request"]["body"]
    assert json.dumps(second_request).count("The ledger is busy") == 1
    assert row["turns"][1]["results"][0]["content"]["ok"] is True
    assert row["verdict"]["recovery"]["outcome"] == "repaired"
    assert row["verdict"]["recovery"]["replayed"] == 0


def test_the_config_hash_pins_the_tool_faults(
    plain: tuple[Path, float], duplicated: tuple[Path, float]
) -> None:
    hashes = {json.loads((d / "manifest.json").read_text())["config_hash"] for d, _ in (plain, duplicated)}
    assert len(hashes) == 2
    plain_manifest = json.loads((plain[0] / "manifest.json").read_text())
    assert plain_manifest["tool_faults"] == []
    assert RunConfig().hash() == RunConfig(tool_faults=[]).hash()


def test_an_unexpected_write_is_flagged_in_verdict_metrics_and_report(plain: tuple[Path, float]) -> None:
    run_dir, _ = plain
    rows = records(run_dir)
    flagged = rows["sel-explain"]["verdict"]
    assert flagged["decision"] == "unexpected_call"
    assert flagged["unexpected_writes"] == ["send_invoice"]
    assert "unexpected_writes" not in rows["sel-read"]["verdict"]  # a right call: nothing to flag
    selection = compute_metrics(run_dir).find("sim:sim-scripted", "selection")
    assert selection is not None
    assert (selection.unexpected_writes.n, selection.unexpected_writes.d) == (1, 2)
    assert selection.unexpected_write_calls == 1
    report = [sys.executable, "-m", "fcbench", "report", str(run_dir), "--format", "md"]
    proc = subprocess.run(report, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    section = proc.stdout.split("## Unexpected write calls and side effects", 1)[1].split("\n## ", 1)[0]
    assert "**Severe:**" in section
    row = next(line for line in section.splitlines() if "| selection |" in line)
    assert "**50.0% (1/2)" in row
