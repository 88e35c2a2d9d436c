"""The regression gate: deltas, significance, flips, dataset checks and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from sample_runs import mixed_run, pass_fail_run
from typer.testing import CliRunner

from fcbench.cli import compare as compare_cli
from fcbench.errors import RunStateError
from fcbench.metrics import compute_metrics
from fcbench.metrics.cases import CaseSummaries
from fcbench.report.compare import Comparison, compare_runs
from fcbench.report.compare_render import render_compare_markdown


def compare_dirs(base: Path, new: Path, **kwargs: Any) -> Comparison:
    return compare_runs(compute_metrics(base), compute_metrics(new), **kwargs)


def test_identical_runs_do_not_regress(tmp_path: Path) -> None:
    base = mixed_run(tmp_path / "base")
    new = mixed_run(tmp_path / "new")
    c = compare_dirs(base, new)
    assert not c.regression
    assert c.verdict.startswith("no regression")
    assert c.pass_to_fail == [] and c.fail_to_pass == []
    assert len(c.targets) == 2
    for t in c.targets:
        pass_rate = next(d for d in t.deltas if d.metric == "pass_rate")
        assert pass_rate.delta_points == 0.0
        assert pass_rate.p_value == pytest.approx(1.0)


def test_a_large_drop_regresses_and_lists_flips(tmp_path: Path) -> None:
    base = pass_fail_run(tmp_path / "base", cases=20, failing={0}, run_id="base")
    new = pass_fail_run(tmp_path / "new", cases=20, failing={0, 1, 2, 3}, run_id="new")
    c = compare_dirs(base, new, max_drop=5.0)
    assert c.regression
    assert c.verdict.startswith(
        "REGRESSION: mock:sim-a [selection]: pass rate 95.0% (19/20) -> 80.0% (16/20)"
    )
    assert [f.case_id for f in c.pass_to_fail] == ["case-001", "case-002", "case-003"]
    assert c.fail_to_pass == []
    md = render_compare_markdown(c)
    assert md.rstrip().splitlines()[-1] == c.verdict
    assert "case-002" in md


def test_a_small_drop_within_the_limit_passes(tmp_path: Path) -> None:
    base = pass_fail_run(tmp_path / "base", cases=100, failing=set(), run_id="base")
    new = pass_fail_run(tmp_path / "new", cases=100, failing={7}, run_id="new")
    c = compare_dirs(base, new, max_drop=5.0)
    assert not c.regression
    assert [f.case_id for f in c.pass_to_fail] == ["case-007"]
    assert "largest pass-rate drop 1.0 points" in c.verdict


def test_a_significant_drop_below_the_limit_still_regresses(tmp_path: Path) -> None:
    base = pass_fail_run(tmp_path / "base", cases=400, failing=set(), run_id="base")
    new = pass_fail_run(tmp_path / "new", cases=400, failing=set(range(16)), run_id="new")
    c = compare_dirs(base, new, max_drop=5.0)  # a 4-point drop, but 0/400 -> 16/400 failures
    assert c.regression
    assert "dropped significantly" in c.verdict
    target = c.targets[0]
    pass_rate = next(d for d in target.deltas if d.metric == "pass_rate")
    assert pass_rate.delta_points == pytest.approx(-4.0)
    assert pass_rate.p_value is not None and pass_rate.p_value < 0.001


def test_improvement_is_not_a_regression(tmp_path: Path) -> None:
    base = pass_fail_run(tmp_path / "base", cases=20, failing={0, 1, 2, 3, 4}, run_id="base")
    new = pass_fail_run(tmp_path / "new", cases=20, failing=set(), run_id="new")
    c = compare_dirs(base, new)
    assert not c.regression
    assert len(c.fail_to_pass) == 5


def test_dataset_change_is_refused_unless_allowed(tmp_path: Path) -> None:
    base = pass_fail_run(tmp_path / "base", cases=3, failing=set(), run_id="base")
    new = pass_fail_run(tmp_path / "new", cases=3, failing=set(), run_id="new", dataset_version="1.1.0")
    with pytest.raises(RunStateError, match="dataset versions differ"):
        compare_dirs(base, new)
    c = compare_dirs(base, new, allow_dataset_change=True)
    assert not c.regression
    assert any("dataset versions differ" in w for w in c.warnings)


def cli_app() -> typer.Typer:
    app = typer.Typer()
    compare_cli.register(app)

    @app.command("noop", hidden=True)
    def _noop() -> None:  # a second command keeps typer from collapsing the app into one command
        """Placeholder."""

    return app


def test_compare_command_exit_codes(tmp_path: Path) -> None:
    base = pass_fail_run(tmp_path / "base", cases=20, failing=set(), run_id="base")
    same = pass_fail_run(tmp_path / "same", cases=20, failing=set(), run_id="same")
    worse = pass_fail_run(tmp_path / "worse", cases=20, failing={1, 2, 3}, run_id="worse")
    runner = CliRunner()
    ok = runner.invoke(cli_app(), ["compare", str(base), str(same)])
    assert ok.exit_code == 0, ok.output
    assert ok.stdout.rstrip().splitlines()[-1].startswith("no regression")
    bad = runner.invoke(cli_app(), ["compare", str(base), str(worse), "--format", "json"])
    assert bad.exit_code == 1
    data = json.loads(bad.stdout)
    assert data["regression"] is True and len(data["pass_to_fail"]) == 3
    lenient = runner.invoke(
        cli_app(), ["compare", str(base), str(worse), "--max-drop", "20", "--alpha", "0.01"]
    )
    assert lenient.exit_code == 0, lenient.output
    changed = pass_fail_run(tmp_path / "v2", cases=20, failing=set(), run_id="v2", dataset_version="2.0.0")
    refused = runner.invoke(cli_app(), ["compare", str(base), str(changed)])
    assert isinstance(refused.exception, RunStateError)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fcbench", "compare", *args], capture_output=True, text=True, timeout=120
    )


def test_compare_subprocess(tmp_path: Path) -> None:
    base = pass_fail_run(tmp_path / "base", cases=20, failing=set(), run_id="base")
    same = pass_fail_run(tmp_path / "same", cases=20, failing=set(), run_id="same")
    worse = pass_fail_run(tmp_path / "worse", cases=20, failing={1, 2, 3}, run_id="worse")
    changed = pass_fail_run(tmp_path / "v2", cases=20, failing=set(), run_id="v2", dataset_version="2.0.0")
    ok = run_cli(str(base), str(same))
    assert ok.returncode == 0, ok.stderr
    assert "no regression" in ok.stdout
    bad = run_cli(str(base), str(worse))
    assert bad.returncode == 1, bad.stderr
    assert "REGRESSION" in bad.stdout
    refused = run_cli(str(base), str(changed))
    assert refused.returncode == 2
    assert "dataset versions differ" in refused.stderr
    allowed = run_cli(str(base), str(changed), "--allow-dataset-change")
    assert allowed.returncode == 0, allowed.stderr


def _reference_flips(base: Any, new: Any, comparison: Comparison) -> tuple[list[Any], list[Any]]:
    """The flips as the built summaries give them, by (target, mode, case id), the last one winning."""
    before = {(c.target, c.mode, c.case_id): c.passed for c in base.cases}
    after: dict[tuple[str, str], dict[str, Any]] = {}
    for c in new.cases:
        after.setdefault((c.target, c.mode), {})[c.case_id] = c.passed
    down, up = [], []
    for t in comparison.targets:
        for case_id, now in after.get((t.target, t.mode), {}).items():
            was = before.get((t.base_target, t.mode, case_id))
            if was is None or not was.d or not now.d or (was.n == was.d) == (now.n == now.d):
                continue
            failing = now if was.n == was.d else was
            flip = (t.title, t.base_target, t.target, t.mode, case_id, was, now, failing.n == 0)
            (down if was.n == was.d else up).append(flip)
    return down, up


def test_flips_are_those_of_the_built_summaries(tmp_path: Path) -> None:
    base = compute_metrics(pass_fail_run(tmp_path / "b", cases=30, failing={1, 2, 5}, run_id="b", repeats=3))
    new = compute_metrics(pass_fail_run(tmp_path / "n", cases=30, failing={2, 3, 4}, run_id="n", repeats=3))
    for b, n in ((base, new), (new, base)):
        c = compare_runs(b, n, max_drop=100.0)
        assert c.pass_to_fail or c.fail_to_pass
        shown = [
            [
                (f.title, f.base_target, f.target, f.mode, f.case_id, f.base, f.new, f.kind == "full")
                for f in flips
            ]
            for flips in (c.pass_to_fail, c.fail_to_pass)
        ]
        assert tuple(shown) == _reference_flips(b, n, c)


def test_flips_of_summaries_with_repeated_keys(tmp_path: Path) -> None:
    """Metrics read back from JSON may repeat a (target, mode, case id) or split a target's rows:
    the last row of a key counts, in the order its key first came."""
    base = compute_metrics(pass_fail_run(tmp_path / "b", cases=6, failing=set(), run_id="b", repeats=2))
    new = compute_metrics(pass_fail_run(tmp_path / "n", cases=6, failing={0, 1, 2}, run_id="n", repeats=2))
    rows = list(new.cases)
    shuffled = [*rows[3:], *rows[:3], rows[4].model_copy(update={"passed": rows[0].passed})]
    odd_new = new.model_copy(update={"cases": CaseSummaries.of_summaries(shuffled)})
    odd_base = base.model_copy(update={"cases": CaseSummaries.of_summaries([*base.cases, base.cases[1]])})
    c = compare_runs(odd_base, odd_new)
    shown = [
        [
            (f.title, f.base_target, f.target, f.mode, f.case_id, f.base, f.new, f.kind == "full")
            for f in flips
        ]
        for flips in (c.pass_to_fail, c.fail_to_pass)
    ]
    assert tuple(shown) == _reference_flips(odd_base, odd_new, c)
    assert [f.case_id for f in c.pass_to_fail] == ["case-004", "case-000", "case-001", "case-002"]


def test_flips_when_the_runs_hold_other_cases(tmp_path: Path) -> None:
    """Runs of suites with other cases pair the cases both have (the rows no longer pair by position)."""
    base = compute_metrics(pass_fail_run(tmp_path / "b", cases=24, failing={1, 2, 5}, run_id="b", repeats=3))
    new = compute_metrics(
        pass_fail_run(tmp_path / "n", cases=30, failing={2, 3, 4, 27}, run_id="n", repeats=3)
    )
    for b, n in ((base, new), (new, base)):
        c = compare_runs(b, n, max_drop=100.0)
        shown = [
            [
                (f.title, f.base_target, f.target, f.mode, f.case_id, f.base, f.new, f.kind == "full")
                for f in flips
            ]
            for flips in (c.pass_to_fail, c.fail_to_pass)
        ]
        assert shown[0] and shown[1]
        assert tuple(shown) == _reference_flips(b, n, c)


def test_the_change_table_gives_intervals_and_marks_significance(tmp_path: Path) -> None:
    from fcbench.report.compare_render import render_compare_json

    base = pass_fail_run(tmp_path / "base", cases=400, failing=set(), run_id="base")
    new = pass_fail_run(tmp_path / "new", cases=400, failing=set(range(16)), run_id="new")
    same = pass_fail_run(tmp_path / "same", cases=400, failing=set(), run_id="same")
    c = compare_dirs(base, new)
    pass_rate = next(d for d in c.targets[0].deltas if d.metric == "pass_rate")
    assert pass_rate.delta_low is not None and pass_rate.delta_high is not None
    assert pass_rate.delta_low < pass_rate.delta_points < pass_rate.delta_high < 0  # excludes 0
    assert pass_rate.significant and pass_rate.significant_drop
    row = next(line for line in render_compare_markdown(c).splitlines() if line.startswith("| Pass rate"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1] == "100.0% (400/400) [99.0–100.0]" and cells[2].startswith("96.0% (384/400) [")
    assert cells[3] == f"-4.0 [{pass_rate.delta_low:+.1f}, {pass_rate.delta_high:+.1f}]"
    assert cells[5] == "significant drop"
    data = json.loads(render_compare_json(c))
    assert data["targets"][0]["deltas"][0]["significant"] is True
    back = compare_dirs(new, same)  # the rise back is significant too, but no regression
    rise = next(d for d in back.targets[0].deltas if d.metric == "pass_rate")
    assert rise.significant and not rise.significant_drop and not back.regression
    assert "| significant rise |" in render_compare_markdown(back)
    flat = next(d for d in compare_dirs(base, same).targets[0].deltas if d.metric == "pass_rate")
    assert not flat.significant and flat.delta_low is not None and flat.delta_low < 0 < (flat.delta_high or 0)
