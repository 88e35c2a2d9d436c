"""Anomalies per target, mode and code in every report format, on a hand-built run with known counts."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from records_builder import RunBuilder, call_outcome, error_outcome, text_outcome, verdict

from fcbench.contract import ANOMALY_CODES, Anomaly
from fcbench.metrics import Rate, compute_metrics
from fcbench.report.common import fmt_rate_ci
from fcbench.report.html import render_html
from fcbench.report.render import render_report

ALPHA = ("mock", "alpha")
BETA = ("mock", "beta")
CALL = call_outcome(("lookup_order", {"order_id": "ORD-1"}))

# alpha, accepted observations (6): c1 x3, c2 r1 and r2, c3 r0 (the replacing record)
ALPHA_CODES = {
    "empty_response": 1,
    "json_call_in_text": 2,
    "missing_call_id": 1,
    "tool_not_offered": 1,
    "unknown_event": 1,
}
ALPHA_WITH = Rate(n=4, d=6)


def with_anomalies(b: RunBuilder, *codes: str) -> None:
    """Give the record just added these adapter anomalies."""
    last = b.records[-1]
    b.records[-1] = last.model_copy(
        update={"anomalies": [Anomaly(code=c, detail=f"{c} here") for c in codes]}
    )


def graded(decision: str, *codes: str, passed: bool | None = None) -> dict[str, Any]:
    v = verdict(decision, passed)
    v["anomalies"] = list(codes)
    return v


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    b = RunBuilder(tmp_path_factory.mktemp("anomalies") / "run", repeats=3, targets=[ALPHA, BETA])
    a = {"target": ALPHA}
    # c1: the adapter's code and the grader's (each code once per observation)
    b.add("c1", CALL, graded("correct_call", "missing_call_id", "tool_not_offered"), repeat=0, **a)
    with_anomalies(b, "missing_call_id")
    b.add("c1", CALL, verdict(), repeat=1, **a)
    b.add(
        "c1",
        text_outcome('{"name": "lookup_order"}'),
        graded("missed_call", "json_call_in_text"),
        repeat=2,
        **a,
    )
    with_anomalies(b, "json_call_in_text")
    # a duplicate of c1 r0 is ignored, anomalies included
    b.add("c1", CALL, verdict(), repeat=0, **a)
    with_anomalies(b, "unknown_content")
    # c2: a provider error is not accepted (its anomaly is not counted); a harness error is
    b.add("c2", error_outcome("server", 500), None, repeat=0, **a)
    with_anomalies(b, "stream_incomplete")
    b.add("c2", CALL, None, repeat=1, error="boom", **a)
    with_anomalies(b, "unknown_event")
    b.add("c2", text_outcome("{}"), graded("missed_call"), repeat=2, **a)
    with_anomalies(b, "json_call_in_text", "empty_response")
    # c3: a harness error with an anomaly, replaced by a clean record: the anomaly goes with it
    b.add("c3", CALL, None, repeat=0, error="boom", **a)
    with_anomalies(b, "refusal_field")
    b.add("c3", CALL, verdict(), repeat=0, **a)
    # beta: clean
    b.add("c1", CALL, verdict(), target=BETA)
    return b.write()


def md_table(md: str, heading: str, index: int = 0) -> list[list[str]]:
    """The ``index``-th table under ``## heading``, as cells (escaped pipes kept)."""
    body = md.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    tables = [t for t in re.split(r"\n\s*\n", body) if t.lstrip().startswith("|")]
    lines = tables[index].strip().splitlines()
    return [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]


def test_metrics_count_anomalies_per_code_over_accepted_observations(run: Path) -> None:
    metrics = compute_metrics(run)
    alpha, beta = metrics.find("mock:alpha", "selection"), metrics.find("mock:beta", "selection")
    assert alpha is not None and beta is not None
    assert alpha.anomalies == ALPHA_CODES
    assert list(alpha.anomalies) == sorted(ALPHA_CODES)
    assert alpha.with_anomalies == ALPHA_WITH
    assert (beta.anomalies, beta.with_anomalies) == ({}, Rate(n=0, d=1))
    cases = {(c.target, c.case_id): c.anomalies for c in metrics.cases}
    assert cases == {
        ("mock:alpha", "c1"): {"json_call_in_text": 1, "missing_call_id": 1, "tool_not_offered": 1},
        ("mock:alpha", "c2"): {"empty_response": 1, "json_call_in_text": 1, "unknown_event": 1},
        ("mock:alpha", "c3"): {},
        ("mock:beta", "c1"): {},
    }


