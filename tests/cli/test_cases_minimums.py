"""``fcbench cases validate`` against a suite's declared ``minimums`` (real subprocesses)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_run import fcbench

from fcbench.suite.loader import load_suite

SEED_MINIMUMS = {
    "core": {"normal": 60, "boundary": 40, "adversarial": 25},
    "refunds": {"normal": 50, "boundary": 30, "adversarial": 20},
}
"""The seed documents' floor per category (50-100 normal, 30-50 boundary, 20-30 adversarial),
raised for ``core`` as its release promises."""

CJK = re.compile(r"[\u3400-\u9fff]")

SUITE = """\
name: tiny
dataset_version: "1"
minimums: {{normal: {normal}, adversarial: 0}}
tools:
  - name: get_weather
    description: Weather for a city.
    parameters: {{type: object, properties: {{city: {{type: string}}}}, required: [city]}}
cases:
  - id: w1
    prompt: Weather in Paris?
    expected: {{kind: tool, name: get_weather, arguments: {{city: Paris}}}}
"""


@pytest.mark.parametrize("name", sorted(SEED_MINIMUMS))
def test_builtin_suites_declare_and_meet_the_seed_minimums(name: str) -> None:
    result = fcbench("cases", "validate", name, "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    declared = summary["minimums"]
    for category, floor in SEED_MINIMUMS[name].items():
        assert declared[category] >= floor, (category, declared)
        assert summary["by_category"][category] >= declared[category], (category, summary["by_category"])
    table = fcbench("cases", "validate", name)
    assert table.returncode == 0, table.stderr
    assert "minimum" in table.stdout


def test_core_writes_a_fifth_of_its_prompts_in_chinese() -> None:
    cases = load_suite("core").cases
    chinese = [case.id for case in cases if CJK.search(case.prompt)]
    assert len(chinese) * 5 >= len(cases), f"{len(chinese)} of {len(cases)}"


def test_a_category_below_its_minimum_fails_naming_the_file_and_key(tmp_path: Path) -> None:
    suite = tmp_path / "tiny.yaml"
    suite.write_text(SUITE.format(normal=2), encoding="utf-8")
    result = fcbench("cases", "validate", str(suite))
    assert result.returncode == 2, result.stdout
    assert "Traceback" not in result.stderr
    assert f"{suite}: minimums.normal: 1 normal cases, the suite promises at least 2" in result.stderr
    suite.write_text(SUITE.format(normal=1), encoding="utf-8")
    ok = fcbench("cases", "validate", str(suite))
    assert ok.returncode == 0, ok.stderr
    assert re.search(r"normal\s.*\s1\s.*\s1\s*$", ok.stdout, re.MULTILINE), ok.stdout


def test_an_unknown_category_in_minimums_names_its_line(tmp_path: Path) -> None:
    suite = tmp_path / "tiny.yaml"
    suite.write_text(SUITE.format(normal=1).replace("{normal:", "{normall:"), encoding="utf-8")
    result = fcbench("cases", "validate", str(suite))
    assert result.returncode == 2
    assert f"{suite}:3: minimums.normall:" in result.stderr
