"""Argument drift, stream parity and Wilson intervals on hand-built runs with known answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from records_builder import RunBuilder, call_outcome, error_outcome, text_outcome, verdict

from fcbench.contract import MODES
from fcbench.metrics import ArgumentDrift, ParityDifference, Rate, RunMetrics, compute_metrics
from fcbench.metrics.aggregate import PARITY_MODES
from fcbench.metrics.drift import MAX_DRIFT_KEYS, MAX_DRIFT_VALUES
from fcbench.metrics.stats import wilson_interval
from fcbench.report.common import fmt_rate_ci
from fcbench.report.markdown import render_markdown

ALPHA = ("mock", "alpha")
BETA = ("mock", "beta")


def section(md: str, heading: str) -> list[list[str]]:
    """The table rows (cells) under ``## heading``, header first."""
    body = md.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return [
        [c.strip() for c in line.strip("|").split("|")] for line in body.splitlines() if line.startswith("|")
    ]


# --- Wilson intervals -------------------------------------------------------------------------

WILSON = [
    # n, d, low, high (3 decimals)
    (0, 0, None, None),
    (5, 10, 0.237, 0.763),
    (10, 10, 0.722, 1.0),
    (0, 10, 0.0, 0.278),
    (17, 20, 0.640, 0.948),
    (1, 1, 0.207, 1.0),
    (50, 100, 0.404, 0.596),
]


@pytest.mark.parametrize(("n", "d", "low", "high"), WILSON)
def test_wilson_interval_known_values(n: int, d: int, low: float | None, high: float | None) -> None:
    interval = wilson_interval(n, d)
    rate = Rate(n=n, d=d)
    if low is None:
        assert interval is None and rate.low is None and rate.high is None
        return
    assert interval is not None
    assert (round(interval[0], 3), round(interval[1], 3)) == (low, high)
    assert rate.low is not None and rate.high is not None and rate.rate is not None
    assert (round(rate.low, 3), round(rate.high, 3)) == (low, high)
    assert rate.low <= rate.rate <= rate.high


def test_wilson_rejects_impossible_counts_but_a_rate_never_raises() -> None:
    with pytest.raises(ValueError):
        wilson_interval(11, 10)
    assert Rate(n=11, d=10).low is None and Rate(n=-1, d=3).high is None


@pytest.mark.parametrize(
    ("n", "d", "digits", "text"),
    [
        (17, 20, 1, "85.0% (17/20) [64.0–94.8]"),
        (0, 0, 1, "– (0/0)"),
        (5, 10, 0, "50% (5/10) [24–76]"),
        (3, 3, 1, "100.0% (3/3) [43.9–100.0]"),
    ],
)
def test_rate_cell_shows_the_interval(n: int, d: int, digits: int, text: str) -> None:
    assert fmt_rate_ci(Rate(n=n, d=d), digits) == text


def test_intervals_are_in_the_json_and_older_json_still_reads(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path, repeats=2)
    for r in range(2):
        b.add("c1", call_outcome(("f", {"x": 1})), verdict(), repeat=r)
        b.add("c2", text_outcome("no"), verdict("missed_call"), repeat=r)
    metrics = compute_metrics(b.write())
    data = json.loads(metrics.to_json())
    assert data["targets"][0]["pass_rate"]["low"] == pytest.approx(0.1500, abs=1e-4)  # 2/4
    assert data["targets"][0]["pass_rate"]["high"] == pytest.approx(0.8500, abs=1e-4)
    assert data["targets"][0]["recovery_success"] == {"n": 0, "d": 0, "rate": None, "low": None, "high": None}

    new_fields = {"low", "high", "anomalies", "with_anomalies", "drifting_cases", "drift"}
    new_fields |= {"stream_parity", "stream_parity_differences"}

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in new_fields}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    old = json.dumps(strip(data))
    assert '"low"' not in old and '"with_anomalies"' not in old
    older = RunMetrics.from_json(old)
    assert strip(json.loads(older.to_json())) == strip(data)
    # what an older file cannot know reads as empty
    assert [(t.anomalies, t.with_anomalies, t.stream_parity) for t in older.targets] == [({}, Rate(), None)]
    assert older.targets[0].pass_rate.low == pytest.approx(0.1500, abs=1e-4)
    assert RunMetrics.from_json(metrics.to_json()) == metrics


