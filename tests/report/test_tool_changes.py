"""Per-tool hashes: what a manifest pins for a suite, and which tools two manifests disagree on."""

from __future__ import annotations

import json
from pathlib import Path

from intent_logs import TOOLS, write_suite

from fcbench.contract import Tool
from fcbench.report.pin_diff import tool_changes
from fcbench.run.pins import tool_hash, tool_pins
from fcbench.store.records import Manifest, ToolSetPin
from fcbench.suite.loader import load_suite


def _manifest(**sets: ToolSetPin) -> Manifest:
    return Manifest(
        run_id="20261203-000000-aaaaaa", fcbench_version="0", suite="s", dataset_version="1",
        dataset_hash="h", config_hash="c", targets=[], modes=["selection"], repeats=1,
        temperature=None, seed=0, planned=0, started_at="2026-12-03T00:00:00Z", tool_sets=sets,
    )  # fmt: skip


def test_the_hash_covers_name_description_and_parameters_only() -> None:
    tool = Tool.model_validate(TOOLS[0])
    assert tool_hash(tool) == tool_hash(tool.model_copy(update={"side_effect": "write"}))
    for change in ({"description": "other"}, {"name": "other"}, {"parameters": {"type": "object"}}):
        assert tool_hash(tool.model_copy(update=change)) != tool_hash(tool)


def test_a_suite_pins_each_set_and_each_inline_list(tmp_path: Path) -> None:
    folder = write_suite(tmp_path / "suite")
    inline = {"id": "own", "prompt": "hi", "tools": [TOOLS[1]], "expected": {"kind": "text"}}
    with (folder / "cases.jsonl").open("a") as fh:
        fh.write(json.dumps(inline) + "\n")
    pins = tool_pins(load_suite(folder))
    assert list(pins) == ["core", "inline:own"]
    assert pins["core"].cases == ["lookup-en", "lookup-zh", "search-en", "thanks-en"]
    assert pins["inline:own"].cases == ["own"]
    assert pins["inline:own"].tools == {"search_orders": pins["core"].tools["search_orders"]}


def test_changed_added_and_removed_tools_with_their_cases() -> None:
    base = _manifest(
        core=ToolSetPin(tools={"a": "1" * 64, "b": "2" * 64, "gone": "3" * 64}, cases=["c1", "c2"]),
        other=ToolSetPin(tools={"a": "1" * 64}, cases=["c3"]),
    )
    new = _manifest(
        core=ToolSetPin(tools={"a": "1" * 64, "b": "9" * 64, "fresh": "4" * 64}, cases=["c1", "c2"]),
        other=ToolSetPin(tools={"a": "1" * 64}, cases=["c3"]),
    )
    found = {c.name: c for c in tool_changes(base, new)}
    assert {name: c.kind for name, c in found.items()} == {
        "b": "changed",
        "fresh": "added",
        "gone": "removed",
    }
    assert found["b"].cases == {"c1", "c2"}
    assert found["b"].describe() == (
        "tool b changed (schema or description; sha256 22222222 -> 99999999), offered to 2 cases"
    )
    assert tool_changes(base, base) == []


def test_a_tool_defined_two_ways_in_one_run_changes_when_one_of_them_does() -> None:
    base = _manifest(x=ToolSetPin(tools={"a": "1" * 64}, cases=["c1"]), y=ToolSetPin(tools={"a": "2" * 64}))
    new = _manifest(x=ToolSetPin(tools={"a": "1" * 64}, cases=["c1"]), y=ToolSetPin(tools={"a": "3" * 64}))
    (change,) = tool_changes(base, new)
    assert change.base == ("1" * 64, "2" * 64) and change.new == ("1" * 64, "3" * 64)


def test_nothing_is_compared_when_a_run_pins_no_tools() -> None:
    pinned = _manifest(core=ToolSetPin(tools={"a": "1" * 64}, cases=["c1"]))
    assert tool_changes(_manifest(), pinned) == [] == tool_changes(pinned, _manifest())
    assert "tool_sets" not in _manifest().model_dump()
