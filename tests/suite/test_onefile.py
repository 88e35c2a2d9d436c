"""One-file suites (YAML or JSON): same checks as the folder form, errors at the failing key's line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

import fcbench.suite.checks
import fcbench.suite.onefile
from fcbench import adapters
from fcbench.adapters.base import RequestOptions, ToolChoice
from fcbench.contract import UserMessage
from fcbench.errors import CaseError
from fcbench.suite.loader import load_suite, resolve_suite
from fcbench.suite.reading import SuiteError


@pytest.fixture(autouse=True, params=["pure-python", "libyaml"])
def yaml_loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs with both YAML loaders: the same values, lines and refusals from each."""
    if request.param == "libyaml":
        assert yaml.__with_libyaml__, "PyYAML here has no libyaml"
        assert fcbench.suite.onefile.FAST_YAML_LOADER is yaml.CSafeLoader
    else:
        monkeypatch.setattr(fcbench.suite.onefile, "FAST_YAML_LOADER", yaml.SafeLoader)


YAML_SUITE = """\
dataset_version: "2"
description: Weather and tickets.
system: |
  You help with the weather.
tools:
  - name: get_weather
    description: Current weather for a city.
    parameters:
      type: object
      properties:
        city: {type: string}
      required: [city]
  - name: create_ticket
    description: Open a support ticket.
    side_effect: write
    parameters:
      type: object
      properties:
        title: {type: string}
      required: [title]
cases:
  - id: weather-01
    prompt: What is the weather in Paris?
    expected: {kind: tool, name: get_weather, arguments: {city: Paris}}
  - id: abstain-01
    prompt: Thanks!
    expected: {kind: text}
fakes:
  get_weather:
    default: {result: {temp_c: 12}}
claims:
  rules:
    - {name: ticket, patterns: ["ticket (?:was )?created"], tools: [create_ticket]}
"""


