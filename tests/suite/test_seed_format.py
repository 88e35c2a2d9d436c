"""The seed's case format both ways: seed -> suite -> seed gives the same cases, and what one side
cannot express is named in a warning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fcbench.contract import Tool, ToolCall, ToolCallsOutcome
from fcbench.errors import InputError
from fcbench.grading import grade
from fcbench.suite.loader import load_suite
from fcbench.suite.models import Case
from fcbench.suite.seed_format import cases_to_seed, import_seed_cases, read_seed_file, seed_to_cases

SEED = Path(__file__).resolve().parents[1] / "fixtures" / "seed"


def _tools() -> list[Tool]:
    return [Tool.model_validate(t) for t in json.loads((SEED / "tools.json").read_text())["tools"]]


def _exported(folder: Path) -> tuple[list[dict[str, Any]], list[str]]:
    suite = load_suite(folder)
    conversion = cases_to_seed(suite.cases, suite.tools_for, suite.system)
    return conversion.cases, conversion.warnings


def _one(tmp_path: Path, **fields: Any) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """Import one seed case (``fields`` over a plain one) and export it again: the exported cases,
    the import's warnings and the export's."""
    case = {
        "case_id": "X1", "description": "", "user_message": "请取消 ORD-001", "conversation_history": [],
        "expected_function": "cancel_order", "expected_params": {}, "required_params": [],
        "forbidden_params": [], "category": "normal", **fields,
    }  # fmt: skip
    (tmp_path / "one.json").write_text(json.dumps([case], ensure_ascii=False))
    imported = import_seed_cases(tmp_path / "one.json", _tools(), tmp_path / "suite")
    exported, warnings = _exported(tmp_path / "suite")
    return exported, imported.warnings, warnings


def test_seed_cases_round_trip_through_a_suite(tmp_path: Path) -> None:
    original = json.loads((SEED / "cases.json").read_text())
    imported = import_seed_cases(SEED / "cases.json", _tools(), tmp_path / "suite")
    assert imported.skipped == []
    exported, _ = _exported(tmp_path / "suite")
    assert exported == original


def test_the_seed_rules_hold_in_the_imported_cases(tmp_path: Path) -> None:
    import_seed_cases(SEED / "cases.json", _tools(), tmp_path / "suite")
    suite = load_suite(tmp_path / "suite")

    def passed(case_id: str, **arguments: Any) -> bool:
        case = suite.case(case_id)
        name = getattr(case.expected, "name", "")
        call = ToolCall(id="c1", name=name, arguments=arguments, raw_arguments=json.dumps(arguments))
        return grade(case, ToolCallsOutcome(calls=[call]), suite.tools_for(case)).passed

    assert passed("N001", limit=20)  # a value of expected_params is a preference: reported, not failed
    assert passed("N001")  # and a key not required may be absent
    assert not passed("B003", limit=20)  # unless its key is strict
    assert not passed("B003", limit=10000, status="paid")  # a forbidden key fails
    assert passed("A001", order_id="ORD-002", reason="x")  # required with a tolerant value
    assert not passed("A001", reason="x")  # but required


def test_a_required_key_with_no_expected_value_is_named(tmp_path: Path) -> None:
    exported, imported, _ = _one(tmp_path, required_params=["order_id"])
    assert any("required_params order_id has no expected value" in w for w in imported)
    assert "its schema requires it" in " ".join(imported)
    assert exported[0]["required_params"] == []


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"priority": "high"}, "unknown field priority is not kept"),
        (
            {"category": "smoke"},
            "category 'smoke' is not one of normal, boundary, adversarial; kept as normal",
        ),
        (
            {"expected_function": None, "required_params": ["order_id"]},
            "required_params of a case expecting no call",
        ),
        (
            {"expected_params": {"order_id": "ORD-1"}, "forbidden_params": ["order_id"]},
            "both expected and forbidden",
        ),
    ],
)
def test_what_fcbench_cannot_express_is_named(tmp_path: Path, fields: dict[str, Any], said: str) -> None:
    _, imported, _ = _one(tmp_path, **fields)
    assert any(said in warning for warning in imported), imported


def test_cases_that_cannot_be_imported_are_skipped_and_named() -> None:
    items = [
        {"case_id": "U1", "user_message": "hi", "expected_function": "delete_everything"},
        {"case_id": "H1", "user_message": "hi", "conversation_history": [{"role": "robot"}]},
        {"case_id": "OK", "user_message": "hi"},
    ]
    text = "[\n" + ",\n".join(json.dumps(item) for item in items) + "\n]"
    conversion = seed_to_cases(read_seed_file(text, "seed.json"), _tools())
    assert conversion.skipped == ["U1", "H1"]
    assert [c["id"] for c in conversion.cases] == ["OK"]
    unknown, history = conversion.warnings
    assert unknown.startswith("seed.json:2: case U1: expected_function delete_everything is not in the tools")
    assert history.startswith("seed.json:3: case H1: conversation_history[0] is not a message")


def _case(**fields: Any) -> Case:
    return Case.model_validate({"id": "c", "prompt": "p", **fields})


_QUERY = {"kind": "tool", "name": "query_order"}
_BOUNDED = {"requiredEquals": {}, "constraints": {"limit": {"maximum": 5}}}


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"expected": {"kind": "tools", "calls": [{"name": "query_order"}]}}, "several expected calls"),
        ({"expected": {"kind": "clarification", "missing": ["order_id"]}}, "a clarification"),
        ({"expected": {"kind": "text"}, "tags": ["t"]}, "tags"),
        ({"expected": {"kind": "text"}, "tools": "other"}, "tool set other"),
        ({"expected": {"kind": "text"}, "paraphrase_of": "N001"}, "paraphrase_of"),
        ({"expected": {"kind": "text"}, "label": "pending"}, "the pending label"),
        (
            {"expected": {**_QUERY, "arguments": _BOUNDED}},
            "a constraint other than one accepted value",
        ),
        (
            {"expected": {**_QUERY, "arguments": {"oneOf": {"status": ["paid", "completed"]}}}},
            "oneOf (its keys are exported as required without a value)",
        ),
    ],
)  # fmt: skip
def test_what_the_seed_format_cannot_hold_is_named(fields: dict[str, Any], said: str) -> None:
    conversion = cases_to_seed([_case(**fields)], lambda case: _tools(), "")
    assert any(w.startswith(f"not in the seed format: {said}") for w in conversion.warnings), (
        conversion.warnings
    )
    assert any(w.endswith(": 1 cases (c)") and said in w for w in conversion.warnings)


def test_an_exact_case_exports_every_key_strict_and_the_other_parameters_forbidden() -> None:
    case = _case(expected={"kind": "tool", "name": "cancel_order", "arguments": {"order_id": "ORD-9"}})
    (seed,) = cases_to_seed([case], lambda c: _tools(), "").cases
    assert seed["expected_params"] == {"order_id": "ORD-9"}
    assert seed["required_params"] == seed["strict_params"] == ["order_id"]
    assert seed["forbidden_params"] == ["reason"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[1, 2]", "seed.json:1: a seed case must be a JSON object, not int"),
        ('[{"case_id": 7}]', "seed.json:1: case_id: expected a string, got int"),
        ('{"case_id": "a"}\n{"case_id": ', "seed.json:2: not a JSON line"),
        ('[{"case_id": "a",\n "required_params": [1]}]', "required_params: expected a list of strings"),
        ("[", "seed.json: not a JSON array of cases"),
    ],
)
def test_bad_seed_files_name_file_and_line(text: str, said: str) -> None:
    with pytest.raises(InputError) as raised:
        seed_to_cases(read_seed_file(text, "seed.json"), _tools())
    assert said in str(raised.value)


def test_a_missing_or_undecodable_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such case file"):
        import_seed_cases(tmp_path / "nope.json", _tools(), tmp_path / "out")
    (tmp_path / "latin1.json").write_bytes(b'[{"case_id": "caf\xe9"}]')
    with pytest.raises(InputError, match="latin1.json: is not UTF-8"):
        import_seed_cases(tmp_path / "latin1.json", _tools(), tmp_path / "out")
