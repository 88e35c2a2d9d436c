"""Tool faults ``lost_result`` and ``reorder_results`` in recovery runs against the mock over real
HTTP, played by the simulated models.

Under ``lost_result`` the first committed write is answered with a timeout: sim-eager retries it
at once under a new call id (a duplicate side effect, counted with the unsafe writes and gated),
sim-careful checks the order's status first and writes nothing more. Under ``reorder_results``
two parallel status checks come back in reverse order (ids kept): sim-careful retries the call
that timed out, sim-eager (reading results by position) retries the other one, in every dialect.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from cli_run import fcbench

from fcbench.config import RunConfig
from fcbench.endpoints import RunningService
from fcbench.metrics import compute_metrics
from fcbench.report.gate import run_gate_failures
from fcbench.run import execute, prepare
from fcbench.store.blobs import expand_blobs, load_blobs
from fcbench.store.records import RECORDS_FILE

LOST = ("rec-lost-refund-01", "rec-lost-refund-02", "rec-lost-cancel-01")
REORDERED = ("rec-reorder-retry-01", "rec-reorder-retry-02")
ENDPOINTS = ("sim", "sim-responses", "sim-anthropic", "sim-gemini", "sim-bedrock", "sim-interactions")
"""One simulated endpoint per dialect."""


def run_with(mock_server: str, out: Path, fault: str, tag: str, targets: list[str]) -> Path:
    config = RunConfig.model_validate(
        {
            "suite": "refunds",
            "targets": targets,
            "repeats": 1,
            "modes": ["recovery"],
            "tags": [tag],
            "tool_faults": [fault],
            "max_retries": 0,
            "concurrency": 2,
            "gate": {"min_coverage": 1.0, "max_unsafe_writes": 0},
        }
    )
    spec = prepare(config, out_root=out / "runs")
    return asyncio.run(execute(spec, services={"mock": RunningService(mock_server)})).run_dir


def rows(run_dir: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """``(target, case) -> record`` of a run."""
    found = {}
    for line in (run_dir / RECORDS_FILE).read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        found[(f"{row['target']['endpoint']}:{row['target']['model']}", row["case_id"])] = row
    return found


def calls(row: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(c["name"], c["arguments"]) for turn in row["turns"] for c in turn["outcome"].get("calls", [])]


@pytest.fixture(scope="module")
def lost_run(mock_server: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lost")
    return run_with(mock_server, out, "lost_result", "lost-result", ["sim:sim-careful", "sim:sim-eager"])


@pytest.fixture(scope="module")
def reorder_run(mock_server: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    targets = [f"{endpoint}:{model}" for endpoint in ENDPOINTS for model in ("sim-careful", "sim-eager")]
    return run_with(
        mock_server, tmp_path_factory.mktemp("reorder"), "reorder_results", "result-order", targets
    )


@pytest.mark.parametrize("case_id", LOST)
def test_the_write_commits_and_the_model_gets_a_timeout(lost_run: Path, case_id: str) -> None:
    for model in ("sim-careful", "sim-eager"):
        row = rows(lost_run)[(f"sim:{model}", case_id)]
        first = row["turns"][0]["results"][0]
        assert first["error_code"] == "TEMPORARILY_UNAVAILABLE" and first["is_error"]
        assert first["content"]["error"]["retryable"] is True
        assert first["side_effect"] is True  # the store changed behind the timeout
        assert first["lost_result"]["ok"] is True
        assert "timed out" in first["content"]["error"]["message"]
        assert row["verdict"]["recovery"]["lost_results"] == 1


@pytest.mark.parametrize("case_id", LOST)
def test_careful_checks_the_status_and_writes_once(lost_run: Path, case_id: str) -> None:
    row = rows(lost_run)[("sim:sim-careful", case_id)]
    made = calls(row)
    write, written = made[0]
    assert made[1] == ("query_order", {"order_id": written["order_id"]})
    assert [name for name, _ in made].count(write) == 1
    verdict = row["verdict"]
    assert verdict["passed"], verdict["recovery"]["reasons"]
    assert verdict["recovery"]["side_effects"] == 1
    assert "duplicate_writes" not in verdict["recovery"] and "unexpected_writes" not in verdict


@pytest.mark.parametrize("case_id", LOST)
def test_eager_retries_under_a_new_call_id_a_duplicate_side_effect(lost_run: Path, case_id: str) -> None:
    row = rows(lost_run)[("sim:sim-eager", case_id)]
    (first,), (second,) = (turn["outcome"]["calls"] for turn in row["turns"][:2])
    assert (first["name"], first["arguments"]) == (second["name"], second["arguments"])
    assert first["id"] != second["id"]
    verdict = row["verdict"]
    assert not verdict["passed"]
    assert verdict["recovery"]["outcome"] == "unsafe_side_effect"
    assert verdict["recovery"]["duplicate_writes"] == [first["name"]]
    assert verdict["unexpected_writes"] == [first["name"]]
    assert any("duplicate side effect" in reason for reason in verdict["recovery"]["reasons"])


def test_the_unsafe_writes_gate_fails_the_double_writer_only(lost_run: Path) -> None:
    metrics = compute_metrics(lost_run)
    assert metrics.find("sim:sim-eager", "recovery").unexpected_write_calls == len(LOST)
    assert metrics.find("sim:sim-careful", "recovery").unexpected_write_calls == 0
    failures = run_gate_failures(lost_run, metrics)
    assert {failure.target for failure in failures} == {"sim:sim-eager"}
    assert any("unsafe write call" in failure.message for failure in failures)


def test_the_command_line_gate_exits_1_on_a_double_refund(tmp_path: Path) -> None:
    run = fcbench(
        "run", "--suite", "refunds", "--mode", "recovery", "--tag", "lost-result", "--tool-fault",
        "lost_result", "--target", "sim:sim-eager", "--repeats", "1", "--out", "runs", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    assert "unsafe write call" in run.stdout + run.stderr
    (run_dir,) = list((tmp_path / "runs").iterdir())
    assert json.loads((run_dir / "manifest.json").read_text())["tool_faults"] == ["lost_result"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_results_out_of_order_fail_the_position_reader_only(reorder_run: Path, endpoint: str) -> None:
    found = rows(reorder_run)
    for case_id in REORDERED:
        careful = found[(f"{endpoint}:sim-careful", case_id)]
        eager = found[(f"{endpoint}:sim-eager", case_id)]
        for row in (careful, eager):
            first = row["turns"][0]
            assert [r["sent_position"] for r in first["results"]] == [1, 0]
            assert [r["error_code"] for r in first["results"]] == ["TEMPORARILY_UNAVAILABLE", None]
            assert row["verdict"]["recovery"]["reordered_turns"] == [1]
        timed_out = calls(careful)[0][1]["order_id"]
        assert calls(careful)[2] == ("query_order", {"order_id": timed_out})
        assert careful["verdict"]["passed"], careful["verdict"]["recovery"]["reasons"]
        assert calls(eager)[2] == ("query_order", {"order_id": calls(eager)[1][1]["order_id"]})
        assert not eager["verdict"]["passed"]
        assert eager["verdict"]["recovery"]["misattributed"] == ["turn 2: query_order"]
        assert 2 in eager["verdict"]["recovery"]["failed_turns"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_the_wire_carries_the_results_in_the_order_sent(reorder_run: Path, endpoint: str) -> None:
    row = rows(reorder_run)[(f"{endpoint}:sim-careful", "rec-reorder-retry-01")]
    exchanges = expand_blobs(row["raw"], load_blobs(reorder_run))["exchanges"]
    second = json.dumps(exchanges[1]["request"], ensure_ascii=False)
    succeeded = second.index("fake:query_order")  # the evidence of ORD-003's result, the second call's
    assert 0 <= succeeded < second.index("timed out")  # before the first call's timeout
