"""Raw capture is stored compactly and restored exactly, even after a torn write."""

from __future__ import annotations

import json
from pathlib import Path

from fcbench.store.blobs import BLOBS_FILE, BlobStore, expand_blobs, iter_blobs, load_blobs
from fcbench.store.records import RECORDS_FILE, CaseRef, Record, RecordWriter, TargetRef, iter_record_dicts

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": f"tool_{i}",
            "parameters": {
                "type": "object",
                "properties": {"x": {"type": "integer", "description": "d" * 80}},
            },
        },
    }
    for i in range(4)
]


def _record(seq: int, prompt: str) -> Record:
    body = {
        "model": "m",
        "temperature": 0.0,
        "tools": TOOLS,
        "messages": [{"role": "user", "content": prompt}],
        "weird": {"$blob": "not-a-reference"},
        "numbers": [1, 1.0, 1e-7, -0.0],
    }
    response = {"id": f"chatcmpl-{seq}", "choices": [{"message": {"content": "x" * (seq * 40)}}]}
    return Record(
        run_id="r",
        seq=seq,
        started_at="t",
        dataset_version="1",
        target=TargetRef(endpoint="e", dialect="d", model="m"),
        case_id=f"c{seq}",
        case=CaseRef(category="normal", expected_kind="text"),
        repeat=0,
        mode="selection",
        outcome={"kind": "text", "text": "hi"},
        raw={"request": {"body": body}, "response": {"body": response}},
    )


def test_raw_parts_are_stored_once_and_expand_exactly(tmp_path: Path) -> None:
    originals = [_record(i, "same prompt" if i < 3 else f"prompt {i}") for i in range(6)]
    with RecordWriter(tmp_path / RECORDS_FILE, batch=4) as writer:
        for record in originals:
            writer.append(record)
    blobs = load_blobs(tmp_path)
    stored = list(iter_record_dicts(tmp_path / RECORDS_FILE))
    assert len(stored) == 6
    for original, data in zip(originals, stored, strict=True):
        assert "$blob" in json.dumps(data["raw"])
        assert json.dumps(expand_blobs(data["raw"], blobs)) == json.dumps(original.raw)
    # The tool list is stored once although every request carries it.
    tool_blobs = [b for b in iter_blobs(tmp_path / BLOBS_FILE) if expand_blobs(b["value"], blobs) == TOOLS]
    assert len(tool_blobs) == 1
    # The three identical requests share one blob.
    assert len({json.dumps(d["raw"]["request"]) for d in stored[:3]}) == 1


def test_torn_blob_member_is_cut_and_store_reopens(tmp_path: Path) -> None:
    path = tmp_path / BLOBS_FILE
    store = BlobStore(path)
    ref = store.compact({"big": "y" * 500})
    store.close()
    whole = path.read_bytes()
    path.write_bytes(whole + whole[: len(whole) // 2])  # a second member torn half way
    assert [b["id"] for b in iter_blobs(path)] == [ref["$blob"]]
    reopened = BlobStore(path)
    assert path.read_bytes() == whole
    assert reopened.compact({"big": "y" * 500}) == ref
    reopened.compact({"other": "z" * 500})
    reopened.close()
    assert len(list(iter_blobs(path))) == 2
