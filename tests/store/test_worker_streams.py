"""Folding worker record streams into their run (``store.merge.fold_worker_streams``): each
observation once, blobs with the records that reference them, damaged lines counted, links refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from records_builder import RunBuilder, call_outcome, verdict

from fcbench.errors import RunStateError
from fcbench.store.blobs import expand_blobs, load_blobs
from fcbench.store.merge import WORKERS_DIR, Folded, fold_worker_streams, worker_stream
from fcbench.store.records import RECORDS_FILE, Record, RecordWriter

BODY = {"messages": [{"role": "user", "content": "a long prompt " * 30}]}
"""A request body long enough to be stored as a blob."""


def records(run_dir: Path, *case_ids: str) -> list[Record]:
    builder = RunBuilder(run_dir)
    for case_id in case_ids:
        raw = {"request": {"body": {**BODY, "case": case_id}}, "response": {"status": 200}}
        builder.add(case_id, call_outcome(("lookup_order", {})), verdict(), raw=raw)
    return builder.records


def write(folder: Path, recs: list[Record]) -> None:
    with RecordWriter(folder / RECORDS_FILE) as writer:
        for record in recs:
            writer.append(record)


def run_lines(run_dir: Path) -> list[dict[str, object]]:
    blobs = load_blobs(run_dir)
    lines = (run_dir / RECORDS_FILE).read_text(encoding="utf-8").splitlines()
    return [{**data, "raw": expand_blobs(data["raw"], blobs)} for data in map(json.loads, lines)]


def test_streams_fold_into_the_run_each_observation_once(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    a, b, c = records(run_dir, "a", "b", "c")
    run_dir.mkdir()
    write(run_dir, [b])
    write(worker_stream(run_dir, 1), [a, b])  # b: already in the run (folded before a crash)
    second = worker_stream(run_dir, 2)
    write(second, [c])
    with (second / RECORDS_FILE).open("a", encoding="utf-8") as fh:
        fh.write("not json\n{}\n" + '{"torn": ')  # damaged lines and a torn last line

    assert fold_worker_streams(run_dir) == Folded(records=2, duplicates=1, damaged=3)
    folded = run_lines(run_dir)
    assert sorted(line["case_id"] for line in folded) == ["a", "b", "c"]
    by_case = {line["case_id"]: line["raw"] for line in folded}
    assert by_case == {r.case_id: r.raw for r in (a, b, c)}  # every blob came along
    assert not (run_dir / WORKERS_DIR).exists()
    assert fold_worker_streams(run_dir) == Folded()  # nothing left to fold


def test_a_link_in_place_of_the_streams_is_refused_and_never_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "1").mkdir(parents=True)
    write(elsewhere / "1", records(tmp_path, "x"))
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / WORKERS_DIR).symlink_to(elsewhere)
    with pytest.raises(RunStateError, match="link"):
        fold_worker_streams(run_dir)

    (run_dir / WORKERS_DIR).unlink()
    (run_dir / WORKERS_DIR).mkdir()
    (run_dir / WORKERS_DIR / "1").symlink_to(elsewhere / "1")  # a linked stream: left alone
    assert fold_worker_streams(run_dir) == Folded()
    assert not (run_dir / RECORDS_FILE).exists() and (elsewhere / "1" / RECORDS_FILE).exists()
    with pytest.raises(RunStateError, match="link"):
        worker_stream(run_dir, 1)
