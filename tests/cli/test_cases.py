"""``fcbench cases validate`` and ``fcbench cases list`` as a user runs them (real subprocesses)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from cli_run import fcbench

from fcbench.suite.loader import load_suite


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return fcbench("cases", *args)


def test_validate_builtin_suite_exits_zero_with_summary() -> None:
    name = "refunds"
    result = _run("validate", name)
    assert result.returncode == 0, result.stderr
    suite = load_suite(name)
    assert f"suite {name} {suite.info.dataset_version}: {len(suite.cases)} cases" in result.stdout
    for category in ("normal", "boundary", "adversarial"):
        assert category in result.stdout


def test_validate_json_summary_matches_the_suite() -> None:
    result = _run("validate", "core", "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    suite = load_suite("core")
    assert summary["suite"] == "core" and summary["dataset_version"] == suite.info.dataset_version
    assert summary["dataset_hash"] == suite.dataset_hash
    assert summary["cases"] == len(suite.cases)
    assert sum(summary["by_category"].values()) == len(suite.cases)
    assert summary["by_kind"]["tools"] == sum(1 for case in suite.cases if case.expected.kind == "tools")
    assert summary["tool_sets"]["core"] == ["lookup_order", "search_orders", "get_shipping_quote"]


def test_validate_broken_copy_exits_two_with_file_and_line(core_copy: Any) -> None:
    line = core_copy.edit_case("select-lookup-01", lambda case: case["expected"].update(name="lookup_ordr"))
    other = core_copy.edit_case("abstain-01", lambda case: case.update(tools="compat"))
    result = _run("validate", str(core_copy.path))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert f"cases.jsonl:{line}: expected.name: 'lookup_ordr' is not a tool" in result.stderr
    assert f"cases.jsonl:{other}: tools: unknown tool set 'compat'" in result.stderr


def test_validate_unknown_suite_exits_two() -> None:
    result = _run("validate", "no-such-suite")
    assert result.returncode == 2
    assert "unknown suite 'no-such-suite'" in result.stderr


def test_list_prints_filtered_cases() -> None:
    result = _run("list", "refunds", "--category", "adversarial")
    assert result.returncode == 0, result.stderr
    suite = load_suite("refunds")
    adversarial = [case.id for case in suite.cases if case.category == "adversarial"]
    normal = [case.id for case in suite.cases if case.category == "normal"]
    for case_id in adversarial:
        assert case_id in result.stdout
    assert not any(f"│ {case_id} " in result.stdout for case_id in normal)
    assert f"{len(adversarial)} of {len(suite.cases)} cases" in result.stdout
