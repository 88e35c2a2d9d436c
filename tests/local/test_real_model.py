"""The live path: ``fcbench run -t local:qwen2.5-coder-0.5b`` against llama.cpp's real server.

Selected with ``-m real_model``; ``.ci/run`` installs the ``local`` extra and the model and sets
``FCBENCH_REQUIRE_REAL_MODEL=1``, so there this test runs (or fails), never skips.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from local_engine import SMALL_MODEL, require_model
from robust_run import records

from fcbench.store.records import read_manifest

pytestmark = pytest.mark.real_model

CASES = ("select-lookup-01", "select-search-01", "abstain-01", "clarify-01", "types-01")
"""Five core cases: two selections, an abstention, a clarification, a typed argument."""


def test_five_core_cases_against_the_real_model(tmp_path: Path) -> None:
    require_model()
    case_flags = [flag for case in CASES for flag in ("--case", case)]
    done = subprocess.run(
        [sys.executable, "-m", "fcbench", "run", "-t", f"local:{SMALL_MODEL}", "--mode", "selection",
         "--repeats", "1", "--out", str(tmp_path), *case_flags, "--min-coverage", "1"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    [run_dir] = [p for p in tmp_path.iterdir() if p.is_dir()]
    rows = records(run_dir)
    assert sorted(r["case_id"] for r in rows) == sorted(CASES), "every planned observation, once"
    manifest = read_manifest(run_dir)
    assert manifest.finished_at is not None
    service = manifest.targets[0].service
    assert service is not None
    assert service["sha256"] == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert service["engine"].startswith("llama.cpp server (xllamacpp ")
    for row in rows:
        assert row["outcome"]["kind"] != "provider_error", json.dumps(row["outcome"])
        assert row["verdict"]["decision"] != "not_scored"
        response = row["raw"]["response"]
        assert response["status"] == 200
        body = response["body"]
        # what only llama.cpp's server writes: its generation timings, its build, the served alias
        assert body["model"] == SMALL_MODEL
        assert body["timings"]["predicted_n"] > 0
        assert body["system_fingerprint"].startswith("b")
        assert row["usage"]["output_tokens"] == body["usage"]["completion_tokens"]
