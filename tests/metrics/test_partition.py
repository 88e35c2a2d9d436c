"""A run's metrics folded in parts (one per process, each holding some case ids) are the metrics of
one pass, byte for byte; a run the parts cannot place falls back to one pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from records_builder import RunBuilder, call_outcome, error_outcome, text_outcome, verdict

from fcbench.metrics import compute_metrics
from fcbench.metrics.fast.lines import Share
from fcbench.metrics.fast.partition import fold_in_parts, parts_for
from fcbench.report.jsonfmt import render_json
from fcbench.report.markdown import render_markdown
from fcbench.store.records import RECORDS_FILE, read_manifest

TARGETS = [("mock", "a"), ("mock", "b")]
CASES = 120
REPEATS = 3


def _error(code: str, message: str) -> dict[str, Any]:
    return {**error_outcome(code), "message": message}


def mixed_run(run_dir: Path) -> Path:
    """Many cases, their repeats far apart in the file (so a case's records are spread over every
    part's lines), both modes stream parity compares, errors with different messages, replaced and
    duplicated records, drifting arguments, reasons, costs whose sum depends on its order, and a
    target found only in the records, first met late."""
    b = RunBuilder(run_dir, targets=TARGETS, modes=["selection", "stream"], repeats=REPEATS)
    for r in range(REPEATS):
        for i in range(CASES):
            for target in TARGETS:
                for mode in ("selection", "stream"):
                    pattern = (i + r + (mode == "stream")) % 7
                    cost = [0.1, 0.2, 0.3, 1e-9, 0.7, 1 / 3, 2.5e-5][(i * 3 + r) % 7]
                    extra = {
                        "category": ["normal", "boundary"][i % 2],
                        "tags": [f"t{i % 5}"],
                        "cost_usd": cost,
                    }
                    case = f"case-{i:03d}"
                    if pattern == 0:
                        b.add(case, _error(["rate_limited", "server"][i % 2], f"at {i}/{r}"), None,
                              target=target, repeat=r, mode=mode, **extra)  # fmt: skip
                        if i % 3 == 0:  # a later record of the same key replaces the error
                            b.add(case, call_outcome(("f", {"id": i})), verdict(), target=target,
                                  repeat=r, mode=mode, **extra)  # fmt: skip
                        continue
                    if pattern == 1:
                        outcome, v = text_outcome("no"), verdict("missed_call", reasons=[f"r{i % 4}", "x"])
                    elif pattern == 2:
                        outcome, v = call_outcome(("f", {"id": i + r})), verdict()
                    elif pattern == 3:
                        outcome, v = text_outcome("Which?"), verdict("correct_clarification")
                    else:
                        outcome, v = call_outcome(("f", {"id": i})), verdict("correct_call", r != 1)
                    b.add(case, outcome, v, target=target, repeat=r, mode=mode,
                          expected_kind=["tool", "text", "clarification"][i % 3],
                          latency_ms=100.0 + (i * 7 + r) % 13, **extra)  # fmt: skip
                    if i % 11 == 0:  # a duplicate, ignored
                        b.add(case, outcome, v, target=target, repeat=r, mode=mode, **extra)
        b.add(f"case-{r:03d}", text_outcome("late"), verdict("missed_call"), target=("other", "z"), repeat=r)
    return b.write()


def test_parts_give_the_metrics_of_one_pass_byte_for_byte(tmp_path: Path) -> None:
    run = mixed_run(tmp_path / "run")
    case_ids = [f"case-{i:03d}" for i in range(CASES)]
    held = [sum(Share(p, 2).holds(c) for c in case_ids) for p in range(2)]
    assert min(held) > CASES // 4, held  # both parts hold many cases
    one = compute_metrics(run)
    manifest = read_manifest(run)
    for parts in (2, 3):
        split = fold_in_parts(run, manifest, None, parts)
        assert split is not None
        assert render_json(split) == render_json(one)
        assert render_markdown(split) == render_markdown(one)
    stream = one.find("mock:a", "stream")
    assert stream is not None and stream.stream_parity is not None and stream.stream_parity.d > 0
    assert [t.target for t in one.targets][-1] == "other:z"
    assert stream.duplicates > 0 and len(stream.provider_error_examples) == 2
    # only some modes, through compute_metrics
    only = compute_metrics(run, modes=["stream"], parts=2)
    assert render_json(only) == render_json(compute_metrics(run, modes=["stream"]))


def _escaped_line(run: Path) -> None:
    """Rewrite one record's case id with a JSON escape that sends its line to another part than
    its case id's."""
    path = run / RECORDS_FILE
    lines = path.read_bytes().splitlines()
    for n, line in enumerate(lines):
        case_id = json.loads(line)["case_id"]
        escaped = line.replace(
            f'"case_id":"{case_id}"'.encode(), b'"case_id":"\\u0063' + case_id[1:].encode() + b'"'
        )
        if Share(0, 2).owns([escaped]) != [Share(0, 2).holds(case_id)]:
            lines[n] = escaped
            path.write_bytes(b"\n".join(lines) + b"\n")
            return
    raise AssertionError("no case id to escape")


def test_a_record_the_parts_cannot_place_is_read_in_one_pass(tmp_path: Path) -> None:
    run = mixed_run(tmp_path / "run")
    _escaped_line(run)
    assert fold_in_parts(run, read_manifest(run), None, 2) is None
    assert render_json(compute_metrics(run, parts=2)) == render_json(compute_metrics(run))


def test_a_nan_latency_is_read_in_one_pass(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path / "run", repeats=2)
    for i in range(40):
        for r in range(2):
            b.add(
                f"c{i}",
                call_outcome(("f", {})),
                verdict(),
                repeat=r,
                latency_ms=7.25 if i < 4 else 5.0 + i,
            )
    run = b.write()
    path = run / RECORDS_FILE
    path.write_bytes(path.read_bytes().replace(b'"latency_ms":7.25', b'"latency_ms":NaN'))
    assert fold_in_parts(run, read_manifest(run), None, 2) is None
    one = compute_metrics(run)
    assert one.targets[0].latency_ms.count == 80
    assert render_json(compute_metrics(run, parts=2)) == render_json(one)


@pytest.mark.parametrize("damage", [b'{"run_id": "x", "seq": 0}\n', b"not json\n"])
def test_a_damaged_run_says_what_one_pass_says(tmp_path: Path, damage: bytes) -> None:
    run = mixed_run(tmp_path / "run")
    with (run / RECORDS_FILE).open("ab") as fh:
        fh.write(damage)
    try:
        expected = render_json(compute_metrics(run))
    except Exception as exc:  # the same error either way
        with pytest.raises(type(exc), match="record"):
            compute_metrics(run, parts=2)
        return
    assert render_json(compute_metrics(run, parts=2)) == expected


def test_small_runs_or_one_core_are_read_in_one_process(tmp_path: Path) -> None:
    run = mixed_run(tmp_path / "run")
    assert parts_for(run, cpus=8) == 1  # kilobytes: a worker would start slower than the pass
    assert parts_for(tmp_path / "missing", cpus=8) == 1


def test_parity_of_a_mode_found_only_in_the_records(tmp_path: Path) -> None:
    """A pass keeps what stream parity compares only when the manifest has both its modes; records
    of a mode the manifest lacks make it fold again, keeping it."""
    b = RunBuilder(tmp_path / "run", modes=["selection"], repeats=2)
    for i in range(30):
        for r in range(2):
            for mode in ("selection", "stream"):
                outcome = (
                    text_outcome("no") if (i + r + (mode == "stream")) % 4 == 0 else call_outcome(("f", {}))
                )
                decision = "missed_call" if outcome["kind"] == "text" else "correct_call"
                b.add(f"c{i}", outcome, verdict(decision), repeat=r, mode=mode)
    run = b.write()
    seen: list[dict[str, Any]] = []
    dicts = compute_metrics(run, observer=seen.append)  # the dict pass keeps it from the start
    stream = dicts.find("mock:sim-a", "stream")
    assert stream is not None and stream.stream_parity is not None
    assert 0 < stream.stream_parity.n < stream.stream_parity.d == 60
    for parts in (1, 2):
        assert render_json(compute_metrics(run, parts=parts)) == render_json(dicts)
    assert fold_in_parts(run, read_manifest(run), None, 2, parity=False) is None
