"""The export's rows and writers on a real multi-turn run: blobs expanded through the on-disk
index, Parquet in row groups, lines written as rows arrive, spreadsheet-safe CSV."""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from fcbench.errors import ConfigError
from fcbench.report import export
from fcbench.store import blobs as blob_store
from fcbench.store.blobs import expand_blobs, load_blobs
from fcbench.store.records import MANIFEST_FILE, RECORDS_FILE, iter_record_dicts


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export-recovery") / "runs"
    cmd = [sys.executable, "-m", "fcbench", "run", "--no-progress", "--repeats", "2", "--out", str(out)]
    args = [
        "--suite",
        "refunds",
        "--mode",
        "recovery",
        "--case",
        "rec-cancel-paid-01",
        "--max-unsafe-writes",
        "99",
    ]
    proc = subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (found,) = list(out.iterdir())
    return found


def rows_of(run_dir: Path) -> list[dict[str, Any]]:
    with export.BlobIndex(run_dir) as index:
        return list(export.iter_rows(run_dir, index))


def test_the_index_expands_like_the_blob_store_even_read_in_tiny_chunks(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = list(iter_record_dicts(run_dir / RECORDS_FILE))
    with gzip.open(run_dir / blob_store.BLOBS_FILE, "rt", encoding="utf-8") as fh:
        every = {blob["id"]: blob["value"] for blob in map(json.loads, fh)}
    monkeypatch.setattr(blob_store, "READ_CHUNK_BYTES", 7)  # members span many reads
    assert load_blobs(run_dir) == every
    with export.BlobIndex(run_dir) as index:
        for record in records:
            assert index.expand(record["raw"]) == expand_blobs(record["raw"], every)
            assert "$blob" not in json.dumps(index.expand(record["raw"]))


def test_multi_turn_rows_hold_every_turns_request_and_response(run_dir: Path) -> None:
    records = list(iter_record_dicts(run_dir / RECORDS_FILE))
    every = load_blobs(run_dir)
    rows = rows_of(run_dir)
    assert [r["seq"] for r in rows] == [r["seq"] for r in records]
    assert any(len(r["turns"]) > 1 for r in records)
    for row, record in zip(rows, records, strict=True):
        exchanges = expand_blobs(record["raw"], every)["exchanges"]
        assert json.loads(row["raw_request"]) == [e["request"] for e in exchanges]
        assert json.loads(row["raw_response"]) == [e["response"] for e in exchanges]
        assert row["passed"] is record["verdict"]["passed"] and row["mode"] == "recovery"


def test_parquet_is_written_in_row_groups(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(export, "BATCH_ROWS", 3)
    out = tmp_path / "run.parquet"
    with out.open("wb") as fh:
        count = export.export_run(run_dir, "parquet", fh)
    meta = pq.ParquetFile(out).metadata
    assert count == meta.num_rows == len(list(iter_record_dicts(run_dir / RECORDS_FILE))) > 3
    assert meta.num_row_groups == math.ceil(count / 3)
    assert all(meta.row_group(i).num_rows <= 3 for i in range(meta.num_row_groups))
    assert pq.read_table(out).column("case_id").to_pylist() == [r["case_id"] for r in rows_of(run_dir)]


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_lines_are_written_as_rows_arrive(run_dir: Path, fmt: str) -> None:
    row = rows_of(run_dir)[0]
    out = io.BytesIO()

    def rows() -> Iterator[dict[str, Any]]:
        yield row
        assert out.getvalue().count(b"\n") == (2 if fmt == "csv" else 1)  # header and the first row
        yield row

    assert export.WRITERS[fmt](rows(), out) == 2


def test_csv_text_cannot_start_a_formula_or_a_row(run_dir: Path) -> None:
    row = {**rows_of(run_dir)[0], "case_id": '=HYPERLINK("http://evil.example")', "error": "x\r\n+1+1"}
    out = io.BytesIO()
    export.write_csv([row], out)
    text = out.getvalue().decode("utf-8")
    assert not any(line.startswith(("=", "+", "-", "@")) for line in text.splitlines())
    (parsed,) = list(csv.DictReader(io.StringIO(text)))
    assert parsed["case_id"] == "'" + row["case_id"] and parsed["error"] == "x +1+1"
    assert json.loads(parsed["raw_request"]) == json.loads(row["raw_request"])


def test_a_run_whose_suite_is_gone_still_exports(run_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    manifest = json.loads((copy / MANIFEST_FILE).read_text())
    manifest["suite_ref"] = str(tmp_path / "deleted-suite")
    (copy / MANIFEST_FILE).write_text(json.dumps(manifest))
    rows = rows_of(copy)
    assert rows and all(r["expected"] is None for r in rows)
    assert [r["raw_request"] for r in rows] == [r["raw_request"] for r in rows_of(run_dir)]


def test_an_unknown_format_is_a_config_error(run_dir: Path) -> None:
    with pytest.raises(ConfigError, match="unknown export format 'xlsx' \\(known: parquet, csv, jsonl\\)"):
        export.export_run(run_dir, "xlsx", io.BytesIO())


def test_rows_read_the_records_fields_whichever_way_a_line_is_decoded(run_dir: Path, tmp_path: Path) -> None:
    records = list(iter_record_dicts(run_dir / RECORDS_FILE))
    rows = rows_of(run_dir)
    for row, record in zip(rows, records, strict=True):
        target, case, usage = record["target"], record["case"], record["usage"]
        assert (row["endpoint"], row["dialect"], row["model"]) == (
            target["endpoint"],
            target["dialect"],
            target["model"],
        )
        assert row["target"] == f"{target['endpoint']}:{target['model']}" == row["target_name"]
        assert (row["category"], row["tags"]) == (case["category"], case["tags"])
        assert row["decision"] == record["verdict"]["decision"]
        first = (record["outcome"].get("calls") or [None])[0]
        assert row["tool_called"] == (first["name"] if first else None)
        assert (row["input_tokens"], row["output_tokens"]) == (usage["input_tokens"], usage["output_tokens"])
        assert (row["attempts"], row["latency_ms"], row["error"]) == (
            record["attempts"],
            record["latency_ms"],
            record["error"],
        )
        assert json.loads(row["anomalies"]) == record["anomalies"]
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    odd = {**records[0], "latency_ms": float("nan")}  # a literal the fast decoder refuses
    lines = [json.dumps(odd), "{}", "not json", *(json.dumps(r) for r in records[1:])]
    (copy / RECORDS_FILE).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    again = rows_of(copy)
    assert math.isnan(again[0].pop("latency_ms"))
    assert again == [{k: v for k, v in rows[0].items() if k != "latency_ms"}, *rows[1:]]
