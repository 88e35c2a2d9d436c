"""A suite's ``writes:`` list marks tools of any pasted format as write tools, and read tools that
look like writes are warned about (imported sets only; never an error)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from fcbench.contract import Tool
from fcbench.suite.lint import imported_write_suspects, write_hint, write_suspects
from fcbench.suite.loader import builtin_suites, load_suite
from fcbench.suite.reading import SuiteError

PARAMETERS = {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}
CASES = [
    {
        "id": "look-01",
        "prompt": "Where is order ORD-1?",
        "expected": {"kind": "tool", "name": "lookup_order", "arguments": {"order_id": "ORD-1"}},
    }
]


def openai_tools() -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": name, "description": text, "parameters": PARAMETERS}}
        for name, text in (("lookup_order", "Look up one order."), ("cancel_order", "Cancel one order."))
    ]


def anthropic_tools() -> list[dict[str, Any]]:
    return [
        {"name": name, "description": text, "input_schema": PARAMETERS}
        for name, text in (("lookup_order", "Look up one order."), ("cancel_order", "Cancel one order."))
    ]


def one_file(tmp_path: Path, **extra: Any) -> Path:
    path = tmp_path / "suite.yaml"
    doc = {"dataset_version": "1", **extra, "tools": openai_tools(), "cases": CASES}
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def folder(tmp_path: Path, info: dict[str, Any]) -> Path:
    path = tmp_path / "suite"
    path.mkdir()
    (path / "suite.json").write_text(json.dumps({"name": "s", "dataset_version": "1", **info}, indent=1))
    (path / "tools.core.json").write_text(json.dumps({"tools": anthropic_tools()}))
    (path / "cases.jsonl").write_text("\n".join(json.dumps(case) for case in CASES) + "\n")
    return path


def side_effects(path: Path) -> dict[str, str]:
    return {tool.name: tool.side_effect for tool in load_suite(path).tool_sets["core"]}


def test_a_one_file_suites_writes_list_makes_pasted_openai_tools_write_tools(tmp_path: Path) -> None:
    marked = side_effects(one_file(tmp_path, writes=["cancel_order"]))
    assert marked == {"lookup_order": "read", "cancel_order": "write"}
    assert side_effects(one_file(tmp_path)) == {"lookup_order": "read", "cancel_order": "read"}


def test_a_folders_suite_json_writes_list_marks_an_anthropic_list(tmp_path: Path) -> None:
    assert side_effects(folder(tmp_path, {"writes": ["cancel_order"]}))["cancel_order"] == "write"


@pytest.mark.parametrize("form", ["one-file", "folder"])
def test_a_writes_name_no_tool_has_is_an_error_at_its_line(tmp_path: Path, form: str) -> None:
    path = (
        one_file(tmp_path, writes=["cancel_order", "cancel_ordr"])
        if form == "one-file"
        else folder(tmp_path, {"writes": ["cancel_order", "cancel_ordr"]})
    )
    with pytest.raises(SuiteError) as caught:
        load_suite(path)
    (problem,) = caught.value.problems
    assert "writes[1]: no tool named 'cancel_ordr' in any tool set" in str(problem)
    text = path.read_text() if form == "one-file" else (path / "suite.json").read_text()
    assert problem.line is not None
    assert {"writes", "cancel_ordr"} & set(text.splitlines()[problem.line - 1].replace('"', " ").split())


@pytest.mark.parametrize(
    ("name", "description", "word"),
    [
        ("cancel_order", "", "cancel"),
        ("createTicket", "", "create"),
        ("notify", "Sends an e-mail to the customer. Looks nothing up.", "sends"),
        ("get_weather", "Current weather for a city.", None),
        ("lookup_order", "Look up one order. Does not cancel it.", None),  # past the first sentence
        ("get_settings", "", None),
    ],
)
def test_write_hint_reads_name_words_and_the_first_sentence(
    name: str, description: str, word: str | None
) -> None:
    assert write_hint(Tool(name=name, description=description)) == word
    assert write_hint(Tool(name=name, description=description, side_effect="write")) is None


def test_only_imported_sets_warn_and_a_marked_tool_does_not(tmp_path: Path) -> None:
    (warning,) = imported_write_suspects(load_suite(one_file(tmp_path)))
    assert warning.startswith("tool set core: cancel_order is marked read but looks like a write ('cancel')")
    assert "writes:" in warning
    assert imported_write_suspects(load_suite(one_file(tmp_path, writes=["cancel_order"]))) == []
    canonical = [Tool(name="cancel_order", description="Cancel one order.", parameters=PARAMETERS)]
    assert len(write_suspects({"core": canonical})) == 1  # what a log import and cases review ask
    for name in builtin_suites():
        assert imported_write_suspects(load_suite(name)) == []
