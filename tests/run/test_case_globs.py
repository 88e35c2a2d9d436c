"""``--case`` takes ids or shell-style globs; a value naming no case is an error that suggests ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import fcbench

from fcbench.errors import ConfigError
from fcbench.run.plan import select_cases
from fcbench.suite.loader import load_suite


@pytest.fixture(scope="module")
def cases() -> list:
    return load_suite("core").cases


def ids(selected: list) -> list[str]:
    return [case.id for case in selected]


def test_a_glob_selects_every_matching_case_in_suite_order(cases: list) -> None:
    chosen = ids(select_cases(cases, [], [], ["select-*"]))
    assert chosen == [case.id for case in cases if case.id.startswith("select-")]
    assert len(chosen) > 1
    assert ids(select_cases(cases, [], [], ["types-0?", "abstain-01"])) == [
        case.id
        for case in cases
        if case.id == "abstain-01" or (case.id.startswith("types-0") and len(case.id) == 8)
    ]


def test_an_id_is_not_read_as_a_glob_and_globs_are_case_sensitive(cases: list) -> None:
    with pytest.raises(ConfigError, match="no case matches SELECT-"):
        select_cases(cases, [], [], ["SELECT-*"])


def test_an_unknown_id_suggests_the_closest(cases: list) -> None:
    with pytest.raises(ConfigError, match=r"no such case: types-1 \(did you mean 'types-01'"):
        select_cases(cases, [], [], ["types-1"])


def test_the_command_line_takes_a_quoted_glob() -> None:
    done = fcbench("run", "--case", "select-*", "--dry-run", "-t", "sim:sim-careful", "--repeats", "1")
    assert done.returncode == 0, done.stderr
    selected = sum(1 for case in load_suite("core").cases if case.id.startswith("select-"))
    assert f"plan: {selected} observations of {selected} cases" in done.stdout


def test_exclude_case_leaves_out_ids_and_globs_and_names_an_unknown_one(cases: list) -> None:
    kept = ids(select_cases(cases, [], [], ["select-*"], exclude_ids=["select-lookup-*", "select-quote-01"]))
    assert kept == [
        case.id
        for case in cases
        if case.id.startswith("select-")
        and not case.id.startswith("select-lookup-")
        and case.id != "select-quote-01"
    ]
    assert kept
    with pytest.raises(ConfigError, match=r"no such case: select-quote-1 \(did you mean") as raised:
        select_cases(cases, [], [], [], exclude_ids=["select-quote-1"])
    assert raised.value.key == "--exclude-case"


def test_the_command_line_excludes_cases_and_pins_them(tmp_path: Path) -> None:
    done = fcbench(
        "run", "--case", "select-*", "--exclude-case", "select-lookup-*", "-t", "sim:sim-careful",
        "--repeats", "1", "--out", "runs", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    selected = sum(
        1 for case in load_suite("core").cases
        if case.id.startswith("select-") and not case.id.startswith("select-lookup-")
    )  # fmt: skip
    run_dir = next((tmp_path / "runs").iterdir())
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["filters"]["exclude_cases"] == ["select-lookup-*"]
    assert manifest["planned"] == selected
