"""``fcbench schema config|suite`` as a user runs it: the schemas check ``init``'s scaffold as fcbench
reads it, reject a misspelt key, and ``init`` names them on the first line of each file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from cli_run import fcbench

from fcbench.config import load_config


@pytest.fixture(scope="module")
def scaffold(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("init") / "tools"
    made = fcbench("init", str(folder))
    assert made.returncode == 0, made.stderr
    return folder


@pytest.fixture(scope="module")
def schemas() -> dict[str, dict[str, Any]]:
    found = {}
    for name in ("config", "suite"):
        printed = fcbench("schema", name)
        assert printed.returncode == 0, printed.stderr
        found[name] = json.loads(printed.stdout)
        jsonschema.Draft202012Validator.check_schema(found[name])
    return found


def problems(schema: dict[str, Any], document: Any) -> list[str]:
    return [error.message for error in jsonschema.Draft202012Validator(schema).iter_errors(document)]


@pytest.mark.parametrize(
    ("name", "file", "key", "typo"),
    [("config", "fcbench.yaml", "repeats", "repeat"), ("suite", "suite.yaml", "description", "descripton")],
)
def test_the_schema_accepts_the_scaffold_and_rejects_a_misspelt_key(
    schemas: dict[str, dict[str, Any]], scaffold: Path, name: str, file: str, key: str, typo: str
) -> None:
    document = yaml.safe_load((scaffold / file).read_text(encoding="utf-8"))
    assert problems(schemas[name], document) == []
    document[typo] = document.pop(key)
    assert problems(schemas[name], document) == [
        f"Additional properties are not allowed ('{typo}' was unexpected)"
    ]


def test_a_misspelt_key_inside_a_case_is_rejected_too(
    schemas: dict[str, dict[str, Any]], scaffold: Path
) -> None:
    document = yaml.safe_load((scaffold / "suite.yaml").read_text(encoding="utf-8"))
    document["cases"][0]["expectd"] = document["cases"][0].pop("expected")
    found = problems(schemas["suite"], document)
    assert any("'expectd' was unexpected" in message for message in found), found


def test_a_key_is_offered_under_its_alias_and_its_name(schemas: dict[str, dict[str, Any]]) -> None:
    properties = schemas["config"]["properties"]
    assert properties["timeoutMs"]["type"] == properties["timeout_ms"]["type"] == "integer"
    for spelling in ({"timeoutMs": 500}, {"timeout_ms": 500}):
        assert problems(schemas["config"], spelling) == []
        assert load_config(None, base=spelling).timeout_ms == 500


def test_wrong_types_the_config_refuses_the_schema_refuses(schemas: dict[str, dict[str, Any]]) -> None:
    assert problems(schemas["config"], {"repeats": "3"}) == ["'3' is not of type 'integer'"]
    assert problems(schemas["config"], {"repeats": 0}) == ["0 is less than the minimum of 1"]


def test_init_names_each_schema_on_the_first_line_of_its_file(scaffold: Path) -> None:
    for file, schema in (("fcbench.yaml", "fcbench.schema.json"), ("suite.yaml", "suite.schema.json")):
        first = (scaffold / file).read_text(encoding="utf-8").splitlines()[0]
        assert first == f"# yaml-language-server: $schema={schema}"
        assert json.loads((scaffold / schema).read_text(encoding="utf-8"))["$schema"].endswith(
            "2020-12/schema"
        )


def test_the_scaffold_with_its_schema_lines_still_validates_and_runs(scaffold: Path) -> None:
    checked = fcbench("cases", "validate", str(scaffold / "suite.yaml"))
    assert checked.returncode == 0, checked.stderr


def test_schema_writes_a_file_and_an_unknown_name_suggests_the_closest(tmp_path: Path) -> None:
    written = fcbench("schema", "suite", "--output", str(tmp_path / "s.json"))
    assert written.returncode == 0 and written.stdout == ""
    assert json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))["title"] == "fcbench one-file suite"
    wrong = fcbench("schema", "confg")
    assert wrong.returncode == 2
    assert "unknown schema 'confg' (did you mean 'config'?)" in wrong.stderr
    assert "Traceback" not in wrong.stderr
