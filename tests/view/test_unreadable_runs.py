"""Runs that cannot be read, served by a real ``fcbench view`` process beside a good run: records that
are a FIFO or a link to ``/dev/zero``, a blob store that is a FIFO, and a blob store whose read takes
minutes (a small regular file of many gzip members of many lines). Each fails alone with an error
page within the read timeout, the good run keeps answering, and SIGTERM stops the server while a
read is in progress."""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cli_run import stop
from html_runs import running_view, scale_run, start_view

from fcbench.store.blobs import BLOBS_FILE
from fcbench.store.records import RECORDS_FILE

BAD = ("fifo-records", "zero-records", "fifo-blobs", "slow-blobs")
SLOW_MEMBER = gzip.compress(b'{"id": "x", "value": 0}\n' * 200_000, 9)
"""One gzip member of 200,000 blob lines (~10 kB): each takes a second or more to read."""


@pytest.fixture(scope="module")
def runs_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("unreadable") / "runs"
    scale_run(root / "good", 40, run_id="20260101-000000-good00")
    for i, name in enumerate(BAD):
        scale_run(root / name, 10, run_id=f"20260102-00000{i}-bad000")
    (root / "fifo-records" / RECORDS_FILE).unlink()
    os.mkfifo(root / "fifo-records" / RECORDS_FILE)
    (root / "zero-records" / RECORDS_FILE).unlink()
    (root / "zero-records" / RECORDS_FILE).symlink_to("/dev/zero")
    (root / "fifo-blobs" / BLOBS_FILE).unlink()
    os.mkfifo(root / "fifo-blobs" / BLOBS_FILE)
    (root / "slow-blobs" / BLOBS_FILE).write_bytes(SLOW_MEMBER * 300)
    return root


@pytest.fixture(scope="module")
def client(runs_root: Path) -> Iterator[httpx.Client]:
    with running_view(runs_root, "--read-timeout", "2") as url, httpx.Client(base_url=url, timeout=60) as c:
        yield c


def good_run_answers(client: httpx.Client) -> None:
    page = client.get("/runs/good")
    assert page.status_code == 200 and "fcbench report: 20260101-000000-good00" in page.text
    assert client.get("/api/runs/good/observations", params={"limit": 5}).json()["total"] == 40
    assert "$blob" not in client.get("/api/runs/good/observations/0/raw").text


def test_records_that_are_a_fifo_or_a_device_fail_alone(client: httpx.Client) -> None:
    good_run_answers(client)
    for name in ("fifo-records", "zero-records"):
        page = client.get(f"/runs/{name}")
        assert page.status_code == 503 and "cannot be read" in page.text, name
        assert page.headers["content-type"].startswith("text/html")
        api = client.get(f"/api/runs/{name}/report")
        assert api.status_code == 503 and "cannot be read" in api.json()["detail"]
        assert client.get(f"/api/runs/{name}/observations/0/raw").status_code == 503
    raw = client.get("/api/runs/fifo-blobs/observations/0/raw")  # refused or timed out
    assert raw.status_code == 503 and "cannot be read" in raw.json()["detail"]
    listed = {r["key"]: r for r in client.get("/api/runs").json()}
    assert set(listed) == {"good", *BAD}
    assert listed["good"]["error"] is None and listed["good"]["scorable"] > 0
    assert "cannot be read" in listed["fifo-records"]["error"]
    index = client.get("/")
    assert index.status_code == 200 and "20260101-000000-good00" in index.text
    assert index.text.count('class="run-error"') >= 2  # (the FIFO blobs' run too once it timed out)
    good_run_answers(client)


def test_a_read_that_never_ends_times_out_and_is_not_retried(client: httpx.Client) -> None:
    assert client.get("/runs/slow-blobs").status_code == 200  # its records read fine
    raw = client.get("/api/runs/slow-blobs/observations/0/raw")  # its blob store takes minutes
    assert raw.status_code == 503 and "longer than 2 s" in raw.json()["detail"]
    good_run_answers(client)
    again = client.get("/runs/slow-blobs")  # marked unreadable: answered at once, not read again
    assert again.status_code == 503 and "2 s" in again.text
    assert client.get("/history").status_code == 503  # history needs every run; the others still answer
    good_run_answers(client)


def test_sigterm_stops_the_server_while_a_read_is_in_progress(runs_root: Path) -> None:
    proc, url = start_view(runs_root, "--read-timeout", "600")
    try:
        with (
            httpx.Client(base_url=url, timeout=httpx.Timeout(60, read=2)) as c,
            pytest.raises(httpx.ReadTimeout),
        ):
            c.get("/api/runs/slow-blobs/observations/0/raw")  # the read goes on for minutes
        with httpx.Client(base_url=url, timeout=60) as c:
            assert c.get("/api/runs/good/report").status_code == 200  # no lock held across the read
        stop(proc, timeout=30)  # SIGTERM, then a kill only if it did not exit
        assert proc.returncode != -9, "SIGTERM did not stop the viewer"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
