"""Every loader error names the file, the line and the field; all problems come out together."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fcbench.errors import CaseError
from fcbench.suite.loader import load_suite
from fcbench.suite.reading import SuiteError


def _error(path: Path) -> SuiteError:
    with pytest.raises(CaseError) as info:
        load_suite(path)
    assert isinstance(info.value, SuiteError)
    return info.value


def _expect(error: SuiteError, file: str, line: int | None, *fragments: str) -> None:
    """Assert one listed problem is in ``file`` at ``line`` and mentions every fragment."""
    where = f"{file}:{line}: " if line is not None else f"{file}: "
    matching = [p.message for p in error.problems if Path(p.path).name == file and p.line == line]
    assert any(all(f in text for f in fragments) for text in matching), (where, fragments, str(error))
    assert where in str(error)


# ---- files


@pytest.mark.parametrize("name", ["suite.json", "tools.core.json", "cases.jsonl"])
def test_missing_file(core_copy: Any, name: str) -> None:
    (core_copy.path / name).unlink()
    _expect(_error(core_copy.path), name, None, "file is missing")


@pytest.mark.parametrize("name", ["suite.json", "tools.core.json", "cases.jsonl"])
def test_empty_file(core_copy: Any, name: str) -> None:
    (core_copy.path / name).write_text("\n  \n", encoding="utf-8")
    _expect(_error(core_copy.path), name, 1, "empty")


@pytest.mark.parametrize("content", [None, "", "\n  \n"])
def test_a_missing_or_empty_system_prompt_is_no_system_prompt(core_copy: Any, content: str | None) -> None:
    system = core_copy.path / "system.txt"
    if content is None:
        system.unlink()
    else:
        system.write_text(content, encoding="utf-8")
    assert load_suite(core_copy.path).system == ""


def test_bom_and_crlf_are_accepted(core_copy: Any) -> None:
    original = load_suite(core_copy.path)
    for name in ("suite.json", "system.txt", "tools.core.json", "cases.jsonl"):
        path = core_copy.path / name
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    loaded = load_suite(core_copy.path)
    assert loaded.system == original.system and "\r" not in loaded.system
    assert loaded.cases == original.cases
    assert loaded.dataset_hash == original.dataset_hash


def test_non_utf8_names_line_and_other_lines_are_still_checked(core_copy: Any) -> None:
    bad = core_copy.edit_case("abstain-01", lambda case: case.update(expected={"kind": "txt"}))
    data = core_copy.cases_path.read_bytes().split(b"\n")
    assert b"Quote" in data[4]
    data[4] = data[4].replace(b"Quote", b"Qu\xe9ote")
    core_copy.cases_path.write_bytes(b"\n".join(data))
    error = _error(core_copy.path)
    _expect(error, "cases.jsonl", 5, "not valid UTF-8", "0xe9")
    _expect(error, "cases.jsonl", bad, "expected.kind", "'txt'")


def test_non_utf8_in_json_document(core_copy: Any) -> None:
    path = core_copy.path / "tools.core.json"
    text = path.read_bytes().split(b"\n")
    text[3] = text[3] + b"\xff"
    path.write_bytes(b"\n".join(text))
    _expect(_error(core_copy.path), "tools.core.json", 4, "not valid UTF-8")


def test_utf16_gets_a_hint(core_copy: Any) -> None:
    (core_copy.path / "system.txt").write_bytes("Be brief.\n".encode("utf-16"))
    _expect(_error(core_copy.path), "system.txt", 1, "UTF-16")


def test_invalid_json_line_names_line_and_column(core_copy: Any) -> None:
    core_copy.set_line(3, '{"id": "x", "prompt": "p" "expected": {"kind": "text"}}')
    _expect(_error(core_copy.path), "cases.jsonl", 3, "invalid JSON at column 27", "delimiter")


def test_invalid_json_document_names_line(core_copy: Any) -> None:
    path = core_copy.path / "suite.json"
    path.write_text('{\n  "name": "core",\n  "dataset_version": 1.0.0\n}\n', encoding="utf-8")
    _expect(_error(core_copy.path), "suite.json", 3, "invalid JSON at column")


def test_duplicate_json_keys_and_nan_are_rejected(core_copy: Any) -> None:
    core_copy.set_line(2, '{"id": "a", "id": "b", "prompt": "p", "expected": {"kind": "text"}}')
    core_copy.set_line(4, '{"id": "c", "prompt": "p", "expected": {"kind": "text"}, "note": NaN}')
    error = _error(core_copy.path)
    _expect(error, "cases.jsonl", 2, "duplicate key 'id'")
    _expect(error, "cases.jsonl", 4, "NaN is not valid JSON")


def test_a_line_that_is_not_an_object(core_copy: Any) -> None:
    core_copy.set_line(6, '["not", "a", "case"]')
    _expect(_error(core_copy.path), "cases.jsonl", 6, "must be a JSON object")


# ---- case shape (pydantic)


def test_unknown_keys_are_named_with_their_path(core_copy: Any) -> None:
    top = core_copy.edit_case("abstain-01", lambda case: case.update(promt="typo"))
    nested = core_copy.edit_case("select-lookup-01", lambda case: case["expected"].update(nmae="x"))
    error = _error(core_copy.path)
    _expect(error, "cases.jsonl", top, "promt: unknown key")
    _expect(error, "cases.jsonl", nested, "expected.nmae: unknown key")


def test_pydantic_locations_become_dotted_paths(core_copy: Any) -> None:
    def break_calls(case: dict[str, Any]) -> None:
        del case["expected"]["calls"][1]["name"]

    def break_history(case: dict[str, Any]) -> None:
        del case["history"][0]["content"]

    calls = core_copy.edit_case("multi-lookup-01", break_calls)
    history = core_copy.edit_case("history-clarify-01", break_history)
    category = core_copy.edit_case("abstain-02", lambda case: case.update(category="hard"))
    tags = core_copy.edit_case("abstain-03", lambda case: case.update(tags=["ok", ""]))
    error = _error(core_copy.path)
    _expect(error, "cases.jsonl", calls, "expected.calls[1].name: required key is missing")
    _expect(error, "cases.jsonl", history, "history[0].content: required key is missing")
    _expect(error, "cases.jsonl", category, "category:", "'normal'")
    _expect(error, "cases.jsonl", tags, "tags:", "non-empty")


def test_tools_field_of_wrong_type_reports_once(core_copy: Any) -> None:
    line = core_copy.edit_case("abstain-01", lambda case: case.update(tools=[{"name": 5}]))
    error = _error(core_copy.path)
    _expect(error, "cases.jsonl", line, "tools[0].name:", "valid string")
    assert not any(str(p).endswith("tools: Input should be a valid string") for p in error.problems)


def test_duplicate_ids_name_both_lines(core_copy: Any) -> None:
    first = core_copy.line_of("clarify-01")
    second = core_copy.edit_case("abstain-02", lambda case: case.update(id="clarify-01"))
    _expect(_error(core_copy.path), "cases.jsonl", second, "duplicate id 'clarify-01'", f"line {first}")


# ---- case semantics


def test_unknown_tool_set(core_copy: Any) -> None:
    line = core_copy.edit_case("abstain-01", lambda case: case.update(tools="compat"))
    _expect(
        _error(core_copy.path), "cases.jsonl", line, "tools:", "unknown tool set 'compat'", "compatibility"
    )


def test_unknown_tool_in_expected(core_copy: Any) -> None:
    def rename(case: dict[str, Any]) -> None:
        case["expected"]["name"] = "lookup_ordr"

    def rename_second_call(case: dict[str, Any]) -> None:
        case["expected"]["calls"][1]["name"] = "find_order"

    single = core_copy.edit_case("select-lookup-01", rename)
    several = core_copy.edit_case("multi-lookup-01", rename_second_call)
    clarify = core_copy.edit_case("clarify-03", rename)
    error = _error(core_copy.path)
    _expect(error, "cases.jsonl", single, "expected.name: 'lookup_ordr' is not a tool", "lookup_order")
    _expect(error, "cases.jsonl", several, "expected.calls[1].name: 'find_order' is not a tool")
    _expect(error, "cases.jsonl", clarify, "expected.name: 'lookup_ordr' is not a tool")


def test_paraphrase_of_must_name_an_existing_case(core_copy: Any) -> None:
    missing = core_copy.edit_case("abstain-02", lambda case: case.update(paraphrase_of="abstain-99"))
    itself = core_copy.edit_case("abstain-03", lambda case: case.update(paraphrase_of="abstain-03"))
    error = _error(core_copy.path)
    _expect(error, "cases.jsonl", missing, "paraphrase_of: 'abstain-99' is not the id of any case")
    _expect(error, "cases.jsonl", itself, "paraphrase_of: 'abstain-03' is the case itself")


def test_exact_arguments_must_validate_against_the_tool_schema(core_copy: Any) -> None:
    def bad(case: dict[str, Any]) -> None:
        case["expected"]["arguments"] = {"order_id": "ORD-12", "verbose": True}

    def int_postal(case: dict[str, Any]) -> None:
        case["expected"]["arguments"]["postal_code"] = 2139

    line = core_copy.edit_case("select-lookup-02", bad)
    postal = core_copy.edit_case("types-01", int_postal)
    error = _error(core_copy.path)
    _expect(error, "cases.jsonl", line, "expected.arguments.order_id", "does not match", "lookup_order")
    _expect(error, "cases.jsonl", line, "expected.arguments", "'verbose' was unexpected")
    _expect(error, "cases.jsonl", postal, "expected.arguments.postal_code", "is not of type 'string'")


def test_assertion_values_are_validated_per_property(core_copy: Any) -> None:
    def limit_too_big(case: dict[str, Any]) -> None:
        case["expected"]["arguments"]["requiredEquals"]["limit"] = 50

    def bad_one_of(case: dict[str, Any]) -> None:
        case["expected"]["arguments"]["oneOf"]["weight_grams"] = [1360, "1361"]

    def unknown_optional(case: dict[str, Any]) -> None:
        case["expected"]["arguments"]["optional"] = ["limit", "page"]

    limit = core_copy.edit_case("select-search-03", limit_too_big)
    one_of = core_copy.edit_case("args-unit-02", bad_one_of)
    optional = core_copy.edit_case("select-search-02", unknown_optional)
    error = _error(core_copy.path)
    _expect(error, "cases.jsonl", limit, "expected.arguments.requiredEquals.limit", "maximum of 20")
    _expect(error, "cases.jsonl", one_of, "expected.arguments.oneOf.weight_grams[1]", "not of type 'integer'")
    _expect(error, "cases.jsonl", optional, "expected.arguments.optional", "'page' is not a parameter")


def test_assertions_that_no_call_could_pass_are_rejected(core_copy: Any) -> None:
    def uncovered(case: dict[str, Any]) -> None:
        case["expected"]["arguments"]["requiredEquals"].pop("postal_code")

    def forbid_required(case: dict[str, Any]) -> None:
        case["expected"]["arguments"]["forbidden"] = ["email"]

    def bad_regex(case: dict[str, Any]) -> None:
        case["expected"]["arguments"]["constraints"] = {"limit": {"pattern": "(", "minimum": 5, "maximum": 2}}

    line = core_copy.edit_case("select-quote-03", uncovered)
    forbidden = core_copy.edit_case("args-enum-01", forbid_required)
    regex = core_copy.edit_case("args-enum-02", bad_regex)
    error = _error(core_copy.path)
    _expect(error, "cases.jsonl", line, "expected.arguments", "'postal_code'", "not covered")
    _expect(error, "cases.jsonl", forbidden, "expected.arguments.forbidden", "'email'", "required")
    _expect(error, "cases.jsonl", regex, "expected.arguments.constraints.limit.pattern", "invalid regular")
    _expect(error, "cases.jsonl", regex, "expected.arguments.constraints.limit", "greater than maximum")


def test_clarification_missing_must_be_parameters(core_copy: Any) -> None:
    named = core_copy.edit_case("clarify-03", lambda case: case["expected"].update(missing=["weight_kg"]))
    unnamed = core_copy.edit_case("clarify-01", lambda case: case["expected"].update(missing=["zip"]))
    error = _error(core_copy.path)
    _expect(
        error,
        "cases.jsonl",
        named,
        "expected.missing[0]",
        "'weight_kg' is not a parameter of get_shipping_quote",
    )
    _expect(error, "cases.jsonl", unnamed, "expected.missing[0]", "'zip' is not a parameter of any tool")


def test_history_tool_results_must_answer_earlier_calls(core_copy: Any) -> None:
    def orphan(case: dict[str, Any]) -> None:
        case["history"][2]["call_id"] = "call_9"

    def unknown_tool(case: dict[str, Any]) -> None:
        case["history"][1]["calls"][0]["name"] = "track_order"

    line = core_copy.edit_case("history-followup-01", orphan)
    other = core_copy.edit_case("history-abstain-01", unknown_tool)
    error = _error(core_copy.path)
    _expect(error, "cases.jsonl", line, "history[2].call_id", "'call_9' does not answer any earlier")
    _expect(error, "cases.jsonl", other, "history[1].calls[0].name", "'track_order' is not a tool")


def test_empty_prompt(core_copy: Any) -> None:
    line = core_copy.edit_case("abstain-01", lambda case: case.update(prompt="   "))
    _expect(_error(core_copy.path), "cases.jsonl", line, "prompt: is empty")


def test_inline_tools_are_checked_like_tool_sets(core_copy: Any) -> None:
    inline = [
        {"name": "get.weather", "parameters": {"type": "object"}},
        {"name": "ok_tool", "parameters": {"type": "objekt"}},
    ]
    line = core_copy.append({"id": "inline-01", "prompt": "p", "tools": inline, "expected": {"kind": "text"}})
    error = _error(core_copy.path)
    _expect(error, "cases.jsonl", line, "tools[0].name", "'get.weather' is not a legal tool name")
    _expect(error, "cases.jsonl", line, "tools[1].parameters.type", "not valid JSON Schema")


# ---- tool sets


def _line_containing(text: str, marker: str) -> int:
    lines = [number for number, line in enumerate(text.split("\n"), start=1) if marker in line]
    assert len(lines) == 1, marker
    return lines[0]


def test_invalid_tool_schema_names_file_line_and_field(core_copy: Any) -> None:
    document = core_copy.tools()
    document["tools"][1]["parameters"]["properties"]["limit"]["type"] = "int_eger"
    text = core_copy.write_tools(document)
    error = _error(core_copy.path)
    _expect(
        error,
        "tools.core.json",
        _line_containing(text, '"int_eger"'),
        "tools[1].parameters.properties.limit.type",
        "not valid JSON Schema",
    )


def test_duplicate_and_illegal_tool_names(core_copy: Any) -> None:
    document = core_copy.tools()
    document["tools"][2]["name"] = "lookup_order"
    document["tools"][1]["name"] = "search orders"
    text = core_copy.write_tools(document)
    error = _error(core_copy.path)
    third = _line_containing(text, '"description": "Estimate shipping')
    _expect(error, "tools.core.json", third - 1, "tools[2].name", "duplicate tool name 'lookup_order'", "[0]")
    _expect(
        error,
        "tools.core.json",
        _line_containing(text, '"search orders"'),
        "tools[1].name",
        "not a legal tool name",
    )


def test_bad_refs_and_non_object_roots(core_copy: Any) -> None:
    document = core_copy.tools("compatibility")
    by_name = {tool["name"]: tool for tool in document["tools"]}
    by_name["probe_ref_defs"]["parameters"]["properties"]["shipping"]["$ref"] = "#/$defs/adress"
    by_name["probe_recursive_ref"]["parameters"]["properties"]["root"]["$ref"] = "https://example.test/s.json"
    by_name["probe_pattern"]["parameters"]["type"] = "array"
    text = core_copy.write_tools(document, "compatibility")
    error = _error(core_copy.path)
    file = "tools.compatibility.json"
    _expect(
        error, file, _line_containing(text, "#/$defs/adress"), "properties.shipping.$ref", "does not point"
    )
    _expect(error, file, _line_containing(text, "https://example.test"), "not a local reference")
    index = list(by_name).index("probe_pattern")
    _expect(error, file, _type_line(text), f"tools[{index}].parameters.type", "must have")


def _type_line(text: str) -> int:
    lines = text.split("\n")
    start = _line_containing(text, '"name": "probe_pattern"')
    for number in range(start, len(lines) + 1):
        if lines[number - 1].strip() == '"type": "array",':
            return number
    raise AssertionError("type line not found")


def test_tool_set_file_shape(core_copy: Any) -> None:
    core_copy.write_tools({"tools": [], "extra": 1})
    (core_copy.path / "tools.broken.json").write_text('{"tool": [{"name": "x"}]}\n', encoding="utf-8")
    error = _error(core_copy.path)
    _expect(error, "tools.core.json", 2, "tools: the tool list is empty")
    _expect(error, "tools.core.json", 3, "extra: unknown key")
    _expect(error, "tools.broken.json", 1, 'must be {"tools"')


def test_tool_fields_are_checked(core_copy: Any) -> None:
    document = core_copy.tools()
    document["tools"][0]["side_effect"] = "delete"
    document["tools"][1]["title"] = "Search"
    text = core_copy.write_tools(document)
    error = _error(core_copy.path)
    _expect(error, "tools.core.json", _line_containing(text, '"delete"'), "tools[0].side_effect")
    _expect(error, "tools.core.json", _line_containing(text, '"title"'), "tools[1].title: unknown key")


def test_cases_naming_a_broken_tool_set_are_not_double_reported(core_copy: Any) -> None:
    document = core_copy.tools()
    document["tools"][0]["parameters"]["type"] = 5
    core_copy.write_tools(document)
    error = _error(core_copy.path)
    assert all(problem.path.endswith("tools.core.json") for problem in error.problems)


# ---- suite.json and collection


def test_suite_json_fields(core_copy: Any) -> None:
    (core_copy.path / "suite.json").write_text(
        json.dumps({"name": "core", "version": "1"}, indent=2) + "\n", encoding="utf-8"
    )
    error = _error(core_copy.path)
    _expect(error, "suite.json", 1, "dataset_version: required key is missing")
    _expect(error, "suite.json", 3, "version: unknown key")


def test_all_problems_are_collected_one_per_line(core_copy: Any) -> None:
    core_copy.edit_case("abstain-01", lambda case: case.update(tools="nope"))
    core_copy.edit_case("select-lookup-01", lambda case: case["expected"].update(name="nope"))
    core_copy.set_line(10, "{")
    (core_copy.path / "system.txt").write_bytes(b"Be brief.\n\xff\n")
    error = _error(core_copy.path)
    assert len(error.problems) == 4
    lines = str(error).split("\n")
    assert lines[0] == "4 problems:"
    assert len(lines) == 5
    assert [Path(p.path).name for p in error.problems] == ["system.txt", *["cases.jsonl"] * 3]
    case_lines = [p.line for p in error.problems if p.path.endswith("cases.jsonl")]
    assert case_lines == sorted(case_lines)
    assert error.path is not None and error.path.endswith("system.txt") and error.line == 2


def test_a_single_problem_is_one_line(core_copy: Any) -> None:
    line = core_copy.edit_case("abstain-01", lambda case: case.update(tools="nope"))
    error = _error(core_copy.path)
    assert "\n" not in str(error)
    assert str(error).startswith(f"{core_copy.cases_path}:{line}: tools:")
    assert error.line == line