def _write(tmp_path: Path, text: str, name: str = "helpdesk.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _problems(path: Path) -> list[tuple[int | None, str]]:
    with pytest.raises(CaseError) as info:
        load_suite(path)
    assert isinstance(info.value, SuiteError)
    assert all(p.path.endswith(path.name) for p in info.value.problems)
    return [(p.line, p.message) for p in info.value.problems]


def test_a_yaml_suite_loads_with_every_part(tmp_path: Path) -> None:
    suite = load_suite(_write(tmp_path, YAML_SUITE))
    assert suite.name == "helpdesk"  # the file name without its suffix
    assert suite.dataset_version == "2" and suite.info.description == "Weather and tickets."
    assert suite.system == "You help with the weather."
    assert [t.name for t in suite.tool_sets["core"]] == ["get_weather", "create_ticket"]
    assert suite.tool_sets["core"][1].side_effect == "write"
    assert [c.id for c in suite.cases] == ["weather-01", "abstain-01"]
    assert suite.fakes["get_weather"].default is not None
    assert suite.claims.rules[0].name == "ticket"
    assert suite.tool_imports == []  # canonical tools are not an import


def test_the_same_suite_as_json_loads_identically(tmp_path: Path) -> None:
    import yaml

    data = yaml.safe_load(YAML_SUITE)
    from_yaml = load_suite(_write(tmp_path, YAML_SUITE))
    from_json = load_suite(_write(tmp_path, json.dumps(data, indent=2), "helpdesk.json"))
    assert from_json.cases == from_yaml.cases
    assert from_json.tool_sets == from_yaml.tool_sets
    assert from_json.system == from_yaml.system


def test_named_tool_sets_and_a_given_name(tmp_path: Path) -> None:
    text = (
        "name: mine\n"
        "dataset_version: '1'\n"
        "tools:\n"
        "  core:\n"
        "    - {name: get_weather, parameters: {type: object, properties: {city: {type: string}}}}\n"
        "  extra:\n"
        "    - {name: ping, description: Ping.}\n"
        "cases:\n"
        "  - {id: a, prompt: Ping, tools: extra, expected: {kind: tool, name: ping}}\n"
    )
    suite = load_suite(_write(tmp_path, text))
    assert suite.name == "mine"
    assert sorted(suite.tool_sets) == ["core", "extra"]
    assert suite.system == ""


def test_dataset_hash_follows_content_not_line_endings(tmp_path: Path) -> None:
    first = load_suite(_write(tmp_path, YAML_SUITE)).dataset_hash
    crlf = tmp_path / "crlf" / "helpdesk.yaml"
    crlf.parent.mkdir()
    crlf.write_bytes(b"\xef\xbb\xbf" + YAML_SUITE.encode().replace(b"\n", b"\r\n"))
    assert load_suite(crlf).dataset_hash == first
    changed = _write(tmp_path, YAML_SUITE.replace("Thanks!", "Thank you!"))
    assert load_suite(changed).dataset_hash != first


def test_resolve_suite_accepts_files_and_init_folders(tmp_path: Path) -> None:
    path = _write(tmp_path, YAML_SUITE, "suite.yaml")
    assert resolve_suite(str(path)) == path
    assert resolve_suite(tmp_path) == path  # a folder holding suite.yaml and no suite.json
    with pytest.raises(CaseError, match="one .yaml, .yml or .json file"):
        resolve_suite(_write(tmp_path, "x", "notes.txt"))


def test_errors_name_the_line_of_the_failing_key_in_yaml(tmp_path: Path) -> None:
    text = YAML_SUITE.replace("expected: {kind: text}", "expected: {kind: txt}").replace(
        "arguments: {city: Paris}", "arguments: {town: Paris}"
    )
    text = text.replace("  get_weather:\n    default", "  get_wether:\n    default")
    text = text.replace("dataset_version", "colour: blue\ndataset_version")
    problems = _problems(_write(tmp_path, text))
    lines = text.split("\n")

    def line(fragment: str) -> int:
        return next(i for i, t in enumerate(lines, start=1) if fragment in t)

    assert (1, "colour: unknown key") in problems
    assert any(n == line("kind: txt") and m.startswith("cases[1].expected.kind") for n, m in problems), (
        problems
    )
    assert any(n == line("town: Paris") and m.startswith("cases[0].expected.arguments") for n, m in problems)
    assert (line("get_wether:"), "fakes.get_wether: no tool of this name in any tool set") in problems


def test_errors_name_the_line_in_json(tmp_path: Path) -> None:
    data = yaml.safe_load(YAML_SUITE)
    data["cases"][1]["expected"]["kind"] = "txt"
    data["tools"][0]["parameters"]["properties"]["city"]["type"] = "strin"
    text = json.dumps(data, indent=2)
    problems = _problems(_write(tmp_path, text, "s.json"))
    lines = text.split("\n")
    assert any(
        n == lines.index('        "kind": "txt"') + 1 and "cases[1].expected.kind" in m for n, m in problems
    )
    assert any(
        n == next(i for i, t in enumerate(lines, 1) if '"strin"' in t) and "tools[0].parameters" in m
        for n, m in problems
    )


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("dataset_version: '1'\ndataset_version: '2'\n", 2, "duplicate key 'dataset_version'"),
        ("dataset_version: '1'\ncases:\n  - {id: a, on: 1}\n", 3, "key 'on' is not a string"),
        ("dataset_version: '1'\ncases: [\n", 3, "invalid YAML"),
        ("- a\n- b\n", 1, "must be a mapping"),
    ],
)
def test_yaml_that_is_not_a_plain_tree_is_refused(
    tmp_path: Path, text: str, line: int, fragment: str
) -> None:
    problems = _problems(_write(tmp_path, text))
    assert any(n == line and fragment in m for n, m in problems), problems


def test_an_alias_bomb_is_refused(tmp_path: Path) -> None:
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 8)]
    problems = _problems(_write(tmp_path, "\n".join(levels) + "\n"))
    assert any("aliases are expanded" in m for _, m in problems)


