"""Damaged lines of ``records.jsonl`` are counted, exactly, whichever way the metrics are read: in one
pass, with an observer, and split over processes by case id (the parts' counts added up)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from records_builder import RunBuilder, call_outcome, error_outcome, text_outcome, verdict

from fcbench.metrics import RunMetrics, compute_metrics
from fcbench.metrics.fast.partition import fold_in_parts
from fcbench.report.jsonfmt import render_json
from fcbench.store.records import RECORDS_FILE, read_manifest

DAMAGE = [
    b'garbage {"case_id":"case-007" cut',  # not JSON, with a case id the parts place
    b"not json at all",  # not JSON, no case id: part 0's
    b'{"case_id":"case-011","x":NaNx}',  # decoder and json.loads both refuse it
    b"\xff\xfe not UTF-8",
    b"",  # an empty line
]


def mixed_run(run_dir: Path) -> Path:
    """Many cases whose repeats are far apart in the file, two targets and the two modes stream
    parity compares, errors, a replaced error and duplicates."""
    b = RunBuilder(run_dir, targets=[("mock", "a"), ("mock", "b")], modes=["selection", "stream"], repeats=3)
    for r in range(3):
        for i in range(100):
            for target in b.targets:
                for mode in b.modes:
                    case, pattern = f"case-{i:03d}", (i + r + (mode == "stream")) % 5
                    if pattern == 0:
                        b.add(case, error_outcome(), None, target=target, repeat=r, mode=mode)
                    if pattern == 1:
                        b.add(
                            case,
                            text_outcome("no"),
                            verdict("missed_call"),
                            target=target,
                            repeat=r,
                            mode=mode,
                        )
                        continue
                    b.add(
                        case,
                        call_outcome(("f", {"id": i + r % 2})),
                        verdict(),
                        target=target,
                        repeat=r,
                        mode=mode,
                    )
    return b.write()


def _damage(run: Path, torn: bool) -> int:
    """Insert every :data:`DAMAGE` line among the records (and a torn last line); how many."""
    path = run / RECORDS_FILE
    lines = path.read_bytes().split(b"\n")[:-1]
    for n, line in enumerate(DAMAGE):
        lines.insert(3 + n * 37, line)
    tail = b'{"run_id":"x","case_id":"case-099","repeat":0' if torn else b""
    path.write_bytes(b"\n".join(lines) + b"\n" + tail)
    return len(DAMAGE) + torn


@pytest.fixture(scope="module")
def damaged_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    run = mixed_run(tmp_path_factory.mktemp("damaged") / "run")
    return run, _damage(run, torn=True)


def test_one_pass_and_the_dict_pass_count_every_damaged_line(damaged_run: tuple[Path, int]) -> None:
    run, count = damaged_run
    seen: list[object] = []
    lines = compute_metrics(run)
    dicts = compute_metrics(run, observer=seen.append)
    assert lines.damaged_lines == dicts.damaged_lines == count == 6
    assert lines.to_json() == dicts.to_json()
    assert json.loads(render_json(lines))["damaged_lines"] == count


def test_the_parts_add_up_to_the_count_of_one_pass(damaged_run: tuple[Path, int]) -> None:
    run, count = damaged_run
    one = compute_metrics(run)
    manifest = read_manifest(run)
    for parts in (2, 3):
        split = fold_in_parts(run, manifest, None, parts)
        assert split is not None  # damaged lines do not send the parts back to one pass
        assert split.damaged_lines == count
        assert render_json(split) == render_json(one)
    assert render_json(compute_metrics(run, parts=2)) == render_json(one)


def test_the_damage_loses_only_the_observations_it_held(tmp_path: Path) -> None:
    clean = mixed_run(tmp_path / "clean")
    damaged = mixed_run(tmp_path / "damaged")
    _damage(damaged, torn=False)
    a, b = compute_metrics(clean), compute_metrics(damaged)
    assert (a.damaged_lines, b.damaged_lines) == (0, len(DAMAGE))
    same = RunMetrics.model_validate({**b.model_dump(), "damaged_lines": 0})
    assert same.to_json() == a.to_json()  # inserted lines: nothing else changed


def test_a_torn_last_line_counts_once_and_not_after_it_is_dropped(tmp_path: Path) -> None:
    run = RunBuilder(tmp_path / "run").add("c1", call_outcome(("f", {})), verdict()).write()
    path = run / RECORDS_FILE
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"run_id": "run-test", "seq": 1, "case_id": "c2"')
    m = compute_metrics(run)
    assert (m.records_read, m.damaged_lines) == (1, 1)
    split = fold_in_parts(run, read_manifest(run), None, 2)
    assert split is not None and split.damaged_lines == 1  # read by every part, counted by one
    path.write_bytes(whole)
    assert compute_metrics(run).damaged_lines == 0
