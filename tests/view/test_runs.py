"""The viewer's run catalog in-process: each read of a run in a thread of its own, waited for at most
the read timeout, a run that timed out marked unreadable until its records change, no lock held
across a read, one summary read shared by the requests waiting for it, and closing it wakes them."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from html_runs import scale_run

from fcbench.store.records import RECORDS_FILE
from fcbench.view.runs import RunCatalog, UnreadableRun


@pytest.fixture
def root(tmp_path: Path) -> Path:
    scale_run(tmp_path / "runs" / "a", 12, run_id="20260101-000000-aaaaaa")
    scale_run(tmp_path / "runs" / "b", 12, run_id="20260102-000000-bbbbbb")
    return tmp_path / "runs"


@pytest.fixture
def release() -> Iterator[threading.Event]:
    gate = threading.Event()
    yield gate
    gate.set()  # let the blocked reader threads finish


def test_a_read_that_hangs_marks_its_run_unreadable_until_it_changes(
    root: Path, release: threading.Event
) -> None:
    catalog = RunCatalog(root, read_timeout_s=0.5)
    a, b = catalog.entry("a"), catalog.entry("b")
    calls: list[str] = []

    def hang(name: str) -> str:
        calls.append(name)
        release.wait()
        return name

    with pytest.raises(UnreadableRun, match=r"run a cannot be read: reading it took longer than 0.5 s"):
        catalog.read(a, hang, "first")
    # A generous time for b's real read, however loaded the machine: a lock held by the hung read
    # would still make it time out, so this fails rather than passing by luck.
    catalog.read_timeout_s = 60.0
    assert catalog.summary(b).pass_rate()[1] > 0  # no lock is held by the hung read
    with pytest.raises(UnreadableRun, match="0.5 s"):
        catalog.read(a, hang, "second")
    with pytest.raises(UnreadableRun):
        catalog.summary(a)
    assert calls == ["first"]  # marked: not read again
    assert isinstance(catalog.summaries([a, b])["a"], UnreadableRun)
    with (a.path / RECORDS_FILE).open("a", encoding="utf-8") as fh:
        fh.write("\n")  # the records changed: the run is read again
    assert catalog.summary(a).pass_rate()[1] > 0
    release.set()
    assert catalog.read(a, str.upper, "again") == "AGAIN"


def test_failed_reads_mark_the_run_and_errors_of_a_query_do_not(root: Path) -> None:
    catalog = RunCatalog(root, read_timeout_s=30)
    a = catalog.entry("a")

    def denied() -> None:
        raise PermissionError(13, "Permission denied")

    def bad_request() -> None:
        raise ValueError("not a filter")

    with pytest.raises(ValueError):
        catalog.read(a, bad_request)
    assert catalog.summary(a).pass_rate()[1] > 0
    with pytest.raises(UnreadableRun, match="run a cannot be read: Permission denied"):
        catalog.read(a, denied)
    with pytest.raises(UnreadableRun, match="Permission denied"):
        catalog.summary(a)


def test_records_that_are_not_a_regular_file_are_never_opened(root: Path) -> None:
    catalog = RunCatalog(root, read_timeout_s=30)
    records = root / "a" / RECORDS_FILE
    records.unlink()
    records.symlink_to(root / "b" / RECORDS_FILE)  # even a link to good records
    a = catalog.entry("a")
    with pytest.raises(UnreadableRun, match=f"{RECORDS_FILE} is a symbolic link"):
        catalog.summary(a)
    with pytest.raises(UnreadableRun, match="symbolic link"):
        catalog.read(a, str, "never called")
    assert isinstance(catalog.summaries(catalog.runs())["a"], UnreadableRun)
    with pytest.raises(UnreadableRun, match="needs every run, and a cannot be read"):
        catalog.read_all(lambda: "history")


def test_requests_for_one_summary_share_one_read_and_close_wakes_them(
    root: Path, release: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fcbench.view import runs

    started = threading.Event()
    reads: list[Path] = []

    def slow_summarise(run_dir: Path, stamp: runs.Stamp) -> runs.RunSummary:
        reads.append(run_dir)
        started.set()
        release.wait()
        raise AssertionError("never finishes in this test")

    monkeypatch.setattr(runs, "summarise", slow_summarise)
    catalog = RunCatalog(root, read_timeout_s=600)
    a = catalog.entry("a")
    answers: list[BaseException] = []

    def request() -> None:
        try:
            catalog.summary(a)
        except UnreadableRun as exc:
            answers.append(exc)

    waiting = [threading.Thread(target=request) for _ in range(3)]
    for t in waiting:
        t.start()
    assert started.wait(30)
    catalog.close()
    for t in waiting:
        t.join(30)
    assert not any(t.is_alive() for t in waiting), "close() left a request waiting for the read"
    assert [str(e) for e in answers] == ["the viewer is stopping"] * 3
    assert reads == [a.path]  # one read for the three requests
    with pytest.raises(UnreadableRun, match="stopping"):
        catalog.read(catalog.entry("b"), str, "no read starts once closed")
