"""A case's expected arguments are checked and compiled once for all its observations, by their exact
JSON text: the same verdicts as checked afresh, a different value (``1`` and ``1.0``) checked on its
own, and a value that fails its check raising on every grading."""

from __future__ import annotations

from typing import Any

import pytest

from fcbench.errors import CaseError
from fcbench.grading import grade
from fcbench.grading import inputs as grading_inputs

ASSERTION = {
    "requiredEquals": {"email": "sam@example.test"},
    "optional": ["limit", "status"],
    "constraints": {"status": {"pattern": "^(shipped|pending)$"}, "limit": {"integer": True}},
}


def case(case_id: str, arguments: Any) -> dict[str, Any]:
    return {
        "id": case_id,
        "prompt": "Show my orders.",
        "expected": {"kind": "tool", "name": "search_orders", "arguments": arguments},
    }


def calls(arguments: Any) -> dict[str, Any]:
    return {"kind": "tool_calls", "calls": [{"id": "c1", "name": "search_orders", "arguments": arguments}]}


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """Every (case id, arguments) the grader checks and compiles, in order."""
    seen: list[tuple[str, Any]] = []
    real = grading_inputs._checked_spec

    def counted(case_id: str, arguments: Any) -> Any:
        seen.append((case_id, arguments))
        return real(case_id, arguments)

    grading_inputs._prepared_spec.cache_clear()
    monkeypatch.setattr(grading_inputs, "_checked_spec", counted)
    return seen


def test_repeated_gradings_check_the_expected_arguments_once(
    checks: list[tuple[str, Any]], core_tools: list[dict[str, Any]]
) -> None:
    produced = [
        {"email": "sam@example.test", "status": "shipped"},
        {"email": "sam@example.test", "status": "lost"},
        {"email": "sam@example.test", "limit": 2.5},
    ] * 3
    verdicts = [grade(case("memo-a", ASSERTION), calls(args), core_tools) for args in produced]
    assert [v.semantic_exact for v in verdicts] == [True, False, False] * 3
    assert checks == [("memo-a", ASSERTION)]
    grading_inputs._prepared_spec.cache_clear()
    fresh = [grade(case("memo-a", ASSERTION), calls(args), core_tools) for args in produced[:3]]
    assert fresh == verdicts[:3]


def test_values_json_tells_apart_are_checked_apart(
    checks: list[tuple[str, Any]], core_tools: list[dict[str, Any]]
) -> None:
    for expected in ({"email": "a@b.test", "limit": 1}, {"email": "a@b.test", "limit": 1.0}):
        grade(case("memo-b", expected), calls(expected), core_tools)
        grade(case("memo-b", expected), calls(expected), core_tools)
    grade(case("memo-c", {"email": "a@b.test", "limit": 1}), calls({"email": "a@b.test"}), core_tools)
    assert [c[1]["limit"] for c in checks] == [1, 1.0, 1]
    assert [type(c[1]["limit"]) for c in checks] == [int, float, int]
    assert [c[0] for c in checks] == ["memo-b", "memo-b", "memo-c"]


def test_an_invalid_expectation_raises_on_every_grading(
    checks: list[tuple[str, Any]], core_tools: list[dict[str, Any]]
) -> None:
    broken = {"requiredEquals": {}, "constraints": {"x": {"pattern": "("}}}
    for _ in range(3):
        with pytest.raises(CaseError, match="not a valid regular expression"):
            grade(case("memo-d", broken), calls({"x": "1"}), core_tools)
    assert len(checks) == 3
