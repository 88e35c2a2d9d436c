"""The offset indexes of a run's files: record lines numbered as every reader numbers them, blobs
found by id in their own gzip member, stale or damaged files never trusted, links refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from records_builder import RunBuilder, text_outcome

from fcbench.errors import RunStateError
from fcbench.store.blobs import BLOBS_FILE, BlobStore, blob_refs, expand_blobs, load_blob_closure
from fcbench.store.index import blob_index, file_stamp, record_offsets
from fcbench.store.records import RECORDS_FILE
from fcbench.store.view import iter_views

TOOLS = [{"name": f"tool_{i}", "description": "d" * 120} for i in range(3)]


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    run = RunBuilder(tmp_path)
    for seq in range(200):  # 7 batches of blobs: one gzip member each
        request = {
            "model": "m",
            "tools": TOOLS,
            "messages": [{"role": "user", "content": f"prompt {seq} " * 30}],
        }
        response = {"id": f"resp-{seq}", "choices": [{"message": {"content": "x" * (100 + seq)}}]}
        run.add(
            f"c{seq}", text_outcome(f"answer {seq}"), None, raw={"request": request, "response": response}
        )
    return run.write()


def test_record_numbers_match_every_reader_despite_damage(run_dir: Path) -> None:
    path = run_dir / RECORDS_FILE
    lines = path.read_bytes().split(b"\n")
    damaged = [*lines[:3], b'{"not": "a record"}', b"not json", *lines[3:-1], lines[5][:40]]
    path.write_bytes(b"\n".join(damaged))  # a torn last line, without its newline
    offsets = record_offsets(path)
    views = list(iter_views(path))
    assert len(offsets) == len(views) == 200
    found = offsets.views(path, [0, 3, 199, 200, -1])
    assert sorted(found) == [0, 3, 199]
    for n in (0, 3, 199):
        assert found[n].seq == views[n].seq == n
    assert offsets.fresh(path)
    with path.open("ab") as fh:
        fh.write(b"\n")
    assert not offsets.fresh(path)


def test_blobs_load_from_their_member_as_a_full_read_would(run_dir: Path) -> None:
    path = run_dir / BLOBS_FILE
    index = blob_index(path)
    raws = [json.loads(line)["raw"] for line in (run_dir / RECORDS_FILE).read_text().splitlines()]
    assert len(index.member_starts) > 3  # one member per written batch
    for raw in raws[::7]:
        values: list[Any] = [raw["request"], raw["response"]]
        assert blob_refs(values)
        expected = load_blob_closure(run_dir, values)
        assert index.closure(path, values) == expected
        assert expand_blobs(values, expected)[0]["tools"] == TOOLS
    assert index.load(path, ["no-such-blob"]) == {}


def test_a_torn_member_and_a_damaged_line_are_left_out(tmp_path: Path) -> None:
    path = tmp_path / BLOBS_FILE
    store = BlobStore(path)
    kept = store.compact({"big": "y" * 500})[("$blob")]
    store.close()
    whole = path.read_bytes()
    other = BlobStore(tmp_path / "other.gz")
    torn = other.compact({"other": "z" * 500})["$blob"]
    other.close()
    path.write_bytes(whole + (tmp_path / "other.gz").read_bytes()[:-6])
    index = blob_index(path)
    assert len(index) == 1
    assert index.load(path, [kept, torn]) == {kept: {"big": "y" * 500}}


def test_an_index_of_an_older_file_finds_nothing_wrong(tmp_path: Path) -> None:
    path = tmp_path / BLOBS_FILE
    store = BlobStore(path)
    first = store.compact({"first": "a" * 500})["$blob"]
    store.close()
    index = blob_index(path)
    store = BlobStore(tmp_path / "swap.gz")
    store.compact({"second": "b" * 500})
    store.close()
    (tmp_path / "swap.gz").replace(path)  # the file replaced by another of the same layout
    assert not index.fresh(path)
    assert index.load(path, [first]) == {}  # the line there is another blob's: not taken for it


def test_links_are_refused_and_missing_files_are_empty(tmp_path: Path, run_dir: Path) -> None:
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / RECORDS_FILE).symlink_to(run_dir / RECORDS_FILE)
    (linked / BLOBS_FILE).symlink_to(run_dir / BLOBS_FILE)
    with pytest.raises(RunStateError, match="symbolic link"):
        record_offsets(linked / RECORDS_FILE)
    with pytest.raises(RunStateError, match="symbolic link"):
        blob_index(linked / BLOBS_FILE)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert len(record_offsets(empty / RECORDS_FILE)) == 0
    assert len(blob_index(empty / BLOBS_FILE)) == 0
    assert file_stamp(empty / BLOBS_FILE) == (0, 0, 0)
