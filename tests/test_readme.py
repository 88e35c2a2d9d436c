"""The README's commands and claims: the two commands CI runs, and the decisions table."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_first_screen_has_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    first = text[: text.index("## ")] if "## " in text else text
    assert 'python3 -m venv .venv && .venv/bin/pip install -e ".[test]" && .venv/bin/fcbench run' in first
    assert ".venv/bin/python -m pytest" in first
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.rstrip().splitlines()[-1] == ".venv/bin/python -m pytest"


def test_the_decisions_table_lists_every_decision_and_the_right_ones() -> None:
    from fcbench.grading import DECISIONS, RIGHT_DECISIONS

    text = README.read_text(encoding="utf-8")
    table = re.search(r"^### Decisions\n.*?^\| decision \|.*?\n\|[-|]+\|\n((?:\|.*\n?)+)", text, re.M | re.S)
    assert table is not None
    rows = re.findall(r"^\| `(\w+)` \|", table.group(1), re.M)
    assert rows == list(DECISIONS)
    right = re.search(r"only (.*?) are right", text[: table.start(1)], re.S)
    assert right is not None
    assert set(re.findall(r"`(\w+)`", right.group(1))) == RIGHT_DECISIONS


def test_the_first_screen_says_how_long_ci_takes() -> None:
    text = README.read_text(encoding="utf-8")
    first = text[: text.index("## ")]
    assert re.search(r"^CI \(`\.ci/run`.*\) takes about \S+ minutes on a 2-core machine\.$", first, re.M)
