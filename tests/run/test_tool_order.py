"""``--tool-order``: each case is offered its tools in several seeded orders, over real HTTP against
the mock; every record names the order it offered, which is the order on the wire, and the
manifest pins the probe."""

from __future__ import annotations

from collections import defaultdict
from math import factorial
from pathlib import Path
from typing import Any

import pytest
from cli_run import fcbench
from robust_run import records
from tool_order_run import BY_MEANING, BY_POSITION, tool_order_run

from fcbench.config import CommandLine, RunConfig, load_config
from fcbench.errors import ConfigError, FcbenchError
from fcbench.run import prepare
from fcbench.run.tool_order import offered_order, orders_per_case, plausible_tools, tool_orders
from fcbench.store.records import read_manifest
from fcbench.suite.loader import load_suite

SUITE = load_suite("tool-order")
TOOLS = SUITE.tools_for(SUITE.cases[0])
NAMES = [tool.name for tool in TOOLS]


@pytest.fixture(scope="module")
def run_dir(mock_server: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tool_order_run(mock_server, tmp_path_factory.mktemp("tool-order"), "shuffle:4", seed=7)


@pytest.fixture(scope="module")
def rows(run_dir: Path) -> list[dict[str, Any]]:
    return records(run_dir)


def _wire_names(row: dict[str, Any]) -> list[str]:
    """The tool names of the request as sent, in the order sent (either wire shape of the targets)."""
    tools = row["raw"]["request"]["body"]["tools"]
    return [tool["name"] if "name" in tool else tool["function"]["name"] for tool in tools]


def test_the_plan_observes_every_case_in_every_order_and_the_manifest_pins_it(
    run_dir: Path, rows: list[dict[str, Any]]
) -> None:
    manifest = read_manifest(run_dir)
    assert manifest.tool_order == "shuffle:4" and manifest.repeats == 1
    assert manifest.planned == len(SUITE.cases) * 4 * 2 == len(rows)
    orders: dict[tuple[str, str], set[int]] = defaultdict(set)
    for row in rows:
        assert row["tool_order"]["index"] == row["repeat"] % 4
        orders[(row["target"]["model"], row["case_id"])].add(row["tool_order"]["index"])
    assert set(map(frozenset, orders.values())) == {frozenset(range(4))}


def test_each_record_names_the_order_that_went_on_the_wire(rows: list[dict[str, Any]]) -> None:
    seen_first: set[str] = set()
    for row in rows:
        offered = row["tool_order"]["names"]
        assert sorted(offered) == sorted(NAMES)
        assert _wire_names(row) == offered, row["case_id"]
        assert row["tool_order"]["plausible"] == offered  # every tool of the suite is plausible
        seen_first.add(offered[0])
    assert len(seen_first) > 1  # the orders really differ


def test_the_orders_are_the_same_for_both_targets_and_follow_the_seed(rows: list[dict[str, Any]]) -> None:
    by_target: dict[str, dict[tuple[str, int], list[str]]] = defaultdict(dict)
    for row in rows:
        by_target[row["target"]["model"]][(row["case_id"], row["repeat"])] = row["tool_order"]["names"]
    careful, eager = (by_target[label.split(":")[1]] for label in (BY_MEANING, BY_POSITION))
    assert careful == eager
    same_seed, other_seed = tool_orders("shuffle:4", 7), tool_orders("shuffle:4", 8)
    assert same_seed is not None and other_seed is not None
    by_id = {case.id: case for case in SUITE.cases}
    expected = {key: offered_order(same_seed, by_id[key[0]], key[1], TOOLS)[1].names for key in careful}
    assert careful == expected
    other = {key: offered_order(other_seed, by_id[key[0]], key[1], TOOLS)[1].names for key in careful}
    assert other != expected


def test_shuffle_draws_distinct_orders_while_the_tools_allow_them() -> None:
    orders = tool_orders("shuffle:10", 0)
    assert orders is not None
    case = SUITE.cases[0]
    drawn = [tuple(orders.permutation(case.id, i, 4)) for i in range(10)]
    assert len(set(drawn)) == 10 and all(sorted(p) == [0, 1, 2, 3] for p in drawn)
    few = [tuple(orders.permutation(case.id, i, 3)) for i in range(10)]
    assert len(set(few)) == factorial(3) and few[6] == few[0]


def test_reverse_offers_the_suite_order_then_its_reverse() -> None:
    orders = tool_orders("reverse", 3)
    assert orders is not None and orders.count == 2 == orders_per_case("reverse")
    case = SUITE.cases[0]
    assert offered_order(orders, case, 0, TOOLS)[1].names == NAMES
    assert offered_order(orders, case, 1, TOOLS)[1].names == NAMES[::-1]
    assert offered_order(orders, case, 2, TOOLS)[1].index == 0
    assert orders_per_case(None) == 1 and tool_orders(None, 0) is None


def test_plausible_tools_are_the_expected_and_the_confusable_ones() -> None:
    core = {case.id: case for case in load_suite("core").cases}
    assert plausible_tools(core["confuse-search-01"]) == {"search_orders"}  # no confusable set given
    for case in SUITE.cases:
        assert plausible_tools(case) == set(NAMES)


@pytest.mark.parametrize("value", ["shuffle:1", "shuffle:51", "shuffle", "random", "reverse:2", "shuffle:03"])
def test_a_bad_tool_order_is_a_config_error_naming_the_key(value: str) -> None:
    with pytest.raises(ConfigError, match="tool_order") as raised:
        load_config(None, CommandLine(tool_order=value))
    assert value in str(raised.value)


def test_a_bad_tool_order_on_the_command_line_exits_2_without_a_traceback(tmp_path: Path) -> None:
    result = fcbench("run", "--tool-order", "shuffle:1", "--out", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "tool_order" in result.stderr + result.stdout and "Traceback" not in result.stderr


def test_the_config_hash_changes_with_the_order_only_when_one_is_set() -> None:
    plain = RunConfig.model_validate({})
    assert "tool_order" not in plain.model_dump(mode="json")
    hashes = {RunConfig.model_validate({"tool_order": v}).hash() for v in ("reverse", "shuffle:3")}
    assert len(hashes | {plain.hash()}) == 3


def test_a_resume_with_another_tool_order_is_refused(run_dir: Path) -> None:
    again = {"suite": "tool-order", "targets": [BY_MEANING, BY_POSITION], "repeats": 1, "max_retries": 0}
    with pytest.raises(FcbenchError, match="config_hash"):
        prepare(
            RunConfig.model_validate({**again, "tool_order": "reverse", "seed": 7}),
            out_root=run_dir.parent,
            resume_dir=run_dir,
        )
    prepare(
        RunConfig.model_validate({**again, "tool_order": "shuffle:4", "seed": 7}),
        out_root=run_dir.parent,
        resume_dir=run_dir,
    )
