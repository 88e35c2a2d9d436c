"""Tool-order figures: selection consistency across orders and position bias against chance, from a
real run against the simulated models (one picks by meaning, one by position) and from small
hand-built runs that pin down each definition."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from records_builder import RunBuilder, call_outcome, error_outcome, text_outcome, verdict
from tool_order_run import BY_MEANING, BY_POSITION, tool_order_run

from fcbench.metrics import compute_metrics
from fcbench.metrics.tool_order import ToolOrderTarget
from fcbench.store.records import OfferedOrder, read_manifest, write_manifest

CASES = 10
"""Cases of the built-in ``tool-order`` suite."""


@pytest.fixture(scope="module")
def figures(mock_server: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, ToolOrderTarget]:
    run_dir = tool_order_run(mock_server, tmp_path_factory.mktemp("tool-order"), "shuffle:4")
    probe = compute_metrics(run_dir).tool_order
    assert probe is not None and probe.spec == "shuffle:4"
    return {row.target: row for row in probe.targets}


def test_a_model_that_picks_by_meaning_is_consistent_and_shows_no_position_bias(
    figures: dict[str, ToolOrderTarget],
) -> None:
    careful = figures[BY_MEANING]
    assert (careful.consistency.n, careful.consistency.d) == (CASES, CASES) and careful.inconsistent == []
    assert careful.first_offered.d == 4 * CASES and careful.chance == 0.25
    assert careful.first_offered.low is not None and careful.first_offered.low <= careful.chance
    assert not careful.biased
    assert sorted(careful.passed_by_order) == [0, 1, 2, 3]


def test_a_model_that_picks_by_position_changes_its_choice_and_is_flagged_biased(
    figures: dict[str, ToolOrderTarget],
) -> None:
    careful, eager = figures[BY_MEANING], figures[BY_POSITION]
    assert eager.consistency.d == CASES and eager.consistency.n < CASES // 2
    assert len(eager.inconsistent) == CASES - eager.consistency.n
    assert eager.chance == 0.25 and eager.first_offered.rate is not None
    assert careful.first_offered.rate is not None
    assert eager.first_offered.rate >= 0.6 > careful.first_offered.rate
    assert eager.biased
    pass_rates = [rate.rate or 0.0 for rate in eager.passed_by_order.values()]
    assert max(pass_rates) > min(pass_rates)  # which tool comes first decides whether it passes


def _offered(index: int, names: list[str], plausible: list[str] | None = None) -> OfferedOrder:
    return OfferedOrder(index=index, names=names, plausible=names if plausible is None else plausible)


def _hand_built(tmp_path: Path) -> Path:
    build = RunBuilder(tmp_path / "run", repeats=1)
    picks: list[tuple[str, int, dict[str, Any], OfferedOrder | None]] = [
        ("same", 0, call_outcome(("x", {})), _offered(0, ["x", "y"])),
        ("same", 1, call_outcome(("x", {})), _offered(1, ["y", "x"])),
        ("moved", 0, call_outcome(("x", {})), _offered(0, ["x", "y"])),
        ("moved", 1, text_outcome("no"), _offered(1, ["y", "x"])),
        ("errored", 0, call_outcome(("x", {})), _offered(0, ["x", "y"])),
        ("errored", 1, error_outcome(), _offered(1, ["y", "x"])),
        ("single", 0, call_outcome(("x", {})), _offered(0, ["x", "y"], ["x"])),
        ("single", 1, call_outcome(("x", {})), _offered(1, ["y", "x"], ["x"])),
        ("old", 0, call_outcome(("x", {})), None),
    ]
    for case_id, repeat, outcome, _ in picks:
        decision = "correct_call" if outcome["kind"] == "tool_calls" else "missed_call"
        build.add(
            case_id,
            outcome,
            None if outcome["kind"] == "provider_error" else verdict(decision),
            repeat=repeat,
        )
    build.records = [
        record.model_copy(update={"tool_order": order})
        for record, (_, _, _, order) in zip(build.records, picks, strict=True)
    ]
    run_dir = build.write()
    write_manifest(run_dir, read_manifest(run_dir).model_copy(update={"tool_order": "reverse"}))
    return run_dir


def test_each_definition_on_a_hand_built_run(tmp_path: Path) -> None:
    probe = compute_metrics(_hand_built(tmp_path)).tool_order
    assert probe is not None and probe.spec == "reverse"
    (row,) = probe.targets
    # same: x in both orders; single: x both times; moved: x then text; errored: one order only
    assert (row.consistency.n, row.consistency.d) == (2, 3) and row.inconsistent == ["moved"]
    # counted: same (x first in order 0, not in order 1), moved order 0 (x first), errored order 0
    # (x first); single offers one plausible tool, the text reply called none
    assert (row.first_offered.n, row.first_offered.d) == (3, 4) and row.chance == 0.5
    assert not row.biased  # 3 of 4 is well within chance at this size
    assert {i: (r.n, r.d) for i, r in row.passed_by_order.items()} == {0: (4, 4), 1: (2, 3)}


def test_a_run_without_tool_order_has_no_tool_order_figures(tmp_path: Path) -> None:
    run_dir = RunBuilder(tmp_path / "plain").add("a", call_outcome(("x", {})), verdict()).write()
    metrics = compute_metrics(run_dir)
    assert metrics.tool_order is None and "tool_order" not in metrics.to_json()
