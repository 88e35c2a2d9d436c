"""Every case shipped in the built-in core suite can be graded against the built-in tools.

For each case an ideal outcome is derived from its own expectation; it must be judged right,
and a provider error for the same case must be ``not_scored``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import fcbench
from fcbench.grading import RIGHT_DECISIONS, grade
from fcbench.schema.validate import ValidatorCache

CORE = Path(fcbench.__file__).resolve().parent / "suite" / "builtin" / "core"


def _shipped_cases() -> list[dict[str, Any]]:
    path = CORE / "cases.jsonl"
    if not path.exists():
        path = CORE / "cases.seed.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _tools_for(case: dict[str, Any]) -> list[dict[str, Any]] | None:
    tools = case.get("tools", "core")
    if isinstance(tools, list):
        return None
    data: dict[str, Any] = json.loads((CORE / f"tools.{tools}.json").read_text(encoding="utf-8"))
    return list(data["tools"])


def _ideal_arguments(arguments: dict[str, Any] | None) -> dict[str, Any]:
    if arguments is None:
        return {}
    if "requiredEquals" in arguments or "oneOf" in arguments:
        chosen = dict(arguments.get("requiredEquals", {}))
        chosen.update({key: values[0] for key, values in arguments.get("oneOf", {}).items()})
        return chosen
    return dict(arguments)


def _ideal_outcome(expected: dict[str, Any]) -> dict[str, Any]:
    kind = expected["kind"]
    if kind in ("tool", "tools"):
        wanted = [expected] if kind == "tool" else expected["calls"]
        return {
            "kind": "tool_calls",
            "calls": [
                {"id": f"c{i}", "name": call["name"], "arguments": _ideal_arguments(call.get("arguments"))}
                for i, call in enumerate(wanted)
            ],
        }
    if kind == "clarification":
        return {"kind": "text", "text": f"What is the {expected['missing'][0].replace('_', ' ')}?"}
    return {"kind": "text", "text": "I can look up orders, search them and quote shipping."}


CASES = _shipped_cases()


@pytest.fixture(scope="module")
def cache() -> ValidatorCache:
    """One validator cache for the whole module, as the runner would use."""
    return ValidatorCache()


def test_the_shipped_suite_is_not_empty() -> None:
    assert len(CASES) >= 8


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_ideal_outcome_is_right(case: dict[str, Any], cache: ValidatorCache) -> None:
    verdict = grade(case, _ideal_outcome(case["expected"]), _tools_for(case), validators=cache)
    assert verdict.decision in RIGHT_DECISIONS
    assert verdict.semantic_exact is not False
    assert verdict.reasons == [] or verdict.schema_valid is False
    if case["expected"].get("arguments") is not None or case["expected"]["kind"] in ("text", "clarification"):
        assert verdict.passed is True, verdict.reasons


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_provider_error_is_never_a_model_failure(case: dict[str, Any], cache: ValidatorCache) -> None:
    outcome = {"kind": "provider_error", "code": "server", "message": "boom", "status": 500}
    verdict = grade(case, outcome, _tools_for(case), validators=cache)
    assert (verdict.decision, verdict.passed, verdict.schema_valid, verdict.semantic_exact) == (
        "not_scored",
        False,
        None,
        None,
    )