def test_markdown_shows_intervals_beside_rates(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path, repeats=1)
    for i in range(10):
        b.add(f"c{i}", call_outcome(("f", {})), verdict() if i < 5 else verdict("wrong_tool"))
    md = render_markdown(compute_metrics(b.write()))
    header, _, row = section(md, "Summary")
    assert dict(zip(header, row, strict=True))["Pass rate"] == "50.0% (5/10) [23.7–76.3]"
    by_category = section(md, "Pass rate by category")
    assert by_category[2] == ["normal", "50.0% (5/10) [23.7–76.3]"]


# --- argument drift ---------------------------------------------------------------------------

KEY = "create_shipment.weight_grams"

DRIFT = [
    # name, arguments per repeat (None: a text answer), expected drift of the case
    (
        "int and float are one value",
        [{"weight_grams": 750}, {"weight_grams": 750.0}, {"weight_grams": 750}],
        {},
    ),
    (
        "a string is not a number",
        [{"weight_grams": "750"}, {"weight_grams": 750}, {"weight_grams": 750}],
        {KEY: ArgumentDrift(distinct=2, top=Rate(n=2, d=3))},
    ),
    (
        "three values",
        [{"weight_grams": 1}, {"weight_grams": 2}, {"weight_grams": 3}, {"weight_grams": 3}],
        {KEY: ArgumentDrift(distinct=3, top=Rate(n=2, d=4))},
    ),
    (
        "a dropped argument is a value",
        [
            {"weight_grams": 750, "fragile": True},
            {"weight_grams": 750},
            {"weight_grams": 750, "fragile": True},
        ],
        {"create_shipment.fragile": ArgumentDrift(distinct=2, top=Rate(n=2, d=3))},
    ),
    (
        "key order inside a value does not matter",
        [{"weight_grams": {"a": 1, "b": [1, 2]}}, {"weight_grams": {"b": [1.0, 2], "a": 1}}],
        {},
    ),
    (
        "a text repeat is not counted",
        [{"weight_grams": 750}, None, {"weight_grams": 750}],
        {},
    ),
    (
        "true is not 1",
        [{"weight_grams": True}, {"weight_grams": 1}],
        {KEY: ArgumentDrift(distinct=2, top=Rate(n=1, d=2))},
    ),
]


@pytest.mark.parametrize(("arguments", "expected"), [c[1:] for c in DRIFT], ids=[c[0] for c in DRIFT])
def test_argument_drift(
    tmp_path: Path, arguments: list[dict[str, Any] | None], expected: dict[str, Any]
) -> None:
    b = RunBuilder(tmp_path, repeats=len(arguments))
    for r, args in enumerate(arguments):
        if args is None:
            b.add("ship-01", text_outcome("Done."), verdict("missed_call"), repeat=r)
        else:
            b.add("ship-01", call_outcome(("create_shipment", args)), verdict(), repeat=r)
    metrics = compute_metrics(b.write())
    (case,) = metrics.cases
    assert case.drift == expected
    assert metrics.targets[0].drifting_cases == (1 if expected else 0)


def test_drift_ignores_errors_and_unparsed_arguments_and_orders_repeated_calls(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path, repeats=4)
    # two calls of one tool in a repeat are one unordered value: Paris+London == London+Paris
    b.add(
        "multi",
        call_outcome(("weather", {"city": "Paris"}), ("weather", {"city": "London"})),
        verdict(),
        repeat=0,
    )
    b.add(
        "multi",
        call_outcome(("weather", {"city": "London"}), ("weather", {"city": "Paris"})),
        verdict(),
        repeat=1,
    )
    b.add("multi", error_outcome(), None, repeat=2)  # a provider error is not a value
    b.add("multi", call_outcome(("weather", "not an object")), verdict(schema_valid=False), repeat=3)
    # another tool's argument of the same name is another key
    b.add("tools", call_outcome(("f", {"x": 1})), verdict(), repeat=0)
    b.add("tools", call_outcome(("g", {"x": 2})), verdict("wrong_tool"), repeat=1)
    # a wrong decision's call still counts: the key is the tool and the argument
    b.add("wrong", call_outcome(("f", {"x": 1})), verdict(), repeat=0)
    b.add(
        "wrong", call_outcome(("f", {"x": 2})), verdict("correct_call", False, semantic_exact=False), repeat=1
    )
    metrics = compute_metrics(b.write())
    drift = {c.case_id: c.drift for c in metrics.cases}
    assert drift == {
        "multi": {},
        "tools": {},
        "wrong": {"f.x": ArgumentDrift(distinct=2, top=Rate(n=1, d=2))},
    }
    assert metrics.targets[0].drifting_cases == 1


