"""The metrics read straight from record lines equal the metrics of the record dicts, field by field.

:func:`compute_metrics` reads ``strict`` metrics without an observer from the lines
(:mod:`fcbench.store.view`); with an observer it folds the decoded record dicts. Both must give
the same metrics: on real runs against the mock (every mode, faults, repeats) and on hand-written
lines with everything odd a record file can hold (duplicates and replacements, JSON the decoder
refuses, text that is not UTF-8, values of unexpected types, calls equal only canonically).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from records_builder import RunBuilder, call_outcome, error_outcome, text_outcome, verdict

from fcbench.errors import RunStateError
from fcbench.metrics import RunMetrics, compute_metrics
from fcbench.store.records import RECORDS_FILE


def both(run: Path, **kwargs: Any) -> tuple[RunMetrics, RunMetrics]:
    seen: list[dict[str, Any]] = []
    return compute_metrics(run, **kwargs), compute_metrics(run, observer=seen.append, **kwargs)


def assert_same(run: Path, **kwargs: Any) -> RunMetrics:
    """The two passes agree on every field (as JSON text: a NaN latency never equals itself)."""
    lines, dicts = both(run, **kwargs)
    assert lines.to_json() == dicts.to_json()
    return lines


def fcbench_run(out: Path, *args: str) -> Path:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "fcbench",
            "run",
            "--out",
            str(out),
            "--no-progress",
            "--min-coverage",
            "0",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    runs = list(out.iterdir()) if out.exists() else []
    assert len(runs) == 1, proc.stdout + proc.stderr
    return runs[0]


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("real")
    # A sample of the boundary cases, every target, two repeats: enough for stability and pass^k.
    boundary = ["--category", "boundary", "--sample", "24", "--repeats", "2"]
    return [
        fcbench_run(
            root / "modes", *boundary, "--mode", "selection", "--mode", "stream", "--mode", "recovery"
        ),
        fcbench_run(
            root / "faults",
            *boundary,
            "--mode",
            "selection",
            "--mode",
            "forced",
            "--mock-faults",
            "rate_limit:0.2,server_error:0.1,malformed_json:0.05,seed=4",
        ),
    ]


def test_real_runs_give_the_same_metrics_both_ways(real_runs: list[Path]) -> None:
    for run in real_runs:
        metrics = assert_same(run)
        assert metrics == both(run)[1]
        assert metrics.targets and any(t.scorable for t in metrics.targets)
        for modes in (["selection"], ["stream", "recovery"], ["forced"]):
            assert_same(run, modes=modes)
    parity = [t.stream_parity for t in compute_metrics(real_runs[0]).targets if t.mode == "stream"]
    assert parity and all(p is not None and p.d for p in parity)


CALL = call_outcome(("lookup_order", {"order_id": "ORD-104821", "weight": 750}))


def odd_run(tmp_path: Path) -> Path:
    b = RunBuilder(tmp_path, repeats=4, modes=["selection", "stream"])
    for r in range(4):
        b.add("c1", CALL, verdict(), repeat=r, tags=["t1", "t2"])
        b.add("c1", CALL, verdict(), repeat=r, mode="stream")
        b.add("c2", error_outcome(), None, repeat=r, cost_usd=None)
        b.add("c3", text_outcome("hi"), verdict("missed_call", reasons=["no call", "no call"]), repeat=r)
        b.add("c4", CALL, None, repeat=r, error="grader crashed" if r % 2 else None)
    b.add("c2", CALL, verdict(), repeat=1)  # replaces the rate-limited repeat
    b.add("c1", CALL, verdict("wrong_tool"), repeat=0)  # a duplicate: ignored, but billed
    run = b.write()
    good = json.loads((run / RECORDS_FILE).read_text().splitlines()[0])

    def variant(ascii: bool = True, **changes: Any) -> str:
        rec = json.loads(json.dumps(good))
        for path, value in changes.items():
            where = rec
            *parents, last = path.split("__")
            for key in parents:
                where = where[key]
            where[last] = value
        return json.dumps(rec, ensure_ascii=ascii)

    calls_reordered = [
        {"id": "x", "name": "lookup_order", "arguments": {"weight": 750.0, "order_id": "ORD-104821"}}
    ]
    lines = [
        variant(repeat=5, latency_ms=float("nan"), cost_usd=float("inf")),  # NaN / Infinity: json.loads only
        variant(repeat=6, verdict__reasons=["\ud800 lone surrogate"]),
        variant(repeat=7, outcome__calls=calls_reordered),  # the same outcome, canonically
        variant(
            repeat=8,
            outcome__calls=[*calls_reordered, {"name": "lookup_order", "arguments": {"x": [1, {"a": 2}]}}],
        ),
        variant(
            repeat=9, usage={"input_tokens": 1.5, "output_tokens": True}, latency_ms=True, cost_usd=False
        ),
        variant(
            repeat=10,
            usage=None,
            anomalies=["json_call_in_text", {"code": "odd"}, 7],
            verdict__anomalies=["odd"],
        ),
        variant(repeat=11, case_id="new", case={"category": 5, "tags": "ab", "prompt": "p" * 900}),
        variant(repeat=12, target={"endpoint": "mock", "model": "sim-a", "dialect": "other", "name": "x"}),
        variant(repeat=13, target={"model": "sim-a"}),  # no endpoint: label None:sim-a
        variant(repeat=14, verdict={"decision": None, "passed": True}),
        variant(repeat=15, verdict=["not", "a", "dict"]),
        variant(repeat=16, verdict__repairs=[{"kind": "call_from_text"}, "bad"], verdict__params_match=False),
        variant(
            repeat=17,
            verdict__passed=False,
            verdict__reasons=[],
            verdict__wrong=[{"key": "k", "expected": 1}, "w"],
        ),
        variant(repeat=18, verdict__recovery={"success": False, "outcome": "gave_up"}, mode="weird"),
        variant(repeat=19, outcome={"kind": "provider_error", "code": None, "message": "m" * 500}),
        variant(repeat=20, outcome={"kind": "text", "calls": "garbage ignored: not tool calls"}),
        variant(False, repeat=21, case_id="é-unicode", case__prompt="naïve ✓"),
        "not json at all",
        "",
    ]
    raw = "\n".join(lines).encode("utf-8") + b"\n"
    raw += (
        variant(repeat=22).encode().replace(b"ORD-104821", b"ORD-\xed\xa0\x80") + b"\n"
    )  # encoded surrogate
    raw += variant(repeat=23).encode().replace(b"ORD-104821", b"ORD-\xff") + b"\n"  # not UTF-8: skipped
    raw += variant(repeat=24)[:40].encode()  # a torn last line
    with (run / RECORDS_FILE).open("ab") as fh:
        fh.write(raw)
    return run


def test_odd_records_give_the_same_metrics_both_ways(tmp_path: Path) -> None:
    run = odd_run(tmp_path)
    metrics = assert_same(run)
    for modes in (["selection"], ["stream"], ["weird"], ["nothing"]):
        assert_same(run, modes=modes)
    t = metrics.find("mock:sim-a", "selection")
    assert t is not None
    assert t.duplicates == 1
    assert t.provider_errors == {"harness": 4, "rate_limited": 3, "ungraded": 2, "unknown": 1}
    assert t.tokens.unreported == 1 and t.cost_usd == float("inf")
    assert t.anomalies == {"json_call_in_text": 1, "odd": 1} and t.repairs == {"call_from_text": 1}
    assert metrics.find("None:sim-a", "selection") is not None
    weird = metrics.find("mock:sim-a", "weird")
    assert weird is not None and weird.recovery_outcomes == {"gave_up": 1}
    cases = {(c.target, c.mode, c.case_id): c for c in metrics.cases}
    c1 = cases["mock:sim-a", "selection", "c1"]
    # One outcome for the calls equal only canonically (key order, 750 and 750.0), one each for the
    # extra call, the encoded surrogate and the text outcome.
    assert c1.distinct_outcomes == 4 and c1.errors == 3
    assert {k: d.distinct for k, d in c1.drift.items()} == {
        "lookup_order.order_id": 3,
        "lookup_order.weight": 2,
        "lookup_order.x": 2,
    }
    assert cases["mock:sim-a", "selection", "c3"].reasons == {"no call": 8}
    assert metrics.records_read == len((run / RECORDS_FILE).read_bytes().split(b"\n")) - 4


@pytest.mark.parametrize(
    "line",
    [
        {"case_id": "c1", "repeat": "1", "mode": "selection", "target": {}, "outcome": {}},
        {"case_id": "c1", "repeat": True, "mode": "selection", "target": {}, "outcome": {}},
        {"case_id": "c1", "repeat": 1, "mode": "stream", "target": "mock:sim-a", "outcome": {}},
        [1, 2],
    ],
)
def test_a_line_that_is_not_a_record_is_named_either_way(tmp_path: Path, line: Any) -> None:
    run = RunBuilder(tmp_path, modes=["selection", "stream"]).add("c1", CALL, verdict()).write()
    with (run / RECORDS_FILE).open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")
    for observer in (None, lambda rec: None):
        for modes in (None, ["selection"]):  # not a record, whatever its mode
            with pytest.raises(RunStateError, match="record 2 is not a valid record"):
                compute_metrics(run, observer=observer, modes=modes)


def test_calls_of_a_tool_calls_outcome_that_are_not_objects_fail_either_way(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path)
    b.add("c1", CALL, verdict())
    run = b.write()
    rec = json.loads((run / RECORDS_FILE).read_text())
    rec["repeat"] = 1
    rec["outcome"]["calls"] = ["not a call"]
    with (run / RECORDS_FILE).open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec) + "\n")
    for observer in (None, lambda rec: None):
        with pytest.raises(RunStateError, match="record 2 is not a valid record"):
            compute_metrics(run, observer=observer)
