"""Metrics of several runs in worker processes equal the metrics read one after the other.

Two real runs on the embedded mock (different seeds, so their metrics differ), read with the
parallel threshold lowered so each gets its own process; a damaged run raises its own error.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from robust_run import run_in_process

from fcbench.errors import RunStateError
from fcbench.metrics import compute_metrics, compute_metrics_of
from fcbench.metrics.fast import parallel as metrics_parallel
from fcbench.metrics.fast.parallel import worker_count
from fcbench.store.records import RECORDS_FILE


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory, mock_server: str) -> list[Path]:
    made = []
    for seed in (3, 4):
        out = tmp_path_factory.mktemp(f"seed{seed}")
        config = {
            "targets": ["sim:sim-flaky", "sim-anthropic:sim-sloppy"],
            "repeats": 2,
            "seed": seed,
            "categories": ["normal"],
        }
        made.append(run_in_process(config, out, mock_server).run_dir)
    return made


def test_workers_give_what_one_process_gives(two_runs: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(metrics_parallel, "PARALLEL_MIN_BYTES", 0)
    assert worker_count(two_runs, cpus=2) == 2
    alone = [compute_metrics(d).model_dump(mode="json") for d in two_runs]
    assert alone[0] != alone[1]
    together = [m.model_dump(mode="json") for m in compute_metrics_of(two_runs, modes=["selection"])]
    assert together == [compute_metrics(d, modes=["selection"]).model_dump(mode="json") for d in two_runs]
    assert together == alone


def test_small_runs_or_one_core_are_read_in_this_process(two_runs: list[Path]) -> None:
    assert worker_count(two_runs, cpus=8) == 1  # a few kilobytes: a worker would start slower
    assert worker_count(two_runs[:1], cpus=8) == 1
    assert worker_count(two_runs, cpus=1) == 1


def test_a_damaged_run_raises_its_own_error(
    two_runs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(metrics_parallel, "PARALLEL_MIN_BYTES", 0)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text((two_runs[0] / "manifest.json").read_text())
    (broken / RECORDS_FILE).write_text('{"run_id": "x", "seq": 0}\n' * 3)
    with pytest.raises(RunStateError) as raised:
        compute_metrics_of([two_runs[0], broken])
    with pytest.raises(RunStateError) as alone:
        compute_metrics(broken)
    assert str(raised.value) == str(alone.value)


def test_the_largest_run_is_read_here_and_the_order_kept(
    two_runs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(metrics_parallel, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(metrics_parallel, "usable_cpus", lambda: 2)
    alone = [compute_metrics(d).model_dump(mode="json") for d in two_runs]
    for order in (two_runs, two_runs[::-1]):
        together = [m.model_dump(mode="json") for m in compute_metrics_of(order)]
        assert together == [alone[two_runs.index(d)] for d in order]


def test_a_damaged_largest_run_raises_its_own_error_here(
    two_runs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(metrics_parallel, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(metrics_parallel, "usable_cpus", lambda: 2)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text((two_runs[0] / "manifest.json").read_text())
    size = (two_runs[0] / RECORDS_FILE).stat().st_size
    line = '{"run_id": "x", "seq": 0}\n'
    (broken / RECORDS_FILE).write_text(line * (size // len(line) + 1))
    with pytest.raises(RunStateError) as raised:
        compute_metrics_of([two_runs[0], broken])
    with pytest.raises(RunStateError) as alone:
        compute_metrics(broken)
    assert str(raised.value) == str(alone.value)
