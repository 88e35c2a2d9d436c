"""Importing BFCL category files: every sample file, the CLI, and each conversion rule."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fcbench.bfcl.convert import REPORT_FILE, ImportReport, import_bfcl
from fcbench.bfcl.entries import SKIP_REASONS
from fcbench.bfcl.schema import UnsupportedSchema, legal_names
from fcbench.errors import ConfigError, InputError
from fcbench.suite.loader import load_suite
from fcbench.suite.models import ExpectTool, ExpectTools
from fcbench.suite.tools import TOOL_NAME_PATTERN

SAMPLE_FILES = sorted(
    p.name for p in (Path(__file__).resolve().parents[1] / "fixtures" / "bfcl").glob("BFCL_*.json")
)
Imported = Callable[[str], tuple[Path, ImportReport]]


def _ids(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fcbench", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("file_name", SAMPLE_FILES)
def test_every_sample_file_imports_and_validates(bfcl_dir: Path, tmp_path: Path, file_name: str) -> None:
    questions = bfcl_dir / file_name
    answers = bfcl_dir / "possible_answer" / file_name
    out = tmp_path / "suite"
    report = import_bfcl(questions, out, answers=answers if answers.is_file() else None)

    ids = _ids(questions)
    assert report.entries == len(ids)
    assert report.imported + report.skipped == len(ids)
    assert report.skipped == 0, report.skipped_entries  # every sample category is supported
    assert sum(report.by_kind.values()) == report.imported
    assert report.answers == (str(answers) if answers.is_file() else None)

    suite = load_suite(out)
    assert [case.id for case in suite.cases] == ids
    assert suite.system == "" and not (out / "system.txt").exists()  # BFCL sends no system prompt
    assert suite.name == f"bfcl-{file_name[len('BFCL_v4_') : -len('.json')]}"
    assert re.fullmatch(r"bfcl-v4\+[0-9a-f]{8}", suite.dataset_version)
    saved = json.loads((out / REPORT_FILE).read_text(encoding="utf-8"))
    assert saved["imported"] == report.imported and saved["entries"] == len(ids)

    proc = _cli("cases", "validate", out, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"{len(ids)} cases" in proc.stdout


def test_reimport_over_an_older_import_drops_its_system_prompt(bfcl_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "suite"
    out.mkdir()
    (out / "system.txt").write_text("You are a helpful assistant.\n", encoding="utf-8")
    import_bfcl(bfcl_dir / SAMPLE_FILES[0], out, force=True)
    assert not (out / "system.txt").exists() and load_suite(out).system == ""


def test_cli_import_prints_counts(bfcl_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "simple"
    proc = _cli(
        "import",
        "bfcl",
        bfcl_dir / "BFCL_v4_simple_python.json",
        "--answers",
        bfcl_dir / "possible_answer" / "BFCL_v4_simple_python.json",
        "--out",
        out,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "imported 400 of 400 entries" in proc.stdout
    assert len(load_suite(out).cases) == 400

    again = _cli("import", "bfcl", bfcl_dir / "BFCL_v4_simple_python.json", "--out", out, cwd=tmp_path)
    assert again.returncode == 2 and "not empty" in again.stderr
    forced = _cli(
        "import", "bfcl", bfcl_dir / "BFCL_v4_simple_python.json", "--out", out, "--force", cwd=tmp_path
    )
    assert forced.returncode == 0, forced.stderr


def test_cli_unsupported_category_exits_2(bfcl_dir: Path, tmp_path: Path) -> None:
    proc = _cli(
        "import",
        "bfcl",
        bfcl_dir / "BFCL_v4_simple_python.json",
        "--category",
        "multi_turn_base",
        "--out",
        tmp_path / "x",
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert "stateful" in proc.stderr
    assert not (tmp_path / "x").exists()


def _case(suite_dir: Path, case_id: str) -> Any:
    return load_suite(suite_dir).case(case_id)


def test_dotted_names_are_made_legal_and_mapped(imported: Imported) -> None:
    suite_dir, report = imported("simple_python")
    case = _case(suite_dir, "simple_python_1")
    assert [tool.name for tool in case.tools] == ["math_factorial"]
    assert case.name_map == {"math_factorial": "math.factorial"}
    assert isinstance(case.expected, ExpectTool) and case.expected.name == "math_factorial"
    assert case.expected.arguments == {"requiredEquals": {"number": 5}}
    assert report.renamed_tools > 0
    plain = _case(suite_dir, "simple_python_0")
    assert plain.name_map is None and plain.tools[0].name == "calculate_triangle_area"


def test_types_are_mapped_to_json_schema(imported: Imported) -> None:
    suite_dir, _ = imported("simple_python")
    triangle = _case(suite_dir, "simple_python_0").tools[0].parameters
    assert triangle["type"] == "object" and triangle["required"] == ["base", "height"]
    assert triangle["properties"]["base"]["type"] == "integer"
    coords = _case(suite_dir, "simple_python_83").tools[0].parameters["properties"]["coord1"]
    assert coords["type"] == "array" and coords["items"] == {"type": "number"}  # tuple of float
    data = _case(suite_dir, "simple_python_109").tools[0].parameters["properties"]["data"]
    assert "type" not in data and data["description"]  # any
    conditions = _case(suite_dir, "simple_python_96").tools[0].parameters["properties"]["conditions"]
    assert conditions["items"]["type"] == "object"  # nested dict
    assert conditions["items"]["properties"]["operation"]["enum"] == ["<", ">", "=", ">=", "<="]
    assert conditions["items"]["required"] == ["field", "operation", "value"]


def test_possible_answers_become_assertions(imported: Imported) -> None:
    suite_dir, report = imported("simple_python")
    triangle = _case(suite_dir, "simple_python_0").expected.arguments
    assert triangle == {
        "requiredEquals": {"base": 10, "height": 5},
        "optional": ["unit"],
        "constraints": {"unit": {"enum": ["units"]}},
    }
    db = _case(suite_dir, "simple_python_89").expected.arguments
    assert db["oneOf"]["conditions"] == [
        {"department": "Science", "school": "Bluebird High School"},
        {"department": "Science", "school": "Bluebird HS"},
    ]
    stocks = _case(suite_dir, "simple_python_149").expected.arguments
    assert stocks["oneOf"]["company_names"] == [["Apple", "Microsoft"], ["AAPL", "MSFT"]]
    assert any("dropped accepted value" in w for w in report.warnings["simple_python_149"])


def test_category_kinds(imported: Imported) -> None:
    parallel = load_suite(imported("parallel")[0])
    assert all(isinstance(c.expected, ExpectTools) and c.expected.order == "any" for c in parallel.cases)
    multiple = load_suite(imported("multiple")[0])
    assert all(isinstance(c.expected, ExpectTool) for c in multiple.cases)
    assert any(isinstance(c.tools, list) and len(c.tools) > 1 for c in multiple.cases)
    irrelevance_dir, report = imported("irrelevance")
    assert report.answers is None
    assert {c.expected.kind for c in load_suite(irrelevance_dir).cases} == {"text"}


def _entry(entry_id: str, functions: list[dict[str, Any]], *messages: dict[str, str]) -> dict[str, Any]:
    return {"id": entry_id, "question": [list(messages)], "function": functions}


def _function(name: str, **properties: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"{name} does something",
        "parameters": {"type": "dict", "properties": properties, "required": sorted(properties)[:1]},
    }


USER = {"role": "user", "content": "Please do it."}


def test_skips_are_reported_with_reasons(write_jsonl: Callable[..., Path]) -> None:
    f = _function("tool.run", x={"type": "integer"})
    entries = [
        _entry("simple_python_0", [f], USER),
        {"id": "simple_python_1", "question": [[USER], [USER]], "function": [f]},
        _entry("simple_python_2", [f], {"role": "tool", "content": "42"}, USER),
        _entry("simple_python_3", [_function("j", m={"type": "HashMap"})], USER),
        _entry("simple_python_4", [f], USER),
        _entry("simple_python_5", [f], USER),
        _entry("simple_python_0", [f], USER),
        _entry(
            "simple_python_6", [f], {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "?"}
        ),
        _entry("simple_python_7", [f], USER),
    ]
    answers = [
        {"id": "simple_python_0", "ground_truth": [{"tool.run": {"x": [1]}}]},
        {"id": "simple_python_1", "ground_truth": [{"tool.run": {"x": [1]}}]},
        {"id": "simple_python_2", "ground_truth": [{"tool.run": {"x": [1]}}]},
        {"id": "simple_python_3", "ground_truth": [{"j": {"m": [{}]}}]},
        {"id": "simple_python_5", "ground_truth": [{"other": {"x": [1]}}]},
        {"id": "simple_python_6", "ground_truth": [{"tool.run": {"x": [1]}}]},
        {"id": "simple_python_7", "ground_truth": [{"tool.run": {"x": ["one"]}}]},
        {"id": "simple_python_99", "ground_truth": [{"tool.run": {"x": [1]}}]},
    ]
    questions = write_jsonl("data/BFCL_v4_simple_python.json", entries)
    answer_file = write_jsonl("data/possible_answer/BFCL_v4_simple_python.json", answers)
    report = import_bfcl(questions, questions.parent / "suite")
    assert report.answers == str(answer_file)  # found beside the questions, BFCL's layout
    assert report.entries == len(entries) and report.imported == 1
    assert report.imported + report.skipped == len(entries)
    by_id = {(s.id, s.line): s.reason for s in report.skipped_entries}
    assert by_id == {
        ("simple_python_1", 2): "multi_turn",
        ("simple_python_2", 3): "unsupported_message",
        ("simple_python_3", 4): "unsupported_schema",
        ("simple_python_4", 5): "no_answer",
        ("simple_python_5", 6): "answer_mismatch",
        ("simple_python_0", 7): "duplicate_id",
        ("simple_python_6", 8): "no_prompt",
        ("simple_python_7", 9): "unsupported_answer",
    }
    assert all(s.detail for s in report.skipped_entries)
    assert set(report.skipped_by_reason) <= set(SKIP_REASONS)
    assert sum(report.skipped_by_reason.values()) == report.skipped
    assert report.unmatched_answers == ["simple_python_99"]
    saved = json.loads((questions.parent / "suite" / REPORT_FILE).read_text())
    assert saved["reasons"]["multi_turn"] == SKIP_REASONS["multi_turn"]


def test_history_collisions_and_dict_expansion(write_jsonl: Callable[..., Path], tmp_path: Path) -> None:
    functions = [
        _function("a.b", x={"type": "integer"}),
        _function("a_b", x={"type": "integer"}),
        _function("9lives", x={"type": "integer"}),
        {
            "name": "budget.set",
            "description": "Set a budget",
            "parameters": {
                "type": "dict",
                "properties": {
                    "range": {
                        "type": "dict",
                        "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}},
                        "optional": "true",
                        "default": {},
                    },
                    "rate": {"type": "float", "description": "A rate", "optional": True},
                },
                "required": ["range"],
                "optional": ["rate"],
            },
        },
    ]
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Earlier."}]
    messages += [{"role": "assistant", "content": "Noted."}, {"role": "user", "content": "Set it."}]
    entry = {"id": "parallel_multiple_0", "question": [messages], "function": functions}
    answer = {
        "id": "parallel_multiple_0",
        "ground_truth": [
            {"budget.set": {"range": [{"min": [1, 2], "max": [10, ""]}], "rate": [0.5, 1, ""]}},
            {"a.b": {"x": [3]}},
        ],
    }
    questions = write_jsonl("BFCL_v3_parallel_multiple.json", [entry])
    answers = write_jsonl("answers.jsonl", [answer])
    report = import_bfcl(questions, tmp_path / "suite", answers=answers)
    assert report.imported == 1 and report.dataset_version.startswith("bfcl-v3+")
    case = load_suite(tmp_path / "suite").cases[0]
    assert [m.role for m in case.history] == ["system", "user", "assistant"]
    assert case.prompt == "Set it."
    assert [t.name for t in case.tools] == ["a_b_2", "a_b", "_9lives", "budget_set"]
    assert case.name_map == {"a_b_2": "a.b", "_9lives": "9lives", "budget_set": "budget.set"}
    params = case.tools[3].parameters
    assert params["properties"]["range"]["description"] == "(optional)"
    assert params["properties"]["range"]["default"] == {}
    assert params["properties"]["rate"] == {"type": "number", "description": "A rate (optional)"}
    assert "optional" not in params
    assert isinstance(case.expected, ExpectTools)
    budget, ab = case.expected.calls
    assert ab.name == "a_b_2" and ab.arguments == {"requiredEquals": {"x": 3}}
    assert budget.arguments is not None
    assert budget.arguments["oneOf"]["range"] == [
        {"min": 1, "max": 10},
        {"min": 1},
        {"min": 2, "max": 10},
        {"min": 2},
    ]
    assert budget.arguments["constraints"] == {"rate": {"enum": [0.5, 1]}}
    assert any("optional" in w for w in report.warnings["parallel_multiple_0"])


def test_dataset_version_follows_both_files(write_jsonl: Callable[..., Path], tmp_path: Path) -> None:
    entry = _entry("simple_0", [_function("f", x={"type": "integer"})], USER)
    questions = write_jsonl("BFCL_v4_simple.json", [entry])
    first = write_jsonl("a1.json", [{"id": "simple_0", "ground_truth": [{"f": {"x": [1]}}]}])
    second = write_jsonl("a2.json", [{"id": "simple_0", "ground_truth": [{"f": {"x": [2]}}]}])
    v1 = import_bfcl(questions, tmp_path / "s1", answers=first).dataset_version
    v1_again = import_bfcl(questions, tmp_path / "s1b", answers=first).dataset_version
    v2 = import_bfcl(questions, tmp_path / "s2", answers=second).dataset_version
    assert v1 == v1_again and v1 != v2


def test_bad_inputs_are_errors(write_jsonl: Callable[..., Path], tmp_path: Path) -> None:
    entry = _entry("x_0", [_function("f", x={"type": "integer"})], USER)
    odd_name = write_jsonl("questions.json", [entry])
    with pytest.raises(ConfigError, match="--category"):
        import_bfcl(odd_name, tmp_path / "o1")
    with pytest.raises(ConfigError, match="unknown BFCL category"):
        import_bfcl(odd_name, tmp_path / "o2", category="nonsense")
    with pytest.raises(ConfigError, match="Java"):
        import_bfcl(odd_name, tmp_path / "o3", category="simple_java")
    with pytest.raises(ConfigError, match="--answers"):
        import_bfcl(odd_name, tmp_path / "o4", category="simple")
    report = import_bfcl(odd_name, tmp_path / "o5", category="irrelevance")
    assert report.imported == 1 and report.suite == "bfcl-irrelevance"
    broken = tmp_path / "BFCL_v4_irrelevance.json"
    broken.write_text(json.dumps(entry) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"BFCL_v4_irrelevance.json:2"):
        import_bfcl(broken, tmp_path / "o6")
    only_skips = write_jsonl("BFCL_v4_live_irrelevance.json", [{"id": "a", "question": [[USER], [USER]]}])
    with pytest.raises(InputError, match="no entry could be imported"):
        import_bfcl(only_skips, tmp_path / "o7")
    assert not (tmp_path / "o7").exists()


def test_legal_names_edge_cases() -> None:
    long = "pkg." + "x" * 70
    names = legal_names([long, "pkg_" + "x" * 60, "ok-name", "a b", "a_b", "a.b", "é"])
    assert names["ok-name"] == "ok-name" and names["a_b"] == "a_b"
    assert names["a b"] == "a_b_2" and names["a.b"] == "a_b_3"  # list order decides the suffixes
    assert names["pkg_" + "x" * 60] == "pkg_" + "x" * 60  # already legal: reserved first
    assert names[long] == ("pkg_" + "x" * 70)[:62] + "_2"  # cut to 64, then made unique
    assert names["é"] == "_"
    assert all(TOOL_NAME_PATTERN.fullmatch(name) for name in names.values())
    assert len(set(names.values())) == len(names)
    clash = legal_names(["q" * 64 + ".", "q" * 64 + "!"])
    assert clash["q" * 64 + "!"] == "q" * 62 + "_2"
    with pytest.raises(UnsupportedSchema, match="twice"):
        legal_names(["f", "f"])
