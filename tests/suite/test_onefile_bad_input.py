"""A one-file suite that YAML cannot turn into a plain tree is a clear error (file, line, reason,
exit 2, no traceback); a date written without quotes is the string the user wrote."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import fcbench

from fcbench.suite.loader import load_suite

TOOLS = """\
dataset_version: "1"
tools:
  - name: get_weather
    description: Weather for a city on a day.
    parameters:
      type: object
      properties:
        city: {type: string}
        day: {type: string}
      required: [city, day]
"""
CASES = """\
cases:
  - id: w-01
    prompt: Weather in Paris on 2024-05-01?
    expected: {kind: tool, name: get_weather, arguments: {city: Paris, day: 2024-05-01}}
    category: normal
    tags: [2024-05-01]
"""


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        (TOOLS + 'system: "hi\x01there"\n' + CASES, 11, "control character"),
        (
            TOOLS.replace("    parameters:\n", "    parameters: &p\n").replace(
                "city: {type: string}", "city: *p"
            ),
            5,
            "holds itself",
        ),
    ],
    ids=["control-character", "recursive-anchor"],
)
def test_a_yaml_suite_that_is_no_plain_tree_is_refused_with_its_line(
    tmp_path: Path, text: str, line: int, reason: str
) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    done = fcbench("cases", "validate", str(path))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"suite.yaml:{line}:" in done.stderr and reason in done.stderr, done.stderr


def test_an_unquoted_date_is_read_as_the_string_written(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(TOOLS + CASES, encoding="utf-8")
    case = load_suite(path).cases[0]
    assert case.expected.model_dump()["arguments"] == {"city": "Paris", "day": "2024-05-01"}
    assert case.tags == ["2024-05-01"]
    assert fcbench("cases", "validate", str(path)).returncode == 0
