"""Markdown, JSON, JUnit and CSV reports, and the ``fcbench report`` command."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import typer
from sample_runs import EVIL, mixed_run
from typer.testing import CliRunner

from fcbench.cli import report as report_cli
from fcbench.metrics import RunMetrics, compute_metrics
from fcbench.report.common import md_escape
from fcbench.report.csvfmt import CSV_COLUMNS
from fcbench.report.render import render_report


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return mixed_run(tmp_path / "run")


def table_rows(md: str, heading: str) -> list[list[str]]:
    """Split the table under ``## heading`` into cells, honouring escaped pipes."""
    section = md.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]


def test_markdown_summary_has_the_seed_columns_with_n_over_d(run: Path) -> None:
    md = render_report(run, "md")
    rows = table_rows(md, "Summary")
    header = rows[0]
    for column in (
        "Accepted requests",
        "Selection accuracy",
        "Schema-valid calls",
        "Semantically exact calls",
        "Clarification accuracy",
        "Recovery success",
        "Stability per case",
        "Provider errors",
    ):
        assert column in header
    body = {r[0]: dict(zip(header, r, strict=True)) for r in rows[2:]}
    assert set(body) == {"mock:alpha", "mock:beta"}
    alpha = body["mock:alpha"]
    # 3 of 12 observations were provider errors; 9 scorable, 5 passed (3 lookup + 2 types).
    # each rate with its Wilson 95% interval
    assert alpha["Accepted requests"] == "75.0% (9/12) [46.8–91.1]"
    assert alpha["Pass rate"] == "55.6% (5/9) [26.7–81.1]"
    assert alpha["Selection accuracy"] == "66.7% (6/9) [35.4–87.9]"
    assert alpha["Schema-valid calls"] == "88.9% (8/9) [56.5–98.0]"
    assert alpha["Semantically exact calls"] == "83.3% (5/6) [43.6–97.0]"
    assert alpha["Recovery success"] == "– (0/0)"
    assert alpha["Provider errors"] == "3"
    ops = table_rows(md, "Coverage, latency and cost")
    assert ops[2][ops[0].index("Cost USD")] == "unknown" or ops[2][ops[0].index("Cost USD")].startswith("$")


def test_markdown_escapes_untrusted_text_and_keeps_tables_intact(run: Path) -> None:
    md = render_report(run, "md")
    assert "<script>" not in md and "<img" not in md
    rows = table_rows(md, "Worst cases")
    widths = {len(r) for r in rows}
    assert widths == {8}, "an unescaped pipe or newline broke the table"
    assert any("abstain-01" in r[0] for r in rows)
    assert "lookup \\| exact" not in {r[0] for r in rows}  # the passing case is not a worst case
    assert md_escape("a|b`c`<d>\nx") == "a\\|b\\`c\\`&lt;d&gt; x"
    errors = table_rows(md, "Provider and harness errors")
    assert ["mock:alpha", "selection", "overloaded", "3"] in errors


def test_markdown_breakdowns_confusion_and_pass_hat_k(run: Path) -> None:
    md = render_report(run, "md")
    cats = {r[0]: r[1:] for r in table_rows(md, "Pass rate by category")[2:]}
    assert cats["boundary"] == ["66.7% (2/3) [20.8–93.9]", "66.7% (2/3) [20.8–93.9]"]
    assert cats["adversarial"] == ["0.0% (0/3) [0.0–56.1]", "0.0% (0/3) [0.0–56.1]"]
    tags = {r[0]: r[1:] for r in table_rows(md, "Pass rate by tag")[2:]}
    assert tags["exact-id"] == ["100.0% (3/3) [43.9–100.0]", "100.0% (3/3) [43.9–100.0]"]
    assert "### mock:alpha" in md and "| text | 0 | 3 |" in md and "| tool | 6 | 0 |" in md
    hat = table_rows(md, "pass^k")
    assert hat[0][-1] == "k=3"
    assert hat[2][2].startswith("0.556 (3 cases)")


def test_json_round_trips(run: Path) -> None:
    text = render_report(run, "json")
    data = json.loads(text)
    assert data["targets"][0]["pass_rate"] == {
        "n": 5,
        "d": 9,
        "rate": pytest.approx(5 / 9),
        "low": pytest.approx(0.2667, abs=1e-4),
        "high": pytest.approx(0.8112, abs=1e-4),
    }
    assert RunMetrics.from_json(text) == compute_metrics(run)


def test_junit_has_one_testcase_per_case_and_target(run: Path) -> None:
    root = ET.fromstring(render_report(run, "junit").encode("utf-8"))
    cases = root.findall(".//testcase")
    assert len(cases) == 4 * 2
    assert {c.get("classname") for c in cases} == {"mock:alpha", "mock:beta"}
    by_name = {(c.get("classname"), c.get("name")): c for c in cases}
    assert by_name[("mock:alpha", "lookup | exact [selection]")].find("failure") is None
    failure = by_name[("mock:alpha", "types-01 [selection]")].find("failure")
    assert failure is not None and "1 of 3 repeats failed" in (failure.get("message") or "")
    assert "wrong weight_grams" in (failure.get("message") or "")
    # a case lost to provider errors is an error in CI (coverage loss is never green), not skipped
    assert by_name[("mock:beta", "lost-01 [selection]")].find("error") is not None
    assert root.get("tests") == "8" and root.get("failures") == "4"
    assert root.get("errors") == "2" and root.get("skipped") == "0"


def test_csv_parses_and_matches_the_metrics(run: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(render_report(run, "csv"))))
    assert tuple(rows[0]) == CSV_COLUMNS
    metrics = compute_metrics(run)
    for t in metrics.targets:
        pass_row = next(r for r in rows if r["target"] == t.target and r["metric"] == "pass_rate")
        assert (int(pass_row["n"]), int(pass_row["d"])) == (t.pass_rate.n, t.pass_rate.d)
        assert float(pass_row["value"]) == pytest.approx(t.pass_rate.rate)
    errors = [r for r in rows if r["metric"] == "provider_errors"]
    assert {(r["target"], r["key"], r["value"]) for r in errors} == {
        ("mock:alpha", "overloaded", "3"),
        ("mock:beta", "overloaded", "3"),
    }


def cli_app() -> typer.Typer:
    app = typer.Typer()
    report_cli.register(app)

    @app.command("noop", hidden=True)
    def _noop() -> None:  # a second command keeps typer from collapsing the app into one command
        """Placeholder."""

    return app


def test_report_command_writes_each_format(run: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli_app(), ["report", str(run)])
    assert result.exit_code == 0, result.output
    assert "## Summary" in result.stdout
    out = tmp_path / "out" / "report.xml"
    result = runner.invoke(cli_app(), ["report", str(run), "--format", "junit", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert ET.parse(out).getroot().tag == "testsuites"
    result = runner.invoke(cli_app(), ["report", str(run), "--format", "json", "--mode", "forced"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["targets"] == []
    result = runner.invoke(cli_app(), ["report", str(run), "--format", "pdf"])
    assert result.exit_code == 2


def test_report_subprocess(run: Path, tmp_path: Path) -> None:
    out = tmp_path / "metrics.json"
    proc = subprocess.run(
        [sys.executable, "-m", "fcbench", "report", str(run), "--format", "json", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["run"]["run_id"] == "run-test"
    missing = subprocess.run(
        [sys.executable, "-m", "fcbench", "report", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert missing.returncode == 2
    assert "not a run directory" in missing.stderr


def test_evil_text_never_appears_raw_in_any_text_format(run: Path) -> None:
    for fmt in ("md", "junit"):
        assert EVIL not in render_report(run, fmt)