def test_markdown_lists_codes_with_counts_and_meanings(run: Path) -> None:
    md = render_report(run, "md")
    per_target = md_table(md, "Anomalies", 0)
    assert per_target[0] == ["Target", "Mode", "Observations with anomalies", "By code"]
    assert per_target[2][:3] == ["mock:alpha", "selection", fmt_rate_ci(ALPHA_WITH)]
    assert per_target[3] == ["mock:beta", "selection", fmt_rate_ci(Rate(n=0, d=1)), "none"]
    codes = md_table(md, "Anomalies", 1)
    assert codes[0] == ["Code", "Meaning", "mock:alpha", "mock:beta"]
    got = {row[0].replace("\\_", "_"): row[1:] for row in codes[2:]}
    assert got == {code: [ANOMALY_CODES[code], str(n), "0"] for code, n in ALPHA_CODES.items()}


def test_markdown_worst_cases_show_each_cases_anomalies(run: Path) -> None:
    worst = md_table(render_report(run, "md"), "Worst cases")
    header = worst[0]
    assert header[-1] == "Anomalies"
    by_case = {row[0]: row[-1].replace("\\_", "_") for row in worst[2:]}
    assert by_case == {
        "c1": "json_call_in_text 1, missing_call_id 1, tool_not_offered 1",
        "c2": "empty_response 1, json_call_in_text 1, unknown_event 1",
    }


def test_json_carries_the_counts(run: Path) -> None:
    data = json.loads(render_report(run, "json"))
    alpha = next(t for t in data["targets"] if t["target"] == "mock:alpha")
    assert alpha["anomalies"] == ALPHA_CODES
    assert (alpha["with_anomalies"]["n"], alpha["with_anomalies"]["d"]) == (4, 6)
    c2 = next(c for c in data["cases"] if c["target"] == "mock:alpha" and c["case_id"] == "c2")
    assert c2["anomalies"] == {"empty_response": 1, "json_call_in_text": 1, "unknown_event": 1}


def test_csv_has_one_row_per_target_mode_and_code(run: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(render_report(run, "csv"))))
    counts = {(r["target"], r["mode"], r["key"]): r["value"] for r in rows if r["metric"] == "anomalies"}
    assert counts == {("mock:alpha", "selection", code): str(n) for code, n in ALPHA_CODES.items()}
    share = {r["target"]: (r["n"], r["d"]) for r in rows if r["metric"] == "with_anomalies"}
    assert share == {"mock:alpha": ("4", "6"), "mock:beta": ("0", "1")}


def test_junit_has_an_anomaly_property_per_code_on_each_testsuite(run: Path) -> None:
    root = ET.fromstring(render_report(run, "junit").encode("utf-8"))
    props = {
        suite.get("name"): {
            p.get("name"): p.get("value")
            for p in suite.iter("property")
            if (p.get("name") or "").startswith("anomaly.")
        }
        for suite in root.iter("testsuite")
    }
    assert props == {
        "mock:alpha [selection]": {f"anomaly.{code}": str(n) for code, n in ALPHA_CODES.items()},
        "mock:beta [selection]": {},
    }


def test_github_summary_has_an_anomalies_column(run: Path) -> None:
    lines = render_report(run, "github").splitlines()
    header = next(line for line in lines if line.startswith("| Name |"))
    assert header.rstrip().endswith("| Provider errors | Anomalies |")
    alpha = next(line for line in lines if line.startswith("| mock:alpha |"))
    cells = [c.strip().replace("\\_", "_") for c in re.split(r"(?<!\\)\|", alpha)[1:-1]]
    assert cells[-1] == ", ".join(f"{code} {n}" for code, n in ALPHA_CODES.items())
    beta = next(line for line in lines if line.startswith("| mock:beta |"))
    assert beta.rstrip().endswith("| none | none |")


