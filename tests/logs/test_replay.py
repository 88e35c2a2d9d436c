"""Comparing a new answer with a logged one: decision, tool, arguments, and what is coverage loss."""

from __future__ import annotations

from pathlib import Path

from fcbench.contract import (
    ProviderErrorOutcome,
    RefusalOutcome,
    TextOutcome,
    ToolCallsOutcome,
    Usage,
    make_call,
)
from fcbench.logs.entries import read_logs
from fcbench.logs.render import to_json, to_markdown
from fcbench.logs.replay import ArgumentDiff, ReplayReport, Side, compare, logged_side
from fcbench.pricing import PriceTable

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"


def _calls(*calls: tuple[str, str]) -> Side:
    return Side(
        ToolCallsOutcome(calls=[make_call(f"c{i}", name, raw) for i, (name, raw) in enumerate(calls)])
    )


def test_same_calls_in_another_order_and_spelling_are_the_same_outcome() -> None:
    logged = _calls(("a", '{"x": 1, "y": "2"}'), ("b", "{}"))
    new = _calls(("b", "{}"), ("a", '{"y":"2","x":1.0}'))
    result = compare(0, "log:1", logged, new)
    assert (result.same_decision, result.same_tool, result.same_arguments) == (True, True, True)
    assert result.diffs == []


def test_argument_differences_are_listed_key_by_key() -> None:
    logged = _calls(("a", '{"keep": 1, "change": "750", "drop": true}'))
    new = _calls(("a", '{"keep": 1, "change": 750, "add": null}'))
    result = compare(3, "log:4", logged, new)
    assert (result.same_decision, result.same_tool, result.same_arguments) == (True, True, False)
    assert sorted(result.diffs, key=lambda d: d.key) == [
        ArgumentDiff("add", "extra", None, None),
        ArgumentDiff("change", "changed", "750", 750),
        ArgumentDiff("drop", "missing", True, None),
    ]


def test_decision_tool_and_error_are_told_apart() -> None:
    text = compare(0, "l:1", Side(TextOutcome(text="hi")), Side(RefusalOutcome(text="no")))
    assert (text.same_decision, text.same_tool, text.same_arguments) == (True, True, True)
    wrong_tool = compare(1, "l:2", _calls(("a", "{}")), _calls(("b", "{}")))
    assert (wrong_tool.same_decision, wrong_tool.same_tool, wrong_tool.same_arguments) == (True, False, False)
    missed = compare(2, "l:3", _calls(("a", "{}")), Side(TextOutcome(text="which one?")))
    assert (missed.same_decision, missed.same_tool) == (False, False)
    error = compare(3, "l:4", _calls(("a", "{}")), Side(ProviderErrorOutcome(code="server", message="boom")))
    assert not error.compared
    report = ReplayReport("sim:x", "openai-chat", "openai-chat", [], 4, [text, wrong_tool, missed, error])
    assert report.rate("same_decision").model_dump(include={"n", "d"}) == {"n": 2, "d": 3}
    assert report.rate("same_arguments").model_dump(include={"n", "d"}) == {"n": 1, "d": 3}
    assert report.provider_errors == {"server": 1}
    data = to_json(report)
    assert data["errors"] == [{"index": 3, "where": "l:4", "code": "server", "message": "boom"}]
    assert [d["index"] for d in data["disagreements"]] == [1, 2]
    assert "| Same decision (call or no call) | 66.7% (2/3) |" in to_markdown(report)


def test_logged_side_prices_the_logged_usage() -> None:
    entry = read_logs([LOGS / "replay.openai-chat.jsonl"], "openai-chat").entries[0]
    side = logged_side(entry, PriceTable())
    assert side.latency_ms == 1000.0 and side.usage == Usage(input_tokens=200, output_tokens=20)
    assert side.cost_usd is not None and abs(side.cost_usd - (200 * 2.5 + 20 * 10) / 1e6) < 1e-12