def test_drift_is_bounded_per_argument_and_per_case(tmp_path: Path) -> None:
    many = MAX_DRIFT_VALUES + 4
    b = RunBuilder(tmp_path, repeats=many)
    for r in range(many):
        b.add("many-values", call_outcome(("f", {"x": r})), verdict(), repeat=r)
    keys = {f"k{i:03d}": 1 for i in range(MAX_DRIFT_KEYS + 10)}
    b.add("many-keys", call_outcome(("f", keys)), verdict(), repeat=0)
    b.add("many-keys", call_outcome(("f", {})), verdict(), repeat=1)
    metrics = compute_metrics(b.write())
    drift = {c.case_id: c.drift for c in metrics.cases}
    # 16 values tracked, the other 4 counted as at least one more: a lower bound, flagged
    assert drift["many-values"] == {
        "f.x": ArgumentDrift(distinct=MAX_DRIFT_VALUES + 1, top=Rate(n=1, d=many), capped=True)
    }
    assert len(drift["many-keys"]) == MAX_DRIFT_KEYS
    assert drift["many-keys"]["f.k000"] == ArgumentDrift(distinct=2, top=Rate(n=1, d=2))
    assert "f.k070" not in drift["many-keys"]
    md = render_markdown(metrics)
    rows = section(md, "Argument drift")
    assert ["many-values", "mock:sim-a", "f.x", f"{MAX_DRIFT_VALUES + 1}+", f"1/{many}"] in rows


def test_markdown_lists_the_drifting_cases(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path, repeats=3, targets=[ALPHA, BETA])
    for r, value in enumerate(["750", 750, 750]):
        b.add(
            "ship-01",
            call_outcome(("create_shipment", {"weight_grams": value})),
            verdict(),
            target=ALPHA,
            repeat=r,
        )
        b.add(
            "ship-01",
            call_outcome(("create_shipment", {"weight_grams": 750.0})),
            verdict(),
            target=BETA,
            repeat=r,
        )
    md = render_markdown(compute_metrics(b.write()))
    rows = section(md, "Argument drift")
    assert rows[0] == ["Case", "Target", "Argument", "Distinct values", "Most common value's share"]
    assert rows[2:] == [["ship-01", "mock:alpha", "create\\_shipment.weight\\_grams", "2", "2/3"]]
    assert "1 case x target pairs" in md

    quiet = RunBuilder(tmp_path / "quiet")
    quiet.add("c", call_outcome(("f", {"x": 1})), verdict())
    assert "No argument varied over the repeats of a case." in render_markdown(compute_metrics(quiet.write()))


# --- stream parity ----------------------------------------------------------------------------


def parity_run(path: Path) -> Path:
    """alpha: 5 (case, repeat) pairs scored in both modes, 3 the same; beta: selection only."""
    b = RunBuilder(path, repeats=2, targets=[ALPHA, BETA], modes=["selection", "stream"])
    one, one_float, two = (call_outcome(("f", {"x": v})) for v in (1, 1.0, 2))
    plan: list[tuple[str, int, str, dict[str, Any], dict[str, Any] | None]] = [
        # the same in both repeats
        ("c1", 0, "selection", one, verdict()),
        ("c1", 0, "stream", one, verdict()),
        ("c1", 1, "selection", one, verdict()),
        ("c1", 1, "stream", one, verdict()),
        # 1 and 1.0 are the same outcome; repeat 1 streamed as text
        ("c2", 0, "selection", one, verdict()),
        ("c2", 0, "stream", one_float, verdict()),
        ("c2", 1, "selection", one, verdict()),
        ("c2", 1, "stream", text_outcome("ok"), verdict("missed_call")),
        # the same decision with other arguments differs
        ("c3", 0, "selection", one, verdict()),
        ("c3", 0, "stream", two, verdict("correct_call", False, semantic_exact=False)),
        # never scored in both modes for one repeat: not a pair
        ("c4", 0, "selection", one, verdict()),
        ("c4", 0, "stream", error_outcome(), None),
        ("c4", 1, "selection", error_outcome(), None),
        ("c4", 1, "stream", one, verdict()),
        # selection only
        ("c5", 0, "selection", one, verdict()),
    ]
    for case_id, repeat, mode, outcome, v in plan:
        b.add(case_id, outcome, v, target=ALPHA, repeat=repeat, mode=mode)
    b.add("c1", one, verdict(), target=BETA, mode="selection")
    return b.write()


