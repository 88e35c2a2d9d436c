"""The tool-order probe in every report format: consistency across orders, the first-offered rate
against chance and the position-bias verdict, per target, for a by-meaning and a by-position
simulated model; a run with one order shows no such section."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from cli_run import fcbench
from records_builder import RunBuilder, call_outcome, verdict
from rich.console import Console
from tool_order_run import BY_MEANING, BY_POSITION, tool_order_run

from fcbench.metrics import compute_metrics
from fcbench.report.pin_diff import pin_differences
from fcbench.report.render import render_report
from fcbench.report.tool_order import print_tool_order, tool_order_markdown
from fcbench.store.records import read_manifest


@pytest.fixture(scope="module")
def run_dir(mock_server: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tool_order_run(mock_server, tmp_path_factory.mktemp("tool-order"), "reverse")


def _row(text: str, target: str) -> str:
    """The target's row of the tool-order section."""
    section = text[text.index("## Tool order") :]
    (line,) = [line for line in section.splitlines() if line.startswith(f"| {target} |")]
    return line


@pytest.mark.parametrize("fmt", ["md", "github"])
def test_markdown_and_github_show_one_row_per_target(run_dir: Path, fmt: str) -> None:
    text = render_report(run_dir, fmt)
    assert "## Tool order" in text and "tool order reverse" in text
    careful, eager = _row(text, BY_MEANING), _row(text, BY_POSITION)
    assert "100.0% (10/10)" in careful and "not shown" in careful
    assert "position-biased" in eager and "| 25.0% |" in eager and "| 25.0% |" in careful  # 1 in 4
    assert "Cases whose choice changed with the order" in text


def test_json_carries_the_figures(run_dir: Path) -> None:
    data = json.loads(render_report(run_dir, "json"))
    rows = {row["target"]: row for row in data["tool_order"]["targets"]}
    assert data["tool_order"]["spec"] == "reverse"
    assert rows[BY_MEANING]["consistency"]["n"] == rows[BY_MEANING]["consistency"]["d"] == 10
    assert rows[BY_POSITION]["biased"] is True and rows[BY_MEANING]["biased"] is False
    assert set(rows[BY_POSITION]["passed_by_order"]) == {"0", "1"}


def test_html_has_a_tool_order_section(run_dir: Path) -> None:
    page = render_report(run_dir, "html")
    section = page[page.index('<section id="tool-order">') :]
    section = section[: section.index("</section>")]
    cells = re.findall(r"<td>(.*?)</td>", section)
    assert BY_MEANING in cells and BY_POSITION in cells
    assert cells.count("position-biased") == 1 and cells.count("not shown") == 1


def test_junit_suites_carry_tool_order_properties(run_dir: Path) -> None:
    root = ET.fromstring(render_report(run_dir, "junit"))
    found = {}
    for suite in root.iter("testsuite"):
        props = {p.get("name"): p.get("value") for p in suite.iter("property")}
        found[props["target"]] = props
    assert found[BY_MEANING]["tool_order"] == "reverse"
    assert found[BY_MEANING]["tool_order.consistency"] == "10/10"
    assert found[BY_MEANING]["tool_order.position_bias"] == "not shown"
    assert found[BY_POSITION]["tool_order.position_bias"] == "position-biased"


def test_the_terminal_summary_says_it_per_target(run_dir: Path) -> None:
    console = Console(record=True, width=200)
    print_tool_order(console, compute_metrics(run_dir))
    lines = console.export_text().splitlines()
    assert len(lines) == 2
    assert any(BY_POSITION in line and line.endswith("position-biased") for line in lines)
    assert any(BY_MEANING in line and line.endswith("not shown") for line in lines)


def test_fcbench_run_prints_the_probe_after_the_table(tmp_path: Path) -> None:
    result = fcbench(
        "run", "--suite", "tool-order", "--tool-order", "reverse", "--repeats", "1", "--no-progress",
        "-t", BY_MEANING, "-t", BY_POSITION, "--out", str(tmp_path), cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("tool order ")]
    assert len(lines) == 2 and any("position-biased" in line for line in lines)


def test_a_run_with_one_order_has_no_tool_order_section(tmp_path: Path) -> None:
    run_dir = RunBuilder(tmp_path / "plain").add("a", call_outcome(("x", {})), verdict()).write()
    assert tool_order_markdown(compute_metrics(run_dir)) == []
    for fmt in ("md", "github", "html", "junit"):
        assert "tool order" not in render_report(run_dir, fmt).lower(), fmt


def test_compare_warns_when_the_runs_offered_the_tools_in_other_orders(run_dir: Path) -> None:
    plain = read_manifest(run_dir).model_copy(update={"tool_order": None})
    shuffled = plain.model_copy(update={"tool_order": "shuffle:3"})
    assert "tool order differs (BASE the suite's order, NEW shuffle:3)" in pin_differences(plain, shuffled)
    assert not [line for line in pin_differences(shuffled, shuffled) if "tool order" in line]
