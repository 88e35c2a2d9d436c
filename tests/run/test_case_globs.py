"""``--case`` takes ids or shell-style globs; a value naming no case is an error that suggests ids."""

from __future__ import annotations

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
