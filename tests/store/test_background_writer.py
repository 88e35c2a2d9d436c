"""A record writer with a background thread: the caller never waits for the disk, nothing is lost,
the order and the bytes are those of the plain writer, and a failed write is raised, not dropped."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from fcbench.store.blobs import BLOBS_FILE, iter_blobs
from fcbench.store.records import RECORDS_FILE, RecordWriter, iter_record_dicts

from .test_blobs import _record


def write_all(folder: Path, background: bool, count: int = 40) -> None:
    folder.mkdir()
    with RecordWriter(folder / RECORDS_FILE, batch=4, background=background) as writer:
        for seq in range(count):
            writer.append(_record(seq, f"prompt {seq % 7}"))


def test_background_writes_the_same_files_as_the_plain_writer(tmp_path: Path) -> None:
    write_all(tmp_path / "plain", background=False)
    write_all(tmp_path / "background", background=True)
    plain, background = tmp_path / "plain", tmp_path / "background"
    assert (background / RECORDS_FILE).read_bytes() == (plain / RECORDS_FILE).read_bytes()
    # gzip members carry their time of writing, so the blob files are compared blob by blob
    assert list(iter_blobs(background / BLOBS_FILE)) == list(iter_blobs(plain / BLOBS_FILE))
    assert len(list(iter_blobs(background / BLOBS_FILE))) > 1
    stored = list(iter_record_dicts(background / RECORDS_FILE))
    assert [record["seq"] for record in stored] == list(range(40))


def test_appending_does_not_wait_for_a_stalled_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    stalled = threading.Event()
    real_fsync = os.fsync

    def stalling_fsync(fd: int) -> None:
        if threading.current_thread() is not threading.main_thread():
            stalled.set()
            assert release.wait(30), "the test never released the disk"
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", stalling_fsync)
    writer = RecordWriter(tmp_path / RECORDS_FILE, batch=2, background=True)
    for seq in range(10):  # five batches, while the first one is stuck in fsync
        writer.append(_record(seq, "p"))
    assert stalled.wait(30)
    assert not release.is_set()  # every append above returned while the disk was stalled
    release.set()
    writer.close()
    assert [record["seq"] for record in iter_record_dicts(tmp_path / RECORDS_FILE)] == list(range(10))


def test_a_failed_background_write_is_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    writer = RecordWriter(tmp_path / RECORDS_FILE, batch=1, background=True)
    monkeypatch.setattr(os, "fsync", full_disk)
    writer.append(_record(0, "p"))
    with pytest.raises(OSError, match="No space left"):
        writer.close()
    monkeypatch.undo()
    writer.close()  # closing again is harmless
