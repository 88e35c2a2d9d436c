"""A case's ``confusable`` tools must be tools of its tool set: ``cases validate`` and ``run`` name
the file, line and key of one that is not, and exit 2."""

from __future__ import annotations

import shutil
from pathlib import Path

from cli_run import fcbench

from fcbench.suite.loader import BUILTIN_DIR, load_suite


def test_an_unknown_confusable_tool_is_refused_with_file_line_and_key(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(BUILTIN_DIR / "tool-order", suite)
    lines = (suite / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].replace('"get_invoice"', '"get_invoices"', 1)
    (suite / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for verb in (["cases", "validate", str(suite)], ["run", "--suite", str(suite), "--out", str(tmp_path)]):
        result = fcbench(*verb, cwd=tmp_path)
        assert result.returncode == 2, result.stdout + result.stderr
        assert (
            "cases.jsonl:2: confusable[" in result.stderr and "'get_invoices' is not a tool" in result.stderr
        )
        assert "Traceback" not in result.stderr


def test_the_builtin_suite_names_confusable_tools_of_its_tool_set() -> None:
    suite = load_suite("tool-order")
    for case in suite.cases:
        offered = {tool.name for tool in suite.tools_for(case)}
        assert case.confusable and set(case.confusable) <= offered - {case.expected.name}  # type: ignore[union-attr]
