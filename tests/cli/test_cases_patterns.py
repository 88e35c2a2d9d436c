"""``fcbench cases validate`` warns about patterns that may backtrack catastrophically (exit 0)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from fcbench import grade
from fcbench.suite.loader import load_suite

EVIL = r"^(\w|\w\w)+([ -]\w+)*$"
"""Accepts every postal code of the core suite; backtracks catastrophically on ``"a" * 40 + "!"``."""


def _poison(core_copy) -> None:  # type: ignore[no-untyped-def]
    tools = core_copy.tools()
    for tool in tools["tools"]:
        if tool["name"] == "get_shipping_quote":
            tool["parameters"]["properties"]["postal_code"]["pattern"] = EVIL
    core_copy.write_tools(tools)


def test_validate_warns_and_names_the_tool_and_the_pattern(core_copy) -> None:  # type: ignore[no-untyped-def]
    _poison(core_copy)
    proc = subprocess.run(
        [sys.executable, "-m", "fcbench", "cases", "validate", str(core_copy.path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    (warning,) = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert "get_shipping_quote" in warning and "postal_code" in warning and "nested quantifiers" in warning
    as_json = subprocess.run(
        [sys.executable, "-m", "fcbench", "cases", "validate", str(core_copy.path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert len(json.loads(as_json.stdout)["warnings"]) == 1
    clean = subprocess.run(
        [sys.executable, "-m", "fcbench", "cases", "validate", "core"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert clean.returncode == 0 and "warning:" not in clean.stderr


def test_grading_a_hostile_answer_against_a_catastrophic_pattern_is_bounded(core_copy) -> None:  # type: ignore[no-untyped-def]
    tools = core_copy.tools()
    for tool in tools["tools"]:
        if tool["name"] == "get_shipping_quote":
            tool["parameters"]["properties"]["postal_code"]["pattern"] = EVIL
    core_copy.write_tools(tools)
    suite = load_suite(core_copy.path)
    case = suite.case("types-01")
    args = {"country_code": "US", "postal_code": "a" * 40 + "!", "weight_grams": 750, "service": "standard"}
    outcome = {"kind": "tool_calls", "calls": [{"id": "c1", "name": "get_shipping_quote", "arguments": args}]}
    started = time.process_time()
    verdict = grade(case, outcome, suite.tools_for(case))
    assert time.process_time() - started < 2.0  # CPU seconds (every thread of this process)
    assert verdict.schema_valid is False
    assert any("could not be checked" in error for error in verdict.schema_errors), verdict.schema_errors


def test_a_catastrophic_case_constraint_is_bounded_too() -> None:
    case = {
        "id": "c1",
        "prompt": "p",
        "tools": [
            {"name": "f", "parameters": {"type": "object", "properties": {"code": {"type": "string"}}}}
        ],
        "expected": {
            "kind": "tool",
            "name": "f",
            "arguments": {"requiredEquals": {}, "constraints": {"code": {"pattern": EVIL}}},
        },
    }
    outcome = {
        "kind": "tool_calls",
        "calls": [{"id": "c", "name": "f", "arguments": {"code": "a" * 40 + "!"}}],
    }
    started = time.process_time()
    verdict = grade(case, outcome, None)
    assert time.process_time() - started < 2.0  # CPU seconds (every thread of this process)
    assert not verdict.passed and any("could not be checked" in r for r in verdict.reasons), verdict.reasons
