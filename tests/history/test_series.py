"""A series is one target name, mode and suite: pass rates over different cases never compare."""

from __future__ import annotations

from pathlib import Path

from records_builder import RunBuilder, call_outcome, verdict

from fcbench.history import build_history

TARGET = ("mock", "m-steady")


def one_run(root: Path, run_id: str, suite: str, dataset_version: str, passes: int, fails: int) -> None:
    run = RunBuilder(
        root / run_id, run_id=run_id, suite=suite, dataset_version=dataset_version, targets=[TARGET]
    )
    for i in range(passes):
        run.add(f"ok-{i:02d}", call_outcome(("lookup_order", {"order_id": "A"})), verdict(), target=TARGET)
    for i in range(fails):
        run.add(
            f"bad-{i:02d}", call_outcome(("lookup_order", {})), verdict("wrong_tool", False), target=TARGET
        )
    run.write()


def test_runs_of_another_suite_make_their_own_series_and_a_new_dataset_version_is_marked(
    tmp_path: Path,
) -> None:
    one_run(tmp_path, "run-1", "core", "1.0.0", passes=9, fails=1)
    one_run(tmp_path, "run-2", "help-desk", "1", passes=2, fails=8)
    one_run(tmp_path, "run-3", "core", "1.1.0", passes=5, fails=5)
    history, _, _ = build_history(tmp_path)
    by_suite = {line.suite: line for line in history.series}
    assert sorted(by_suite) == ["core", "help-desk"]
    core = by_suite["core"]
    assert [p.run_id for p in core.points] == ["run-1", "run-3"]
    assert core.points[1].dataset_changed_from == "1.0.0" and core.points[1].dataset_version == "1.1.0"
    assert core.points[1].change is not None and round(core.points[1].change, 2) == -0.4
    (only,) = by_suite["help-desk"].points
    assert only.change is None and only.dataset_changed_from is None