def test_parity_modes_are_real_modes() -> None:
    assert set(PARITY_MODES) <= set(MODES)


def test_stream_parity_counts_pairs_and_lists_differing_cases(tmp_path: Path) -> None:
    metrics = compute_metrics(parity_run(tmp_path / "run"))
    alpha_stream = metrics.find("mock:alpha", "stream")
    alpha_selection = metrics.find("mock:alpha", "selection")
    beta_stream = metrics.find("mock:beta", "stream")
    assert alpha_stream is not None and alpha_selection is not None and beta_stream is not None
    assert alpha_stream.stream_parity == Rate(n=3, d=5)
    assert alpha_selection.stream_parity is None and alpha_selection.stream_parity_differences == []
    expected = [
        # case, differing n/d, repeats, selection decisions, stream decisions
        ("c2", 1, 2, [1], ["correct_call"], ["missed_call"]),
        ("c3", 1, 1, [0], ["correct_call"], ["correct_call"]),
    ]
    assert alpha_stream.stream_parity_differences == [
        ParityDifference(case_id=c, differing=Rate(n=n, d=d), repeats=r, selection=sel, stream=st)
        for c, n, d, r, sel, st in expected
    ]
    # beta has no stream records: nothing to compare, still reported
    assert beta_stream.stream_parity == Rate(n=0, d=0) and beta_stream.stream_parity_differences == []

    data = json.loads(metrics.to_json())
    stream = next(t for t in data["targets"] if t["target"] == "mock:alpha" and t["mode"] == "stream")
    assert stream["stream_parity"]["n"] == 3 and stream["stream_parity"]["d"] == 5
    assert [d["case_id"] for d in stream["stream_parity_differences"]] == ["c2", "c3"]

    md = render_markdown(metrics)
    rows = section(md, "Stream parity")
    assert ["mock:alpha", fmt_rate_ci(Rate(n=3, d=5)), "2"] in rows
    assert ["c2", "mock:alpha", "1/2", "r1: correct\\_call → missed\\_call"] in rows
    assert ["c3", "mock:alpha", "1/1", "r0: correct\\_call → correct\\_call"] in rows


def test_no_stream_parity_without_both_modes(tmp_path: Path) -> None:
    run = parity_run(tmp_path / "run")
    only_selection = compute_metrics(run, modes=["selection"])
    assert all(t.stream_parity is None for t in only_selection.targets)
    assert "## Stream parity" not in render_markdown(only_selection)
    assert "## Stream parity" in render_markdown(compute_metrics(run))


def test_exact_argument_rate_sits_beside_the_pass_rate(tmp_path: Path) -> None:
    from fcbench.report.render import render_report

    builder = RunBuilder(tmp_path, repeats=3)
    outcome = call_outcome(("search_orders", {"email": "sam@example.test", "limit": 20}))
    for repeat, exact in enumerate([True, False, False]):
        forgiven = {**verdict("correct_call", True), "params_match": exact}
        builder.add("tolerant-01", outcome, forgiven, repeat=repeat)
    run = builder.write()
    target = compute_metrics(run).targets[0]
    assert (target.pass_rate.n, target.pass_rate.d) == (3, 3)
    assert (target.params_match.n, target.params_match.d) == (1, 3)
    summary = render_report(run, "md")
    header = next(line for line in summary.splitlines() if "Exact arguments" in line)
    columns = [c.strip() for c in header.strip("|").split("|")]
    assert columns.index("Exact arguments") < columns.index("Pass rate")
    assert "33.3% (1/3)" in summary and "100.0% (3/3)" in summary