def test_missing_tools_and_cases_are_reported(tmp_path: Path) -> None:
    problems = _problems(_write(tmp_path, "dataset_version: '1'\n"))
    messages = [m for _, m in problems]
    assert any(m.startswith("tools: required key is missing") for m in messages)
    assert "cases: required key is missing" in messages


def test_duplicate_case_ids_name_both_places(tmp_path: Path) -> None:
    text = YAML_SUITE.replace("id: abstain-01", "id: weather-01")
    problems = _problems(_write(tmp_path, text))
    first = YAML_SUITE.split("\n").index("  - id: weather-01") + 1
    assert any(f"duplicate id 'weather-01' (first used on cases[0] (line {first}))" in m for _, m in problems)


# ---- no system prompt


def test_no_system_prompt_means_no_system_message_in_any_dialect(tmp_path: Path) -> None:
    suite = load_suite(_write(tmp_path, YAML_SUITE.replace("system: |\n  You help with the weather.\n", "")))
    assert suite.system == ""
    tools = suite.tools_for(suite.cases[0])
    bodies: dict[str, Any] = {}
    for dialect in adapters.dialects():
        built = adapters.get(dialect).build_request(
            suite.system, [UserMessage(content="hi")], tools, ToolChoice(), RequestOptions(model="m")
        )
        bodies[dialect] = built.body
    expected = {"anthropic-messages", "bedrock-converse", "gemini", "openai-chat", "openai-responses"}
    assert expected <= set(bodies)
    assert [m["role"] for m in bodies["openai-chat"]["messages"]] == ["user"]
    assert "instructions" not in bodies["openai-responses"]
    assert all(item.get("role") != "system" for item in bodies["openai-responses"]["input"])
    assert "system" not in bodies["anthropic-messages"]
    assert "systemInstruction" not in bodies["gemini"]
    assert "system" not in bodies["bedrock-converse"]
    with_system = adapters.get("openai-chat").build_request(
        "Be brief.", [UserMessage(content="hi")], tools, ToolChoice(), RequestOptions(model="m")
    )
    assert with_system.body["messages"][0] == {"role": "system", "content": "Be brief."}


# ---- what a clean load of a large suite does not do twice


def _json_suite(tmp_path: Path, cases: int, duplicate: bool = False) -> Path:
    doc = yaml.safe_load(YAML_SUITE)
    doc["cases"] = [
        {"id": f"w{i:04d}", "prompt": f"Weather {i}?", "expected": doc["cases"][0]["expected"]}
        for i in range(cases)
    ]
    if duplicate:
        doc["cases"][-1]["id"] = "w0000"
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc, indent=2))
    return path


def test_each_tool_schema_is_compiled_once_however_many_cases_name_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled: list[object] = []
    real = fcbench.suite.checks.BoundedValidator

    def counting(schema: Any, **kwargs: Any) -> Any:
        compiled.append(schema)
        return real(schema, **kwargs)

    monkeypatch.setattr(fcbench.suite.checks, "BoundedValidator", counting)
    suite = load_suite(str(_json_suite(tmp_path, 200)))
    assert len(suite.cases) == 200
    assert len(compiled) == 1  # get_weather, named by all 200 cases


def test_a_clean_json_suite_is_not_walked_for_lines_but_a_problem_still_names_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    walks: list[int] = []
    real = fcbench.suite.onefile.json_key_lines

    def counting(text: str) -> Any:
        walks.append(len(text))
        return real(text)

    monkeypatch.setattr(fcbench.suite.onefile, "json_key_lines", counting)
    assert len(load_suite(str(_json_suite(tmp_path, 50))).cases) == 50
    assert walks == []
    broken = _json_suite(tmp_path, 50, duplicate=True)
    with pytest.raises(SuiteError) as caught:
        load_suite(str(broken))
    first = broken.read_text().split("\n").index('      "id": "w0000",')  # the line before: its "{"
    assert f"duplicate id 'w0000' (first used on cases[0] (line {first}))" in str(caught.value)
    assert len(walks) == 1
