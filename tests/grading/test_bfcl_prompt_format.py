"""The ``bfcl_prompt`` profile: calls a prompted model writes as text in BFCL's prompt format
(``[f(a=1), g(b=2)]``) are scored like BFCL scores a prompted model, on the imported BFCL sample.

The texts are written from BFCL's own possible answers (the first accepted value of each
parameter, optional ones left out), so each category's right answer, written as BFCL asks a
prompted model to write it, must pass; the same text fails under ``bfcl`` (``call_in_text``), a
wrong value or prose fails, and irrelevance passes only without a call."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fcbench import grade
from fcbench.bfcl.convert import ImportReport
from fcbench.grading import PROFILES
from fcbench.suite.loader import Suite, load_suite

Imported = Callable[[str], tuple[Path, ImportReport]]


def _answers(bfcl_dir: Path, category: str) -> dict[str, list[dict[str, Any]]]:
    path = bfcl_dir / "possible_answer" / f"BFCL_v4_{category}.json"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {row["id"]: row["ground_truth"] for row in rows}


def _first(accepted: Any) -> Any:
    """The first value BFCL's answer accepts (an object's keys each reduced the same way)."""
    if isinstance(accepted, dict):
        return {key: _first(values[0]) for key, values in accepted.items() if values and values[0] != ""}
    return accepted


def _prompt_text(ground_truth: list[dict[str, Any]], change: str | None = None) -> str:
    """``[f(a=1), g(b="x")]``: BFCL's prompt format, first accepted values, optional ones left out;
    ``change`` names a parameter whose value is replaced by one no answer accepts."""
    calls = []
    for entry in ground_truth:
        ((name, params),) = entry.items()
        args = []
        for key, accepted in params.items():
            values = [value for value in accepted if value != ""]
            if not values:
                continue
            value: Any = "no such value 9731" if key == change else _first(values[0])
            args.append(f"{key}={value!r}")
        calls.append(f"{name}({', '.join(args)})")
    return "[" + ", ".join(calls) + "]"


def _suite(imported: Imported, category: str) -> Suite:
    return load_suite(imported(category)[0])


def _text(text: str) -> dict[str, Any]:
    return {"kind": "text", "text": text}


def test_profile_is_registered() -> None:
    assert "bfcl_prompt" in PROFILES


@pytest.mark.parametrize("category", ["simple_python", "multiple", "parallel"])
def test_right_answers_written_in_the_prompt_format_pass(
    imported: Imported, bfcl_dir: Path, category: str
) -> None:
    suite = _suite(imported, category)
    answers = _answers(bfcl_dir, category)
    checked = 0
    for case in suite.cases[:25]:
        text = _prompt_text(answers[case.id])
        tools = suite.tools_for(case)
        prompted = grade(case, _text(text), tools, profile="bfcl_prompt")
        assert prompted.passed, (case.id, text, prompted.reasons)
        assert prompted.decision == "correct_call"
        assert prompted.reasons[0].startswith("read ")
        fenced = grade(case, _text(f"```\n{text}\n```\n"), tools, profile="bfcl_prompt")
        assert fenced.passed, (case.id, fenced.reasons)
        as_function_calling = grade(case, _text(text), tools, profile="bfcl")
        assert not as_function_calling.passed and as_function_calling.decision == "call_in_text"
        checked += 1
    assert checked == min(25, len(suite.cases))


def test_a_wrong_value_fails_and_prose_is_no_call(imported: Imported, bfcl_dir: Path) -> None:
    suite = _suite(imported, "simple_python")
    answers = _answers(bfcl_dir, "simple_python")
    case = suite.cases[0]
    tools = suite.tools_for(case)
    ((_, params),) = answers[case.id][0].items()
    key = next(k for k, values in params.items() if "" not in values)
    wrong = grade(case, _text(_prompt_text(answers[case.id], change=key)), tools, profile="bfcl_prompt")
    assert not wrong.passed and wrong.decision == "correct_call"
    assert any(w.key == key for w in wrong.wrong) or wrong.reasons, wrong
    prose = f"I would call it like this: {_prompt_text(answers[case.id])}"
    read = grade(case, _text(prose), tools, profile="bfcl_prompt")
    assert not read.passed and read.decision == "missed_call"
    assert "no call list in BFCL's prompt format" in read.reasons[0]


def test_parallel_answer_in_another_order_passes(imported: Imported, bfcl_dir: Path) -> None:
    suite = _suite(imported, "parallel")
    answers = _answers(bfcl_dir, "parallel")
    case = suite.cases[0]
    reordered = _prompt_text(list(reversed(answers[case.id])))
    verdict = grade(case, _text(reordered), suite.tools_for(case), profile="bfcl_prompt")
    assert verdict.passed and verdict.calls_scored == len(answers[case.id])
    one_short = _prompt_text(answers[case.id][:1])
    fewer = grade(case, _text(one_short), suite.tools_for(case), profile="bfcl_prompt")
    assert not fewer.passed and fewer.decision == "missed_call"


def test_irrelevance_passes_only_without_a_call(imported: Imported) -> None:
    suite = _suite(imported, "irrelevance")
    case = suite.cases[0]
    tools = suite.tools_for(case)
    tool = tools[0]
    required = tool.parameters.get("required") or []
    call = f"[{tool.name}({', '.join(f'{key}=1' for key in required)})]"
    called = grade(case, _text(call), tools, profile="bfcl_prompt")
    assert not called.passed and called.decision == "unexpected_call"
    declined = grade(case, _text("None of the functions can compute that."), tools, profile="bfcl_prompt")
    assert declined.passed and declined.decision == "correct_abstention"
    json_written = json.dumps({"name": tool.name, "arguments": {}})
    as_bfcl_reads_it = grade(case, _text(json_written), tools, profile="bfcl_prompt")
    assert as_bfcl_reads_it.passed, "BFCL's prompt decoder fails on JSON, which counts as no call"
    assert not grade(case, _text(json_written), tools, profile="bfcl").passed


def test_real_calls_score_as_under_bfcl(imported: Imported, bfcl_dir: Path) -> None:
    suite = _suite(imported, "simple_python")
    case = suite.cases[1]
    tools = suite.tools_for(case)
    name = tools[0].name
    call = {"id": "c1", "name": name, "arguments": {}, "raw_arguments": "{}"}
    outcome = {"kind": "tool_calls", "calls": [call]}
    assert grade(case, outcome, tools, profile="bfcl_prompt") == grade(case, outcome, tools, profile="bfcl")
