"""``fcbench export RUN`` on a real run of the mock: every format read back equals the records."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from fcbench.store.blobs import expand_blobs, load_blobs
from fcbench.store.records import RECORDS_FILE, iter_record_dicts
from fcbench.suite.loader import load_suite

CASES = ("adv-contradict-02", "types-01", "abstain-01", "clarify-01", "multi-mixed-01")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "runs"
    cmd = [sys.executable, "-m", "fcbench", "run", "--no-progress", "--repeats", "2", "--out", str(out)]
    proc = subprocess.run(
        [*cmd, *(a for c in CASES for a in ("--case", c))], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (found,) = list(out.iterdir())
    return found


def export(*args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    start = ["-c", code] if code else ["-m", "fcbench"]
    return subprocess.run(
        [sys.executable, *start, "export", *args], capture_output=True, text=True, timeout=120
    )


def expanded_records(run_dir: Path) -> list[dict[str, Any]]:
    blobs = load_blobs(run_dir)
    rows = list(iter_record_dicts(run_dir / RECORDS_FILE))
    for row in rows:
        row["raw"] = expand_blobs(row["raw"], blobs)
    return rows


def check_rows(rows: list[dict[str, Any]], run_dir: Path) -> None:
    """The exported rows (values as JSON types) against the records and the blob store."""
    want = expanded_records(run_dir)
    assert len(rows) == len(want) > 0
    suite = {c.id: c for c in load_suite("core").cases}
    for row, record in zip(rows, want, strict=True):
        assert (row["seq"], row["case_id"], row["repeat"], row["mode"]) == (
            record["seq"],
            record["case_id"],
            record["repeat"],
            record["mode"],
        )
        target = record["target"]
        assert (row["endpoint"], row["dialect"], row["model"]) == (
            target["endpoint"],
            target["dialect"],
            target["model"],
        )
        assert row["target"] == row["target_name"] == f"{target['endpoint']}:{target['model']}"
        assert row["passed"] is record["verdict"]["passed"]
        assert row["decision"] == record["verdict"]["decision"]
        assert row["schema_valid"] == record["verdict"]["schema_valid"]
        assert row["tags"] == record["case"]["tags"] and row["category"] == record["case"]["category"]
        calls = record["outcome"].get("calls") or []
        assert row["tool_called"] == (calls[0]["name"] if calls else None)
        assert json.loads(row["arguments"] or "null") == (calls[0]["arguments"] if calls else None)
        assert json.loads(row["expected"]) == suite[record["case_id"]].expected.model_dump(mode="json")
        assert json.loads(row["anomalies"]) == record["anomalies"]
        assert (row["input_tokens"], row["output_tokens"]) == (
            record["usage"]["input_tokens"],
            record["usage"]["output_tokens"],
        )
        assert row["latency_ms"] == record["latency_ms"] and row["attempts"] == record["attempts"]
        assert json.loads(row["raw_request"]) == record["raw"]["request"]
        assert json.loads(row["raw_response"]) == record["raw"]["response"]
        assert "$blob" not in row["raw_request"] + row["raw_response"]


def test_parquet_reads_back_equal_to_the_records(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "run.parquet"
    proc = export(str(run_dir), "--format", "parquet", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    table = pq.read_table(out)
    assert f"wrote {table.num_rows} rows to {out}" in proc.stderr
    assert table.schema.field("passed").type == "bool" and table.schema.field("seq").type == "int64"
    check_rows(table.to_pylist(), run_dir)


def test_jsonl_reads_back_equal_to_the_records(run_dir: Path) -> None:
    proc = export(str(run_dir), "--format", "jsonl")
    assert proc.returncode == 0, proc.stderr
    check_rows([json.loads(line) for line in proc.stdout.splitlines()], run_dir)


def test_csv_reads_back_equal_to_the_records(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "run.csv"
    proc = export(str(run_dir), "-f", "csv", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    with out.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    typed = {"seq": int, "repeat": int, "attempts": int, "input_tokens": int, "output_tokens": int}
    for row in rows:
        for key, kind in typed.items():
            row[key] = kind(row[key]) if row[key] else None
        row["latency_ms"] = float(row["latency_ms"]) if row["latency_ms"] else None
        for key in ("passed", "schema_valid", "semantic_exact"):
            row[key] = {"true": True, "false": False, "": None}[row[key]]
        row["tags"] = json.loads(row["tags"])
        for key in ("tool_called", "arguments", "error", "provider_error"):
            row[key] = row[key] or None
    check_rows(rows, run_dir)
    assert not out.with_name("run.csv.partial").exists()


def test_parquet_without_pyarrow_says_how_to_install_it(run_dir: Path, tmp_path: Path) -> None:
    blocked = (
        "import sys; sys.modules['pyarrow'] = None; from fcbench.cli.app import main; main(sys.argv[1:])"
    )
    out = tmp_path / "run.parquet"
    proc = export(str(run_dir), "-f", "parquet", "-o", str(out), code=blocked)
    assert proc.returncode == 2, proc.stderr
    assert "Parquet export needs pyarrow" in proc.stderr and "pip install 'fcbench[parquet]'" in proc.stderr
    assert "Traceback" not in proc.stderr and not out.exists()
    csv_out = export(str(run_dir), "-f", "csv", code=blocked)  # the other formats need no pyarrow
    assert csv_out.returncode == 0 and len(list(csv.reader(io.StringIO(csv_out.stdout)))) > 1


def test_bad_input_exits_2(run_dir: Path, tmp_path: Path) -> None:
    missing = export(str(tmp_path / "nothing"), "-f", "csv")
    assert missing.returncode == 2 and "not a run directory" in missing.stderr
    to_stdout = export(str(run_dir), "-f", "parquet")
    assert to_stdout.returncode == 2 and "-o FILE.parquet" in to_stdout.stderr
    unknown = export(str(run_dir), "-f", "xlsx")
    assert unknown.returncode == 2
