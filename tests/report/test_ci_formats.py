"""CI formats: JUnit XML checked against our own XSD (xmlschema) and read by a real consumer
(junitparser) with exact counts, and the GitHub step summary of ``fcbench report``.

The JUnit reports are made by ``python -m fcbench report`` in a subprocess, the GitHub summaries by
the same entry point in-process, on run directories written by the real record writer, or by
``fcbench run`` against the embedded mock provider over HTTP.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from cli_inprocess import fcbench_in_process
from junitparser import Error, Failure, JUnitXml, Skipped
from records_builder import RunBuilder, call_outcome, error_outcome, text_outcome, verdict

XSD = Path(__file__).resolve().parents[1] / "fixtures" / "junit" / "junit.xsd"
PROD = ("openai", "gpt-4o")
BETA = ("mock", "beta")

# Case id -> repeats: P pass, F fail, E rate_limited (429), O overloaded (529), H harness error,
# R a rate_limited record that a later passing record of the same repeat replaces.
PLAN: dict[tuple[str, str], dict[str, str]] = {
    PROD: {
        "pass-1": "PPP",
        "pass-2": "PPP",
        "fail-part": "PFP",
        "fail-all": "FFF",
        "lost-all": "EEE",
        "lost-one": "PEP",
        "harness": "PHP",
        "replaced": "RPP",
        "fail-and-lost": "FEP",
    },
    BETA: {"pass-1": "PPP", "lost-all": "OOO"},
}
EXPECTED = {
    PROD: {
        "pass-1": None,
        "pass-2": None,
        "fail-part": "failure",
        "fail-all": "failure",
        "lost-all": "error",
        "lost-one": "error",
        "harness": "error",
        "replaced": None,
        "fail-and-lost": "failure",
    },
    BETA: {"pass-1": None, "lost-all": "error"},
}
SCORED_MS, ERROR_MS, REPLACED_MS = 250.0, 50.0, 999.0


def build_run(run_dir: Path, plan: dict[tuple[str, str], dict[str, str]]) -> Path:
    b = RunBuilder(run_dir, run_id="ci-run", targets=list(plan), repeats=3)
    for target, cases in plan.items():
        for case_id, letters in cases.items():
            for repeat, letter in enumerate(letters):
                add: dict[str, Any] = {"target": target, "repeat": repeat, "latency_ms": SCORED_MS}
                if letter == "P":
                    b.add(case_id, call_outcome(("lookup_order", {"order_id": "1"})), verdict(), **add)
                elif letter == "F":
                    b.add(case_id, text_outcome("no"), verdict("missed_call"), **add)
                elif letter in "EOR":
                    code, status = ("overloaded", 529) if letter == "O" else ("rate_limited", 429)
                    add["latency_ms"] = REPLACED_MS if letter == "R" else ERROR_MS
                    b.add(case_id, error_outcome(code, status), None, cost_usd=None, **add)
                else:  # H: the harness failed after the provider answered
                    b.add(case_id, text_outcome("?"), None, error="RuntimeError: boom", **add)
    for target, cases in plan.items():  # the replacing records come last, as a resumed run writes them
        for case_id, letters in cases.items():
            if letters[0] == "R":
                good = call_outcome(("lookup_order", {"order_id": "1"}))
                b.add(case_id, good, verdict(), target=target, latency_ms=SCORED_MS)
    b.write()
    manifest_path = run_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["targets"][0]["name"] = "prod"
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    return run_dir


def report_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "fcbench", "report", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc


def report_in_process(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``fcbench report ARGS`` through the entry point, in this process."""
    proc = fcbench_in_process("report", *map(str, args))
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def junit_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The JUnit report of :data:`PLAN`, made by a real subprocess once; the tests only read it."""
    tmp_path = tmp_path_factory.mktemp("junit")
    run = build_run(tmp_path / "run", PLAN)
    out = tmp_path / "junit.xml"
    report_cli(run, "--format", "junit", "-o", out)
    return out


def test_junit_validates_against_the_xsd(junit_file: Path) -> None:
    schema = xmlschema.XMLSchema(str(XSD))
    schema.validate(str(junit_file))
    root = ET.parse(junit_file).getroot()
    for el in [root, *root.iter("testsuite"), *root.iter("testcase")]:
        assert el.get("time") is not None, el.attrib


def _mutated(junit_file: Path, change: str) -> str:
    root = ET.parse(junit_file).getroot()
    case = next(c for c in root.iter("testcase") if c.find("failure") is not None)
    if change == "two results":
        ET.SubElement(case, "error", type="x", message="y")
    elif change == "negative time":
        case.set("time", "-1.000")
    elif change == "no name":
        del case.attrib["name"]
    elif change == "unknown attribute":
        case.set("status", "failed")
    elif change == "count is not a number":
        root.set("failures", "three")
    return ET.tostring(root, encoding="unicode")


@pytest.mark.parametrize(
    "change", ["two results", "negative time", "no name", "unknown attribute", "count is not a number"]
)
def test_the_xsd_rejects_what_the_format_forbids(junit_file: Path, change: str) -> None:
    schema = xmlschema.XMLSchema(str(XSD))
    assert schema.is_valid(junit_file.read_text(encoding="utf-8"))
    assert not schema.is_valid(_mutated(junit_file, change))


def _status(case: Any) -> str | None:
    kinds = {Failure: "failure", Error: "error", Skipped: "skipped"}
    found = [kinds[type(r)] for r in case.result if type(r) in kinds]
    assert len(found) <= 1
    return found[0] if found else None


def test_junitparser_reads_exact_counts_errors_and_times(junit_file: Path) -> None:
    xml = JUnitXml.fromfile(str(junit_file))
    assert (xml.tests, xml.failures, xml.errors, xml.skipped) == (11, 3, 4, 0)
    suites = {suite.name: suite for suite in xml}
    assert set(suites) == {"openai:gpt-4o [selection]", "mock:beta [selection]"}
    counts = {name: (s.tests, s.failures, s.errors, s.skipped) for name, s in suites.items()}
    assert counts == {"openai:gpt-4o [selection]": (9, 3, 3, 0), "mock:beta [selection]": (2, 0, 1, 0)}
    for target, label in ((PROD, "openai:gpt-4o [selection]"), (BETA, "mock:beta [selection]")):
        suite = suites[label]
        statuses = {case.name.removesuffix(" [selection]"): _status(case) for case in suite}
        assert statuses == EXPECTED[target]
        assert suite.time == pytest.approx(sum(case.time for case in suite), abs=0.002)
        before = (suite.tests, suite.failures, suite.errors, suite.skipped)
        suite.update_statistics()  # junitparser recounts from the test cases themselves
        assert (suite.tests, suite.failures, suite.errors, suite.skipped) == before
    prod = {case.name.removesuffix(" [selection]"): case for case in suites["openai:gpt-4o [selection]"]}
    lost = prod["lost-all"].result[0]
    assert (lost.type, lost.message) == ("rate_limited", "rate_limited for test")
    assert "repeat 2: rate_limited (HTTP 429): rate_limited for test" in (lost.text or "")
    harness = prod["harness"].result[0]
    assert (harness.type, harness.message) == ("harness", "RuntimeError: boom")
    beta_lost = next(c for c in suites["mock:beta [selection]"] if c.name.startswith("lost-all")).result[0]
    assert beta_lost.type == "overloaded"
    mixed = prod["fail-and-lost"].result[0]
    assert isinstance(mixed, Failure)
    assert (mixed.message or "").startswith("1 of 2 repeats failed: ")
    assert (mixed.message or "").endswith("; 1 repeat lost to provider or harness errors")
    # time is the latency of the repeats that count: the replaced error's 999 ms is not among them
    assert prod["pass-1"].time == pytest.approx(3 * SCORED_MS / 1000)
    assert prod["lost-all"].time == pytest.approx(3 * ERROR_MS / 1000)
    assert prod["replaced"].time == pytest.approx(3 * SCORED_MS / 1000)
    assert xml.time == pytest.approx(sum(s.time for s in xml), abs=0.002)


def test_junit_of_a_real_run_with_provider_errors(tmp_path: Path) -> None:
    """``fcbench run`` against the embedded mock over HTTP, every request rate limited."""
    proc = subprocess.run(
        [sys.executable, "-m", "fcbench", "run", "--target", "sim:sim-careful", "--category", "adversarial"]
        + [
            "--repeats",
            "2",
            "--mock-faults",
            "rate_limit:1",
            "--out",
            str(tmp_path / "runs"),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    (run,) = (tmp_path / "runs").iterdir()
    out = tmp_path / "junit.xml"
    report_cli(run, "--format", "junit", "-o", out)
    xmlschema.XMLSchema(str(XSD)).validate(str(out))
    xml = JUnitXml.fromfile(str(out))
    assert xml.tests > 0, proc.stderr
    assert (xml.failures, xml.errors, xml.skipped) == (0, xml.tests, 0)
    types = {case.result[0].type for suite in xml for case in suite}
    assert types == {"rate_limited"}


def test_github_report_starts_with_the_verdict(tmp_path: Path) -> None:
    run = build_run(tmp_path / "run", PLAN)
    lines = report_in_process(run, "--format", "github").stdout.splitlines()
    assert lines[0] == "**FAIL**: 2 gate thresholds failed"  # the default gate: coverage below 90%
    assert lines[2].endswith(
        "Case results: 3 of 11 case x target results failed, 4 lost to provider or harness errors."
    )
    assert "- prod \\[selection\\]: coverage 77.8% (21/27) is below 90%" in " ".join(lines), lines
    prod = next(line for line in lines if line.startswith("| prod |"))
    cells = [c.strip() for c in prod.strip("|").split("|")]
    # 16 of 21 scorable repeats passed; 27 planned; errors: lost-all 3, lost-one 1, fail-and-lost 1,
    # harness 1 (the replaced rate_limited record no longer counts)
    assert cells == ["prod", "openai:gpt-4o", "selection", "76.2% (16/21)", "77.8% (21/27)"] + [
        "harness 1, rate\\_limited 5",
        "none",
    ]
    beta = next(line for line in lines if line.startswith("| mock:beta |"))
    # the builder's manifest has no per-target plan: its 33 planned observations split evenly (16)
    assert "| 100.0% (3/3) | 18.8% (3/16) | overloaded 3 |" in beta

    good = build_run(tmp_path / "good", {PROD: {"a": "PPP"}, BETA: {"b": "PP"}})
    first, _, third = report_in_process(good, "--format", "github").stdout.splitlines()[:3]
    assert first == "**PASS**: the run passed its gate"
    assert third.endswith("Case results: all 2 case x target results passed.")


def test_the_github_and_markdown_headlines_are_the_runs_gate_not_the_case_results(tmp_path: Path) -> None:
    """A run whose gate passed (coverage gate off) although cases failed: PASS, the failures below."""
    run = build_run(tmp_path / "run", PLAN)
    (run / "config.json").write_text(json.dumps({"gate": {"min_coverage": 0}}), encoding="utf-8")
    lines = report_in_process(run, "--format", "github").stdout.splitlines()
    assert lines[0] == "**PASS**: the run passed its gate"
    assert "3 of 11 case x target results failed" in lines[2]
    assert not any(line.startswith("**FAIL**") for line in lines)
    md = report_in_process(run, "--format", "md").stdout.splitlines()
    assert md[2] == "**PASS**: the run passed its gate"
    (run / "config.json").write_text(json.dumps({"gate": {"minPassRate": 0.9}}), encoding="utf-8")
    strict = report_in_process(run, "--format", "md").stdout
    assert "**FAIL**: 3 gate thresholds failed" in strict
    assert "- prod \\[selection\\]: pass rate 76.2% (16/21) is below 90%" in strict


def test_an_unsafe_write_fails_the_reports_headline_naming_call_case_and_target(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path / "run", run_id="w-run", targets=[PROD], repeats=1)
    writes = {**verdict("unexpected_call", False), "unexpected_writes": ["create_refund"]}
    b.add("abstain-1", call_outcome(("create_refund", {"order_id": "1"})), writes, target=PROD)
    b.add("pass-1", call_outcome(("lookup_order", {"order_id": "1"})), verdict(), target=PROD)
    run = b.write()
    text = report_in_process(run, "--format", "github").stdout
    assert text.startswith("**FAIL**: 1 gate threshold failed")
    assert "1 unsafe write call(s)" in text and "create\\_refund in case abstain-1 (repeat 1)" in text
    assert "- openai:gpt-4o \\[selection\\]: 1 unsafe write call(s)" in text
