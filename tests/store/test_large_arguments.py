"""A ~10 MB argument is stored once in its record (record format 3): the raw text and the verdict's
actual value are left out and put back exactly by every reader; a record of format 2, holding the
three copies, reads and reports the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_run import fcbench
from records_builder import RunBuilder, call_outcome, verdict

from fcbench.metrics import compute_metrics
from fcbench.store.blobs import BLOBS_FILE, load_blobs
from fcbench.store.elide import LARGE_VALUE_BYTES, PREVIEW_CHARS
from fcbench.store.records import RECORDS_FILE, iter_records
from fcbench.store.view import iter_views

MB = 2**20
BIG = "".join(f"line {i:07d} of a pasted log. " for i in range(10 * MB // 28))
"""About 10 MB of argument text (it compresses, as logs do)."""


def _outcome(raw: str) -> dict[str, Any]:
    outcome = call_outcome(("save_note", {"body": BIG, "order_id": "ORD-1"}))
    outcome["calls"][0]["raw_arguments"] = raw
    return outcome


def _wrong() -> dict[str, Any]:
    found = verdict("correct_call", False)
    found["wrong"] = [{"key": "body", "expected": "a short note", "actual": BIG}]
    return found


COMPACT = json.dumps({"body": BIG, "order_id": "ORD-1"}, separators=(",", ":"))
SPACED = json.dumps({"body": BIG, "order_id": "ORD-1"})  # as many models send it: ", " and ": "


def _run(where: Path, raw: str) -> Path:
    return RunBuilder(where).add("c1", _outcome(raw), _wrong()).write()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("large")
    return {"compact": _run(root / "compact", COMPACT), "spaced": _run(root / "spaced", SPACED)}


@pytest.mark.parametrize("style", ["compact", "spaced"])
def test_the_records_file_holds_about_one_copy(runs: dict[str, Path], style: str) -> None:
    size = (runs[style] / RECORDS_FILE).stat().st_size
    assert len(BIG) <= size < len(BIG) * 1.05, size  # format 2 held three copies: > 30 MB
    blobs = (runs[style] / BLOBS_FILE).stat().st_size
    assert blobs < len(BIG) // 4  # the spaced raw text is kept there, compressed once


@pytest.mark.parametrize("style", ["compact", "spaced"])
def test_every_byte_comes_back(runs: dict[str, Path], style: str) -> None:
    (record,) = iter_records(runs[style] / RECORDS_FILE)
    call = record.outcome.calls[0]  # type: ignore[union-attr]
    assert call.raw_arguments == (COMPACT if style == "compact" else SPACED)
    assert call.arguments == {"body": BIG, "order_id": "ORD-1"}
    assert record.verdict is not None and record.verdict.wrong[0].actual == BIG
    assert record.elided == []
    line = json.loads((runs[style] / RECORDS_FILE).read_text())
    assert line["verdict"]["wrong"][0]["actual"] == BIG[:PREVIEW_CHARS] + "…"
    assert line["outcome"]["calls"][0]["raw_arguments"] is None
    how = {e["at"]: e["how"] for e in line["elided"]}
    assert how == {
        "/outcome/calls/0/raw_arguments": "arguments" if style == "compact" else "blob",
        "/verdict/wrong/0/actual": "copy",
    }
    if style == "spaced":
        blob = next(e["source"] for e in line["elided"] if e["how"] == "blob")
        assert load_blobs(runs[style])[blob] == SPACED


def test_the_view_puts_the_values_back(runs: dict[str, Path]) -> None:
    for style, run in runs.items():
        (view,) = iter_views(run / RECORDS_FILE)
        verdict_data = view.verdict_data()
        assert verdict_data is not None and verdict_data["wrong"][0]["actual"] == BIG
        raw = json.loads(bytes(view.outcome.calls[0].raw_arguments))  # type: ignore[index]
        assert raw == (COMPACT if style == "compact" else None)  # a blob's text: read with the blobs
        left = json.loads(bytes(view.elided)) if style == "spaced" else None
        assert left is None or [e["how"] for e in left] == ["blob"]


def _format_2(run: Path, tmp: Path) -> Path:
    """The same observation as format 2 wrote it: every copy in the line, no ``elided``."""
    (record,) = iter_records(run / RECORDS_FILE)
    old = RunBuilder(tmp / "format-2").add("c1", _outcome(COMPACT), _wrong()).write()
    (old / RECORDS_FILE).write_text(record.model_dump_json() + "\n")
    return old


def test_format_2_records_read_and_report_the_same(runs: dict[str, Path], tmp_path: Path) -> None:
    old = _format_2(runs["compact"], tmp_path)
    assert (old / RECORDS_FILE).stat().st_size > 3 * len(BIG)
    (a,), (b,) = iter_records(old / RECORDS_FILE), iter_records(runs["compact"] / RECORDS_FILE)
    assert a == b
    one, two = compute_metrics(old), compute_metrics(runs["compact"])
    assert one.model_dump(exclude={"run"}) == two.model_dump(exclude={"run"})
    reasons = [r for c in two.cases for r in c.reasons]
    assert reasons and all(
        r.startswith('wrong body: expected "a short note", got "line 0000000') for r in reasons
    )


def test_show_prints_the_same_expected_and_actual(tmp_path: Path) -> None:
    """``show`` prints every byte of a value (10 MB takes minutes), so a value just over the limit."""
    value = BIG[: 2 * LARGE_VALUE_BYTES]
    outcome = call_outcome(("save_note", {"body": value}))
    outcome["calls"][0]["raw_arguments"] = json.dumps({"body": value})
    found = verdict("correct_call", False)
    found["wrong"] = [{"key": "body", "expected": "a short note", "actual": value}]
    new = RunBuilder(tmp_path / "new").add("c1", outcome, found).write()
    assert "elided" in (new / RECORDS_FILE).read_text()
    old = RunBuilder(tmp_path / "old").add("c1", outcome, found).write()
    (record,) = iter_records(new / RECORDS_FILE)
    (old / RECORDS_FILE).write_text(record.model_dump_json() + "\n")  # format 2: every copy
    shown = [fcbench("show", str(run), "--width", "120") for run in (old, new)]
    assert all(s.returncode == 0 for s in shown), [s.stderr for s in shown]
    assert shown[0].stdout == shown[1].stdout
    assert "line0000000ofapastedlog" in "".join(shown[0].stdout.split())


def test_small_values_are_written_as_before(tmp_path: Path) -> None:
    small = {"body": "x" * (LARGE_VALUE_BYTES // 2)}
    outcome = call_outcome(("save_note", small))
    outcome["calls"][0]["raw_arguments"] = json.dumps(small, separators=(",", ":"))
    found = verdict("correct_call", False)
    found["wrong"] = [{"key": "body", "expected": "a", "actual": small["body"]}]
    run = RunBuilder(tmp_path).add("c1", outcome, found).write()
    line = json.loads((run / RECORDS_FILE).read_text())
    assert "elided" not in line and line["verdict"]["wrong"][0]["actual"] == small["body"]
    assert line["outcome"]["calls"][0]["raw_arguments"] == outcome["calls"][0]["raw_arguments"]
