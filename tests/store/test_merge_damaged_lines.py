"""Merging shards skips the record lines it cannot use (not JSON, or JSON that is no record) and
says how many, per shard, instead of dropping them silently or failing with a traceback."""

from __future__ import annotations

import asyncio
from pathlib import Path

from cli_run import fcbench

from fcbench.config import RunConfig
from fcbench.endpoints import RunningService
from fcbench.run import execute, prepare
from fcbench.run.plan import Shard
from fcbench.store.records import RECORDS_FILE, iter_record_dicts


def _shard(tmp_path: Path, mock_server: str, index: int) -> Path:
    config = RunConfig.model_validate(
        {
            "targets": ["sim:sim-careful"],
            "cases": ["select-lookup-01", "abstain-01"],
            "repeats": 1,
            "modes": ["selection"],
        }
    )
    spec = prepare(config, out_root=tmp_path / f"shard{index}", shard=Shard(index, 2))
    return asyncio.run(execute(spec, services={"mock": RunningService(mock_server)})).run_dir


def test_damaged_shard_lines_are_skipped_and_counted(tmp_path: Path, mock_server: str) -> None:
    first, second = _shard(tmp_path, mock_server, 1), _shard(tmp_path, mock_server, 2)
    with (first / RECORDS_FILE).open("a", encoding="utf-8") as fh:
        fh.write("garbage that is not JSON\n")
        fh.write('{"seq": 99, "note": "JSON, but no record"}\n')
        fh.write("[1, 2]\n")
    merged = fcbench("merge", str(first), str(second), "--out", str(tmp_path / "merged"))
    assert merged.returncode == 0, merged.stderr
    assert "Traceback" not in merged.stderr
    assert f"3 damaged record lines skipped in {first}" in merged.stdout + merged.stderr
    assert len(list(iter_record_dicts(tmp_path / "merged" / RECORDS_FILE))) == 2
