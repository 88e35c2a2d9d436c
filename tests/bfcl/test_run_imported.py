"""An imported BFCL suite runs end to end: ``fcbench run`` on the default simulated targets, then
re-grading under the ``bfcl`` profile and listing the observations the two profiles disagree on."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from fcbench.bfcl.convert import ImportReport
from fcbench.endpoints import DEFAULT_TARGETS
from fcbench.grading.regrade import disagreements
from fcbench.store import view as store_view
from fcbench.store.records import iter_record_dicts
from fcbench.suite.loader import load_suite


def test_run_imported_simple_python(
    imported: Callable[[str], tuple[Path, ImportReport]], tmp_path: Path
) -> None:
    suite_dir, report = imported("simple_python")
    out = tmp_path / "runs"
    proc = subprocess.run(
        [sys.executable, "-m", "fcbench", "run", "--suite", str(suite_dir), "--repeats", "1", "--no-progress"]
        + ["--out", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["suite"] == "bfcl-simple_python"
    assert manifest["dataset_version"] == report.dataset_version
    assert manifest["system_prompt"] == "none"
    records = list(iter_record_dicts(run_dir / "records.jsonl"))
    assert len(records) == manifest["planned"] == report.imported * len(DEFAULT_TARGETS)
    suite = load_suite(suite_dir)
    ids = {case.id for case in suite.cases}
    assert {r["case_id"] for r in records} == ids
    assert all(isinstance(r["verdict"], dict) and "passed" in r["verdict"] for r in records)

    regraded = [
        {**r, "verdict": v.verdict_data()}
        for r, v in zip(
            records, store_view.regraded(map(store_view.view_of, records), suite, "bfcl"), strict=True
        )
    ]
    assert len(regraded) == len(records)
    assert all(r["verdict"]["decision"] for r in regraded)
    found = disagreements((v.observation() for v in store_view.run_views(run_dir)), suite)
    strict_passed = {r["seq"]: bool(r["verdict"]["passed"]) for r in records}
    bfcl_passed = {r["seq"]: bool(r["verdict"]["passed"]) for r in regraded}
    differing = sorted(seq for seq in strict_passed if strict_passed[seq] != bfcl_passed[seq])
    assert sorted(entry["seq"] for entry in found) == differing
