"""Re-grading recorded observations under another profile, and listing where profiles disagree."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fcbench.bfcl.convert import ImportReport
from fcbench.errors import CaseError, ConfigError, RunStateError
from fcbench.grading.regrade import disagreements, regrader
from fcbench.store.records import Manifest, write_manifest
from fcbench.store.view import regraded, run_views, view_of
from fcbench.suite.loader import Suite, load_suite

Imported = Callable[[str], tuple[Path, ImportReport]]


@pytest.fixture
def suite(imported: Imported) -> Suite:
    return load_suite(imported("simple_python")[0])


def _record(seq: int, case_id: str, outcome: dict[str, Any], **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "run_id": "run-1",
        "seq": seq,
        "started_at": "2026-01-01T00:00:00.000+00:00",
        "dataset_version": "bfcl-v4+00000000",
        "target": {"endpoint": "sim", "dialect": "openai-chat", "model": "sim-careful"},
        "case_id": case_id,
        "case": {"category": "normal", "tags": ["bfcl"], "expected_kind": "tool", "prompt": ""},
        "repeat": 0,
        "mode": "selection",
        "outcome": outcome,
        "anomalies": [],
        "verdict": {"passed": None, "decision": "placeholder"},
    }
    record.update(extra)
    return record


def _calls(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    call = {"id": "c0", "name": name, "arguments": arguments, "raw_arguments": json.dumps(arguments)}
    return {"kind": "tool_calls", "calls": [call]}


def _records() -> list[dict[str, Any]]:
    return [
        # simple_python_0: base 10, height 5, unit optional ("units")
        _record(0, "simple_python_0", _calls("calculate_triangle_area", {"base": 10, "height": 5})),
        _record(
            1,
            "simple_python_0",
            _calls("calculate_triangle_area", {"base": 10, "height": 5, "unit": "Units"}),
        ),
        _record(
            2,
            "simple_python_1",
            _calls("math_factorial", {"number": 5}),
            anomalies=[{"code": "finish_reason_mismatch", "detail": "stop"}],
        ),
        _record(
            3, "simple_python_1", {"kind": "provider_error", "code": "rate_limited", "message": "slow down"}
        ),
        _record(
            4, "simple_python_1", {"kind": "text", "text": "120"}, mode="recovery", verdict={"passed": True}
        ),
        _record(5, "simple_python_1", _calls("math_factorial", {"number": 5.0})),
    ]


def regrade_records(records: list[dict[str, Any]], suite: Suite, profile: str) -> list[dict[str, Any]]:
    """The records with their verdicts re-graded, read back as dicts."""
    views = regraded([view_of(r) for r in records], suite, profile)
    return [{**r, "verdict": v.verdict_data()} for r, v in zip(records, views, strict=True)]


def observations(run_dir: Path) -> list[Any]:
    return [view.observation() for view in run_views(run_dir)]


def test_regrade_replaces_verdicts(suite: Suite) -> None:
    records = _records()
    strict = regrade_records(records, suite, "strict")
    bfcl = regrade_records(records, suite, "bfcl")
    assert [r["seq"] for r in bfcl] == [0, 1, 2, 3, 4, 5]
    assert records[0]["verdict"]["decision"] == "placeholder"  # inputs are not modified
    assert [r["verdict"]["passed"] for r in strict] == [True, False, True, False, True, True]
    assert [r["verdict"]["passed"] for r in bfcl] == [True, True, True, False, True, False]
    assert bfcl[2]["verdict"]["anomalies"] == ["finish_reason_mismatch"]  # the adapter's anomalies are kept
    assert bfcl[2]["anomalies"] == records[2]["anomalies"]
    assert strict[3]["verdict"]["decision"] == bfcl[3]["verdict"]["decision"] == "not_scored"
    assert bfcl[4]["verdict"] == {"passed": True}  # multi-turn records keep their own verdict
    assert bfcl[5]["verdict"]["wrong"][0]["key"] == "number"  # BFCL: a float is not an int


def test_regrade_errors(suite: Suite) -> None:
    with pytest.raises(ConfigError, match="unknown grading profile"):
        regrader(suite, "lenient")
    missing = _record(0, "no_such_case", _calls("math_factorial", {"number": 5}))
    with pytest.raises(CaseError, match="no_such_case"):
        regrade_records([missing], suite, "bfcl")


def _run_dir(tmp_path: Path, suite: Suite, records: list[dict[str, Any]]) -> Path:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    manifest = Manifest(
        run_id="run-1",
        fcbench_version="0",
        suite=suite.name,
        suite_ref=str(suite.path),
        dataset_version=suite.dataset_version,
        dataset_hash=suite.dataset_hash,
        config_hash="x",
        targets=[],
        modes=["selection"],
        repeats=1,
        temperature=None,
        seed=0,
        planned=len(records),
        started_at="2026-01-01T00:00:00Z",
    )
    write_manifest(run_dir, manifest)
    (run_dir / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return run_dir


def test_disagreements_list_what_each_profile_forgives(suite: Suite, tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path, suite, _records())
    found = disagreements(observations(run_dir), suite)
    assert [entry["seq"] for entry in found] == [1, 5]
    forgiven, stricter = found
    assert forgiven["passed"] == {"strict": False, "bfcl": True}
    assert forgiven["case_id"] == "simple_python_0" and forgiven["target"] == "sim:sim-careful"
    assert any("unit" in reason for reason in forgiven["reasons"]["strict"])
    assert forgiven["reasons"]["bfcl"] == []
    assert stricter["passed"] == {"strict": True, "bfcl": False}
    assert any("number" in reason for reason in stricter["reasons"]["bfcl"])
    assert set(stricter["verdicts"]) == {"strict", "bfcl"}
    assert disagreements(observations(run_dir), suite, profiles=("bfcl", "strict"))[0]["passed"] == {
        "bfcl": True,
        "strict": False,
    }


def test_disagreements_errors(suite: Suite, tmp_path: Path) -> None:
    with pytest.raises(RunStateError):
        run_views(tmp_path)
    run_dir = _run_dir(tmp_path, suite, [])
    assert disagreements(observations(run_dir), suite) == []
    with pytest.raises(ConfigError, match="two different"):
        disagreements(observations(run_dir), suite, profiles=("bfcl", "bfcl"))
