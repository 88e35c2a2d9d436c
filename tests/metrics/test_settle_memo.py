"""Cases settled once per sequence of verdicts and counts give the metrics of cases settled one by one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from records_builder import RunBuilder, call_outcome, error_outcome, text_outcome, verdict

from fcbench.metrics import compute_metrics
from fcbench.metrics.state import SettleMemo


class _Forgetful(dict[Any, Any]):
    """A memo table that remembers nothing."""

    def __setitem__(self, key: Any, value: Any) -> None:
        return None


def _no_memo() -> SettleMemo:
    return SettleMemo(settled=_Forgetful())


def patterned_run(tmp_path: Path) -> Path:
    """Many cases repeating a few verdict patterns: passes with reasons, text and calls under one
    decision, calls that differ (drift), errors, several categories and tags."""
    b = RunBuilder(tmp_path / "run", targets=[("mock", "a"), ("mock", "b")], repeats=3)
    for target in b.targets:
        for i in range(60):
            pattern = i % 6
            for r in range(3):
                if pattern == 0:
                    outcome, v = call_outcome(("f", {"id": i})), verdict(reasons=["lenient"])
                elif pattern == 1:
                    outcome = call_outcome(("f", {"id": i})) if r else text_outcome("no")
                    v = verdict("wrong_tool", reasons=["x", "y"] if r else ["y"])
                elif pattern == 2:
                    outcome, v = call_outcome(("f", {"id": i + r})), verdict()
                elif pattern == 3 and r == 2:
                    outcome, v = error_outcome(), None
                elif pattern == 4:
                    outcome, v = text_outcome("Sure."), verdict("correct_abstention" if r else "missed_call")
                else:
                    outcome, v = call_outcome(("f", {"id": i})), verdict("correct_call", r != 1)
                b.add(
                    f"c{i:02d}",
                    outcome,
                    v,
                    target=target,
                    repeat=r,
                    expected_kind="text" if pattern == 4 else "tool",
                    category=["normal", "boundary"][i % 2],
                    tags=[f"t{i % 3}"],
                )
    return b.write()


def test_memoised_settling_gives_the_same_metrics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = patterned_run(tmp_path)
    memoised = compute_metrics(run)
    with monkeypatch.context() as patch:
        patch.setattr("fcbench.metrics.targets.SettleMemo", _no_memo)
        one_by_one = compute_metrics(run)
    assert memoised == one_by_one
    assert memoised.to_json() == one_by_one.to_json()
    assert any(c.drift for c in memoised.cases) and any(len(c.reasons) > 1 for c in memoised.cases)
