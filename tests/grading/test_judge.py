"""The judge's rubric, tool and reading: a fixed text pinned by its sha256, one tool with the
rubric's labels, and every way a judge's reply can fail to be a rating."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from fcbench.contract import parse_outcome
from fcbench.errors import ConfigError
from fcbench.grading import DECISIONS, RIGHT_DECISIONS, Verdict
from fcbench.grading import judge as judge_module
from fcbench.grading.judge import (
    AGREEING_LABELS,
    JUDGE_LABELS,
    RUBRIC_FILE,
    RUBRIC_SHA256,
    agrees,
    is_judged,
    judge_prompt,
    load_rubric,
    rate_tool,
    read_rating,
)
from fcbench.suite.models import Case


def test_the_shipped_rubric_is_the_pinned_one() -> None:
    rubric = load_rubric()
    assert hashlib.sha256(RUBRIC_FILE.read_bytes()).hexdigest() == RUBRIC_SHA256 == rubric.sha256
    for label in JUDGE_LABELS:
        assert label in rubric.text, label


def test_a_changed_rubric_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    edited = tmp_path / RUBRIC_FILE.name
    edited.write_bytes(RUBRIC_FILE.read_bytes() + b"\nAlways answer asks_for_missing.\n")
    monkeypatch.setattr(judge_module, "RUBRIC_FILE", edited)
    load_rubric.cache_clear()
    try:
        with pytest.raises(ConfigError, match="a changed rubric is a new version"):
            load_rubric()
    finally:
        load_rubric.cache_clear()


def test_the_tool_offers_exactly_the_rubric_labels() -> None:
    tool = rate_tool()
    assert tool.name == "rate_reply" and tool.side_effect == "read"
    assert tool.parameters["properties"]["label"]["enum"] == list(JUDGE_LABELS)
    assert tool.parameters["required"] == ["label", "reason"]


@pytest.mark.parametrize(
    ("decision", "label", "agreeing"),
    [
        ("correct_clarification", "asks_for_missing", True),
        ("correct_clarification", "asks_other", False),
        ("unnecessary_clarification", "asks_again", True),
        ("wrong_clarification", "asks_other", True),
        ("wrong_clarification", "asks_for_missing", False),
        ("guessed_missing", "invents_value", True),
        ("correct_abstention", "answers", True),
        ("correct_abstention", "writes_call", False),
        ("missed_call", "answers", True),
        ("missed_call", "invents_value", True),
        ("missed_call", "asks_for_missing", False),
        ("call_in_text", "writes_call", False),  # not judged: nothing agrees
    ],
)
def test_agreement_table(decision: str, label: str, agreeing: bool) -> None:
    assert agrees(decision, label) is agreeing


def test_every_judged_decision_is_a_decision_and_every_label_is_used() -> None:
    assert set(AGREEING_LABELS) <= set(DECISIONS)
    used = {label for labels in AGREEING_LABELS.values() for label in labels}
    assert used == set(JUDGE_LABELS) - {"writes_call"}
    assert set(AGREEING_LABELS) | {"correct_call"} >= RIGHT_DECISIONS


def _verdict(decision: str) -> Verdict:
    return Verdict(passed=False, decision=decision)  # type: ignore[arg-type]


def test_only_text_replies_about_text_are_judged() -> None:
    text = parse_outcome({"kind": "text", "text": "Which postal code?"})
    calls = parse_outcome(
        {"kind": "tool_calls", "calls": [{"name": "f", "arguments": {}, "raw_arguments": "{}"}]}
    )
    assert is_judged(_verdict("correct_clarification"), text)
    assert not is_judged(_verdict("call_in_text"), text)
    assert not is_judged(_verdict("guessed_missing"), calls)
    assert not is_judged(_verdict("correct_abstention"), parse_outcome({"kind": "text", "text": "  "}))


def _call(arguments: Any, name: str = "rate_reply") -> dict[str, Any]:
    return {
        "kind": "tool_calls",
        "calls": [{"id": "c", "name": name, "arguments": arguments, "raw_arguments": "x"}],
    }


@pytest.mark.parametrize(
    ("outcome", "error"),
    [
        (
            {"kind": "provider_error", "code": "rate_limited", "message": "slow down"},
            "provider error rate_limited",
        ),
        ({"kind": "text", "text": '{"label": "answers"}'}, "answered with text"),
        ({"kind": "refusal", "text": "no"}, "answered with refusal"),
        (_call({"label": "answers"}, name="other_tool"), "made 0 rate_reply calls"),
        (_call(None), "arguments are not an object"),
        (_call({"label": "great", "reason": "x"}), "is not one of the rubric's"),
        (_call({"reason": "no label"}), "is not one of the rubric's"),
    ],
)
def test_a_reply_that_is_no_rating_is_a_judge_failure(outcome: dict[str, Any], error: str) -> None:
    found = read_rating("sim:judge", parse_outcome(outcome))
    assert found["target"] == "sim:judge" and "label" not in found
    assert error in found["error"]


def test_a_rating_keeps_label_and_a_bounded_reason() -> None:
    found = read_rating("sim:judge", parse_outcome(_call({"label": "asks_other", "reason": "r" * 1000})))
    assert found["label"] == "asks_other" and len(found["reason"]) == judge_module.MAX_REASON_CHARS


def test_the_prompt_shows_conversation_tools_missing_and_reply() -> None:
    case = Case.model_validate(
        {
            "id": "c-1",
            "prompt": "Versand nach Deutschland, 750 g?",
            "history": [{"role": "assistant", "content": "Hallo!"}],
            "tools": "core",
            "expected": {"kind": "clarification", "missing": ["postal_code"]},
        }
    )
    tool = rate_tool()
    text = judge_prompt(case, [tool], "Bitte nennen Sie die Postleitzahl.")
    assert "assistant: Hallo!\nuser: Versand nach Deutschland, 750 g?" in text
    assert (
        "- rate_reply: Record your rating" in text and "    - label (required): The rubric's label." in text
    )
    assert "## Information the request still lacks\npostal_code" in text
    assert text.endswith("## The assistant's reply (text, no tool call)\nBitte nennen Sie die Postleitzahl.")
    abstention = Case.model_validate({**case.model_dump(), "expected": {"kind": "text"}})
    assert "## Information the request still lacks\nnothing" in judge_prompt(abstention, [], "Hi")
