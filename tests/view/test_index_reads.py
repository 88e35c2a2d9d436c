"""The viewer answers from its indexes: one observation's record and raw bodies are read with one
open and one bounded read of each file, a filter or a search reads only the lines of its page, and
the indexes are built once per version of the files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pytest
from html_runs import scale_run

from fcbench.report.html_data import observation_row, record_views
from fcbench.store import index as store_index
from fcbench.store.blobs import BLOBS_FILE, expand_blobs, load_blob_closure
from fcbench.store.records import RECORDS_FILE
from fcbench.view import query
from fcbench.view.runs import RunCatalog, RunEntry, RunSummary


@dataclass
class Reads:
    """Every file the index module opened, and the bytes read from each."""

    opened: list[str] = field(default_factory=list)
    read: dict[str, int] = field(default_factory=dict)


class CountingFile:
    def __init__(self, fh: IO[bytes], name: str, reads: Reads) -> None:
        self.fh, self.name, self.reads = fh, name, reads

    def read(self, size: int = -1) -> bytes:
        data = self.fh.read(size)
        self.reads.read[self.name] = self.reads.read.get(self.name, 0) + len(data)
        return data

    def seek(self, offset: int) -> int:
        return self.fh.seek(offset)

    def __enter__(self) -> CountingFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.fh.close()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunCatalog, RunEntry, RunSummary]:
    root = tmp_path_factory.mktemp("indexed")
    scale_run(root / "run", 2000, seed=3)
    catalog = RunCatalog(root)
    entry = catalog.entry("run")
    return catalog, entry, catalog.summary(entry)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[Reads]:
    found = Reads()
    real = store_index.open_run_file

    def counting(path: Path, mode: str = "rb", **text: Any) -> CountingFile:
        found.opened.append(path.name)
        return CountingFile(real(path, mode, **text), path.name, found)

    monkeypatch.setattr(store_index, "open_run_file", counting)
    yield found


def test_one_observations_raw_bodies_take_one_seek_per_file(
    run: tuple[RunCatalog, RunEntry, RunSummary], reads: Reads
) -> None:
    catalog, entry, summary = run
    blobs = catalog.blob_index(entry)  # built once, reading the whole blob file
    assert reads.opened == [BLOBS_FILE]
    assert catalog.blob_index(entry) is blobs and reads.opened == [BLOBS_FILE]
    reads.opened.clear()
    reads.read.clear()
    n = len(summary.table) - 7
    raw = query.raw_of(entry.path, summary.table, blobs, n)
    assert raw is not None and raw["request"]["tools"] and raw["response"]["id"].startswith("resp-")
    assert reads.opened == [RECORDS_FILE, BLOBS_FILE]
    assert reads.read[RECORDS_FILE] == summary.table.offsets.lengths[n]  # its own line, nothing more
    largest_member = max(blobs.member_lengths)
    assert reads.read[BLOBS_FILE] <= 2 * largest_member  # the members holding its blobs
    assert reads.read[BLOBS_FILE] * 10 < (entry.path / BLOBS_FILE).stat().st_size
    line = (entry.path / RECORDS_FILE).read_bytes().split(b"\n")[n]  # no damaged lines here
    stored = query.observation(entry.path, summary.table, n, summary.several_modes)
    assert stored is not None and stored["seq"] == n
    row_raw = json.loads(line)["raw"]
    values = [row_raw["request"], row_raw["response"]]
    full = load_blob_closure(entry.path, values)
    assert raw == {"request": expand_blobs(values[0], full), "response": expand_blobs(values[1], full)}


def test_a_search_reads_only_the_lines_of_its_page(
    run: tuple[RunCatalog, RunEntry, RunSummary], reads: Reads
) -> None:
    _, entry, summary = run
    page = query.query(entry.path, summary.table, {"q": "ORD-000042", "result": "pass"}, 0, 5, True)
    assert page.total > 0 and len(page.rows) == min(5, page.total)
    assert all(row["case_id"] == "case-0042" and row["result"] == "pass" for row in page.rows)
    assert reads.opened == [RECORDS_FILE]
    wanted = sum(summary.table.offsets.lengths[row["n"]] for row in page.rows)
    assert reads.read[RECORDS_FILE] == wanted
    unfiltered = query.query(entry.path, summary.table, {}, 0, 3, True)
    assert unfiltered.total == len(summary.table) == 2000
    assert [row["result"] for row in unfiltered.rows] == ["fail"] * 3


def test_the_indexes_follow_the_files(run: tuple[RunCatalog, RunEntry, RunSummary], tmp_path: Path) -> None:
    catalog, entry, summary = run
    assert catalog.summary(entry) is summary  # the file did not change: nothing read again
    copy = tmp_path / "copy"
    scale_run(copy, 400, seed=5)
    moved = RunCatalog(tmp_path)
    first = moved.summary(moved.entry("copy"))
    blobs = moved.blob_index(moved.entry("copy"))
    scale_run(copy, 440, seed=6)  # more records appended to the run
    again = moved.summary(moved.entry("copy"))
    assert again is not first and len(again.table) == 840 and len(first.table) == 400
    assert moved.blob_index(moved.entry("copy")) is not blobs


def _brute_force(run_dir: Path, f: dict[str, str]) -> list[int]:
    """The numbers a pass over every row gives for the filters ``f``, listed as the page lists them."""
    found: list[tuple[int, int]] = []
    rank = {result: i for i, result in enumerate(query.ORDER)}
    for n, rec in enumerate(record_views(run_dir)):
        row = observation_row(rec, n)
        row["column"] = query.column_of(row, True)
        text = query.search_text(row, str(rec.case_data().get("prompt", "")))
        checks = {
            "target": row["column"] == f.get("target"),
            "tag": f.get("tag") in row["tags"],
            "anomaly": f.get("anomaly") in row["anomalies"],
            "failure": f.get("failure") in (row["failure"], (row["failure"] or "").split(":")[0]),
            "case": row["case_id"] == f.get("case"),
            "q": (f.get("q") or "").lower() in text,
        }
        if all(checks[k] if k in checks else row[k] == v for k, v in f.items()):
            found.append((rank[row["result"]], n))
    return [n for _, n in sorted(found)]


@pytest.mark.parametrize(
    "f",
    [
        {},
        {"result": "fail"},
        {"target": "sim-gemini:sim-flaky [recovery]", "decision": "correct_call"},
        {"tag": "tag3", "category": "boundary", "result": "pass"},
        {"anomaly": "json_call_in_text"},
        {"failure": "decision"},
        {"failure": "schema", "mode": "selection"},
        {"q": "weight_grams", "mode": "recovery"},
        {"case": "case-0007", "q": "ORD-000007"},
        {"case": "no-such-case"},
    ],
)
def test_the_table_matches_what_a_pass_over_every_row_matches(
    run: tuple[RunCatalog, RunEntry, RunSummary], f: dict[str, str]
) -> None:
    _, entry, summary = run
    expected = _brute_force(entry.path, f)
    assert summary.table.matching(f, query.ORDER) == expected
    page = query.query(entry.path, summary.table, f, 3, 10, True)
    assert page.total == len(expected) and [row["n"] for row in page.rows] == expected[3:13]
