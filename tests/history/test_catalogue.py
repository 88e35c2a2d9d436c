"""The catalogue counts each run once, keeps what people wrote in it, and reads a run again only
when it grew. Run directories are built with the real record writer."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from records_builder import RunBuilder, call_outcome, error_outcome, verdict

from fcbench.errors import InputError
from fcbench.history import catalogue_path, load_catalogue, update_catalogue
from fcbench.store.records import RECORDS_FILE, RecordWriter

TARGET = ("mock", "m-loose")
STRING_WEIGHT = [{"key": "weight_grams", "expected": 750, "actual": "750"}]


def loose_run(root: Path, run_id: str, failing: int = 2) -> Path:
    run = RunBuilder(root / run_id, run_id=run_id, targets=[TARGET])
    for i in range(failing):
        run.add(
            f"types-{i:02d}",
            call_outcome(("get_shipping_quote", {"weight_grams": "750"})),
            verdict("correct_call", False, semantic_exact=False, wrong=STRING_WEIGHT),
            target=TARGET,
            tags=["types"],
        )
    run.add("ok-01", call_outcome(("lookup_order", {"order_id": "A"})), verdict(), target=TARGET)
    run.add("lost-01", error_outcome(), None, target=TARGET)  # coverage loss: never a pattern
    return run.write()


def string_weight(root: Path) -> dict[str, object]:
    data = json.loads(catalogue_path(root).read_text(encoding="utf-8"))
    (found,) = [p for p in data["patterns"] if p["fields"].get("key") == "weight_grams"]
    return found  # type: ignore[no-any-return]


def test_a_run_counts_once_however_often_the_catalogue_is_updated(tmp_path: Path) -> None:
    loose_run(tmp_path, "run-1")
    first = update_catalogue(tmp_path)
    again = update_catalogue(tmp_path)
    assert first.read == ["run-1"] and again.read == [] and again.unchanged == 1
    pattern = string_weight(tmp_path)
    assert pattern["count"] == 2 and pattern["runs"] == {"run-1": 2}
    assert pattern["description"] == "writes numbers as strings in `weight_grams` (get_shipping_quote)"
    assert pattern["first_run"] == pattern["last_run"] == "run-1"
    examples = pattern["examples"]
    assert [(e["run_id"], e["case_id"], e["seq"]) for e in examples] == [  # type: ignore[attr-defined]
        ("run-1", "types-00", 0),
        ("run-1", "types-01", 1),
    ]


def test_a_grown_run_replaces_its_own_counts(tmp_path: Path) -> None:
    run_dir = loose_run(tmp_path, "run-1")
    update_catalogue(tmp_path)
    grown = RunBuilder(tmp_path / "spare", run_id="run-1", targets=[TARGET])
    grown.add(
        "types-09",
        call_outcome(("get_shipping_quote", {"weight_grams": "9"})),
        verdict("correct_call", False, semantic_exact=False, wrong=STRING_WEIGHT),
        target=TARGET,
    )
    with RecordWriter(run_dir / RECORDS_FILE) as writer:  # a resumed run appends
        writer.append(grown.records[0])
    summary = update_catalogue(tmp_path)
    assert summary.read == ["run-1"]
    assert string_weight(tmp_path)["runs"] == {"run-1": 3}


def test_titles_notes_and_other_keys_survive_updates(tmp_path: Path) -> None:
    loose_run(tmp_path, "run-1")
    update_catalogue(tmp_path)
    path = catalogue_path(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    for p in data["patterns"]:
        if p["fields"].get("key") == "weight_grams":
            p.update(title="String weights", note="fixed by the v2 prompt", ticket="OPS-12")
        if p["kind"] == "tag":
            p["note"] = "watch this tag"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    loose_run(tmp_path, "run-2", failing=0)
    update_catalogue(tmp_path)
    pattern = string_weight(tmp_path)
    assert (pattern["title"], pattern["note"], pattern["ticket"]) == (
        "String weights",
        "fixed by the v2 prompt",
        "OPS-12",
    )
    assert pattern["count"] == 2 and pattern["last_run"] == "run-1"
    catalogue = load_catalogue(path)
    assert catalogue is not None and set(catalogue.runs) == {"run-1", "run-2"}
    assert any(p.note == "watch this tag" for p in catalogue.patterns)


def test_a_file_that_is_not_a_catalogue_is_a_clear_error(tmp_path: Path) -> None:
    catalogue_path(tmp_path).write_text('{"patterns": [{"id": 1}]}', encoding="utf-8")
    with pytest.raises(InputError, match=r"catalogue.json: not a catalogue: patterns\.0\."):
        load_catalogue(catalogue_path(tmp_path))


def test_the_report_section_names_known_patterns_and_survives_a_broken_catalogue(tmp_path: Path) -> None:
    from fcbench.report.markdown import known_patterns_section

    run_dir = loose_run(tmp_path, "run-1")
    assert known_patterns_section(run_dir) == ""  # no catalogue beside the run
    update_catalogue(tmp_path)
    section = known_patterns_section(run_dir)
    pattern_id = string_weight(tmp_path)["id"]
    assert f"| mock:m-loose | `{pattern_id}` | writes numbers as strings in \\`weight\\_grams\\`" in section
    catalogue_path(tmp_path).write_text("[]", encoding="utf-8")
    assert "The catalogue could not be read" in known_patterns_section(run_dir)


class EditWhileScanning(dict[str, object]):
    """The ``scans`` of an updater that, while it reads its run, lets a person edit the catalogue
    and a second updater start; it then waits (up to a second) for that updater to finish."""

    def __init__(self, path: Path, scanning: threading.Event, other_done: threading.Event) -> None:
        super().__init__()
        self._path, self._scanning, self._other_done = path, scanning, other_done

    def __bool__(self) -> bool:
        return True

    def get(self, key: str, default: object = None) -> object:
        data = json.loads(self._path.read_text(encoding="utf-8"))
        for p in data["patterns"]:
            if p["fields"].get("key") == "weight_grams":
                p.update(title="String weights", note="written during an update")
        self._path.write_text(json.dumps(data, indent=2), encoding="utf-8")
        self._scanning.set()
        self._other_done.wait(timeout=1.0)  # with a lock the other updater waits for this one
        return default


def test_two_concurrent_updaters_and_a_human_edit_lose_nothing(tmp_path: Path) -> None:
    from fcbench.history.runs import find_runs

    loose_run(tmp_path, "run-1")
    update_catalogue(tmp_path)
    loose_run(tmp_path, "run-2")
    loose_run(tmp_path, "run-3", failing=1)
    found = {run.manifest.run_id: run for run in find_runs(tmp_path).runs}
    path = catalogue_path(tmp_path)
    scanning, b_done = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def updater(run_id: str, scans: dict[str, object] | None, done: threading.Event | None) -> None:
        try:
            update_catalogue(tmp_path, [found[run_id]], scans)  # type: ignore[arg-type]
        except BaseException as exc:  # noqa: BLE001 - reported by the test below
            errors.append(exc)
        finally:
            if done is not None:
                done.set()

    a = threading.Thread(target=updater, args=("run-2", EditWhileScanning(path, scanning, b_done), None))
    a.start()
    assert scanning.wait(timeout=60), errors
    b = threading.Thread(target=updater, args=("run-3", None, b_done))
    b.start()
    a.join(timeout=60)
    b.join(timeout=60)
    assert not errors, errors
    catalogue = load_catalogue(path)
    assert catalogue is not None and set(catalogue.runs) == {"run-1", "run-2", "run-3"}
    pattern = string_weight(tmp_path)
    assert (pattern["title"], pattern["note"]) == ("String weights", "written during an update")
    assert pattern["runs"] == {"run-1": 2, "run-2": 2, "run-3": 1}
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith((".tmp", ".partial"))] == []
