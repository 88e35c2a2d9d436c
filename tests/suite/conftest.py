"""Fixtures for suite tests: writable copies of the built-in suites and a small editor for them."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fcbench.suite.loader import BUILTIN_DIR


class SuiteCopy:
    """A writable copy of a built-in suite with helpers to break it in controlled ways."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def cases_path(self) -> Path:
        return self.path / "cases.jsonl"

    def lines(self) -> list[str]:
        """The lines of cases.jsonl (without line terminators)."""
        text = self.cases_path.read_text(encoding="utf-8")
        return text.removesuffix("\n").split("\n")

    def write_lines(self, lines: list[str]) -> None:
        self.cases_path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def line_of(self, case_id: str) -> int:
        """1-based line number of the case with ``case_id``."""
        for number, line in enumerate(self.lines(), start=1):
            if line.strip() and json.loads(line)["id"] == case_id:
                return number
        raise KeyError(case_id)

    def edit_case(self, case_id: str, change: Callable[[dict[str, Any]], None]) -> int:
        """Apply ``change`` to one case in place; return its line number."""
        lines = self.lines()
        number = self.line_of(case_id)
        data = json.loads(lines[number - 1])
        change(data)
        lines[number - 1] = json.dumps(data, ensure_ascii=False)
        self.write_lines(lines)
        return number

    def set_line(self, number: int, text: str) -> None:
        lines = self.lines()
        lines[number - 1] = text
        self.write_lines(lines)

    def append(self, case: dict[str, Any]) -> int:
        """Append a case; return its line number."""
        lines = self.lines()
        lines.append(json.dumps(case, ensure_ascii=False))
        self.write_lines(lines)
        return len(lines)

    def tools(self, name: str = "core") -> dict[str, Any]:
        return json.loads((self.path / f"tools.{name}.json").read_text(encoding="utf-8"))

    def write_tools(self, document: dict[str, Any], name: str = "core") -> str:
        """Write a tool-set file (indented like the built-ins) and return its text."""
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        (self.path / f"tools.{name}.json").write_text(text, encoding="utf-8")
        return text


@pytest.fixture
def core_copy(tmp_path: Path) -> SuiteCopy:
    """A writable copy of the built-in ``core`` suite."""
    target = tmp_path / "core"
    shutil.copytree(BUILTIN_DIR / "core", target)
    return SuiteCopy(target)


@pytest.fixture
def refunds_copy(tmp_path: Path) -> SuiteCopy:
    """A writable copy of the built-in ``refunds`` suite."""
    target = tmp_path / "refunds"
    shutil.copytree(BUILTIN_DIR / "refunds", target)
    return SuiteCopy(target)