def embedded(html: str, element_id: str) -> Any:
    match = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', html, re.S)
    assert match, element_id
    return json.loads(match.group(1))


@pytest.fixture(scope="module")
def page(run: Path) -> str:
    return render_html(run)


def test_html_lists_anomalies_and_offers_an_anomaly_filter(page: str) -> None:
    table = page.split('id="anomalies-table"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(
        r"<tr data-code=\"([a-z_]+)\"><td>([^<]*)</td><td>([^<]*)</td>"
        r"<td>[^<]*</td><td>([^<]*)</td><td>(\d+)</td>",
        table,
    )
    assert {(code, target, meaning, int(n)) for code, target, _, meaning, n in rows} == {
        (code, "mock:alpha", ANOMALY_CODES[code], n) for code, n in ALPHA_CODES.items()
    }
    select = page.split('id="filter-anomaly"', 1)[1].split("</select>", 1)[0]
    # the drill-down embeds every record, so its filter also offers the codes of the provider error,
    # the duplicate and the replaced record
    extra = ["refusal_field", "stream_incomplete", "unknown_content"]
    assert re.findall(r'<option value="([^"]*)">', select) == ["", *sorted([*ALPHA_CODES, *extra])]
    summary = page.split('id="summary"', 1)[1].split("</table>", 1)[0]
    assert "Observations with anomalies" in summary and fmt_rate_ci(ALPHA_WITH) in summary


def test_html_observations_carry_their_codes(page: str) -> None:
    observations = embedded(page, "obs-data")
    codes = sorted((o["target"], o["case_id"], o["repeat"], o["anomalies"]) for o in observations)
    assert codes == [
        ("mock:alpha", "c1", 0, ["missing_call_id", "tool_not_offered"]),
        ("mock:alpha", "c1", 0, ["unknown_content"]),  # the duplicate, shown but not counted
        ("mock:alpha", "c1", 1, []),
        ("mock:alpha", "c1", 2, ["json_call_in_text"]),
        ("mock:alpha", "c2", 0, ["stream_incomplete"]),  # a provider error, shown but not counted
        ("mock:alpha", "c2", 1, ["unknown_event"]),
        ("mock:alpha", "c2", 2, ["json_call_in_text", "empty_response"]),
        ("mock:alpha", "c3", 0, []),
        ("mock:alpha", "c3", 0, ["refusal_field"]),  # replaced by the clean record
        ("mock:beta", "c1", 0, []),
    ]


NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="needs node to run the page's filter function")
@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("json_call_in_text", [["c1", 2], ["c2", 2]]),
        ("unknown_event", [["c2", 1]]),
        ("refusal_field", [["c3", 0]]),
        ("tool_choice_ignored", []),
        ("", None),
    ],
)
def test_html_filter_keeps_only_observations_with_the_code(
    page: str, tmp_path: Path, code: str, expected: Any
) -> None:
    """Runs the page's own ``keep`` function over its embedded observations."""
    assert NODE is not None
    keep = re.search(r"\n  function keep\(o, f\) \{\n.*?\n  \}\n", page, re.S)
    assert keep, "the drill-down filter function was not found"
    observations = embedded(page, "obs-data")
    script = (
        "var cell = null;\n"
        + keep.group(0)
        + f"\nvar obs = {json.dumps(observations)};\n"
        + f"var f = {{category: '', tag: '', target: '', decision: '', anomaly: {json.dumps(code)}}};\n"
        + "console.log(JSON.stringify(obs.filter(function (o) { return keep(o, f); })"
        + ".map(function (o) { return [o.case_id, o.repeat]; })));\n"
    )
    path = tmp_path / "filter.js"
    path.write_text(script, encoding="utf-8")
    out = subprocess.run([NODE, str(path)], capture_output=True, text=True, timeout=60, check=True).stdout
    kept = sorted(json.loads(out))
    if expected is None:
        assert len(kept) == len(observations)
    else:
        assert kept == expected
