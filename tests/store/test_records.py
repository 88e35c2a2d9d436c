"""Typed records: a run written by the previous record version still reads, reports and regrades.

``fixtures/run-record-v1`` is a real run directory written by fcbench with record version 1
(two targets, selection and recovery modes, two repeats, blobs included).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fcbench.contract import Anomaly, TextOutcome, ToolCallsOutcome, Usage
from fcbench.grading import Verdict
from fcbench.grading.verdict import RecoveryVerdict
from fcbench.metrics import compute_metrics
from fcbench.store.blobs import expand_blobs, load_blob_closure
from fcbench.store.records import (
    RECORD_VERSION,
    RECORDS_FILE,
    Record,
    iter_record_dicts,
    iter_records,
    read_manifest,
    record_key,
)
from fcbench.store.view import iter_views, regraded
from fcbench.suite.loader import load_suite

V1 = Path(__file__).resolve().parent / "fixtures" / "run-record-v1"


@pytest.fixture
def v1_run(tmp_path: Path) -> Path:
    return Path(shutil.copytree(V1, tmp_path / V1.name))


def test_the_record_version_was_bumped() -> None:
    assert RECORD_VERSION == "3"
    assert read_manifest(V1).record_version == "1"


def test_version_1_records_read_as_typed_records() -> None:
    records = list(iter_records(V1 / RECORDS_FILE))
    assert len(records) == 16
    for record in records:
        assert isinstance(record.outcome, ToolCallsOutcome | TextOutcome)
        assert isinstance(record.verdict, Verdict)
        assert isinstance(record.usage, Usage)
        assert all(isinstance(a, Anomaly) for a in record.anomalies)
    recovery = [r for r in records if r.mode == "recovery"]
    assert len(recovery) == 4
    for record in recovery:
        assert record.verdict is not None and isinstance(record.verdict.recovery, RecoveryVerdict)
        assert record.verdict.passed == (record.verdict.recovery.success and record.verdict.scored)
        assert record.turns and record.turns[0].turn == 1
    assert {record.key for record in records} == {record_key(d) for d in iter_record_dicts(V1 / RECORDS_FILE)}


def test_version_1_records_survive_a_round_trip_through_the_typed_model() -> None:
    for data in iter_record_dicts(V1 / RECORDS_FILE):
        again = json.loads(Record.model_validate(data).model_dump_json())
        assert again["outcome"] == data["outcome"]
        assert again["verdict"]["passed"] == data["verdict"]["passed"]
        old_recovery = data["verdict"].get("recovery")
        if old_recovery is not None:  # every field of version 1 kept as it was (version 2 may add some)
            assert {k: again["verdict"]["recovery"][k] for k in old_recovery} == old_recovery


def test_version_1_run_gives_metrics_reports_and_regrades(v1_run: Path) -> None:
    metrics = compute_metrics(v1_run)
    by_label = {(t.target, t.mode): t for t in metrics.targets}
    careful = by_label[("sim:sim-careful", "selection")]
    assert (careful.pass_rate.n, careful.pass_rate.d) == (6, 6)
    assert by_label[("sim:sim-careful", "recovery")].recovery_success.d == 2
    suite = load_suite("core")
    again = list(regraded(iter_views(v1_run / RECORDS_FILE), suite, "bfcl"))
    assert len(again) == 16 and all(view.verdict_data() for view in again)
    first = next(iter_record_dicts(v1_run / RECORDS_FILE))
    closure = load_blob_closure(v1_run, [first["raw"]])
    assert "messages" in json.dumps(expand_blobs(first["raw"], closure))
    for fmt in ("md", "json", "junit"):
        proc = subprocess.run(
            [sys.executable, "-m", "fcbench", "report", str(v1_run), "--format", fmt],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        assert "sim-careful" in proc.stdout
