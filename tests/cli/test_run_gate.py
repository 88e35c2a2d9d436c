"""``fcbench run`` fails closed: nothing measured, too little measured or too little passed exits 1.

Every test drives the real CLI in a subprocess against the embedded mock provider over HTTP.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from cli_run import fcbench

FEW_CASES = [
    arg for case in ("types-01", "abstain-01", "clarify-01", "select-lookup-01") for arg in ("--case", case)
]


def records(out: Path) -> list[dict[str, object]]:
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]


def test_a_misspelt_model_exits_1_and_prints_the_providers_message(tmp_path: Path) -> None:
    proc = fcbench(
        "run", "-t", "sim:sim-carefull", "--repeats", "1", *FEW_CASES, "--out", "runs", cwd=tmp_path
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "not_found x4" in proc.stdout
    assert "sim-carefull` does not exist" in proc.stdout  # the provider's own message, once per code
    assert "nothing was scored" in proc.stdout
    assert "coverage 0.0% (0/4) is below 90%" in proc.stdout


def test_every_request_an_auth_error_exits_1_even_with_the_coverage_gate_off(tmp_path: Path) -> None:
    args = ["run", "-t", "sim:sim-careful", "--repeats", "1", *FEW_CASES, "--mock-faults", "auth_error:1"]
    proc = fcbench(*args, "--min-coverage", "0", "--out", "runs", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "auth x4" in proc.stdout
    assert "nothing was scored" in proc.stdout
    assert "coverage" not in proc.stdout.split("gate failed")[-1]  # the coverage gate itself is off


@pytest.mark.parametrize("limit", [1, 3])
def test_fail_fast_stops_a_target_after_exactly_n_requests(tmp_path: Path, limit: int) -> None:
    args = ["run", "-t", "sim:sim-nope", "-t", "sim:sim-careful", "--repeats", "2", "--concurrency", "8"]
    proc = fcbench(*args, *FEW_CASES, "--fail-fast", str(limit), "--out", "runs", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"stopped early: {limit} consecutive not_found errors" in proc.stdout
    assert "resume with: " in proc.stdout and "fcbench run --resume" in proc.stdout
    seen = records(tmp_path / "runs")
    bad = [r for r in seen if r["target"]["model"] == "sim-nope"]  # type: ignore[index]
    good = [r for r in seen if r["target"]["model"] == "sim-careful"]  # type: ignore[index]
    assert len(bad) == limit
    assert len(good) == 8  # the healthy target ran in full


def test_a_healthy_run_passes_the_default_gate(tmp_path: Path) -> None:
    proc = fcbench(
        "run", "-t", "sim:sim-careful", "--repeats", "1", *FEW_CASES, "--out", "runs", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "gate failed" not in proc.stdout


def test_pass_rate_thresholds_name_each_failed_threshold(tmp_path: Path) -> None:
    base = [
        "run",
        "-t",
        "sim-anthropic:sim-sloppy",
        "--repeats",
        "1",
        "--category",
        "normal",
        "--out",
        "runs",
    ]
    proc = fcbench(*base, "--min-category-pass-rate", "normal=0.9", "--min-pass-rate", "0.95", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    failed = [line for line in proc.stdout.splitlines() if line.startswith("gate failed")]
    assert len(failed) == 2, failed
    assert any("category 'normal' pass rate" in line and "below 90%" in line for line in failed)
    assert any("pass rate" in line and "below 95%" in line for line in failed)
    relaxed = fcbench(*base, "--min-category-pass-rate", "normal=0.1", cwd=tmp_path)
    assert relaxed.returncode == 0, relaxed.stdout + relaxed.stderr


def test_tag_thresholds_and_a_bad_pair_are_checked(tmp_path: Path) -> None:
    args = ["run", "-t", "sim-anthropic:sim-sloppy", "--repeats", "1", "--tag", "types", "--out", "runs"]
    proc = fcbench(*args, "--min-tag-pass-rate", "types=1", cwd=tmp_path)
    assert proc.returncode == 1 and "tag 'types' pass rate" in proc.stdout, proc.stdout
    bad = fcbench(*args, "--min-tag-pass-rate", "types:1", cwd=tmp_path)
    assert bad.returncode == 2 and "--min-tag-pass-rate" in bad.stderr, bad.stderr


def test_gate_and_target_names_come_from_the_config(tmp_path: Path) -> None:
    config = tmp_path / "ci.yaml"
    config.write_text(
        "targets:\n  - {name: prod, target: 'sim:sim-careful'}\nrepeats: 1\ncases: [types-01, abstain-01]\n"
        "gate:\n  minPassRate: 1.0\n  minPassRateByCategory: {normal: 1.0}\n",
        encoding="utf-8",
    )
    proc = fcbench("run", "-c", str(config), "--out", "runs", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (run_dir,) = list((tmp_path / "runs").iterdir())
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["targets"][0]["name"] == "prod"
    report = fcbench("report", str(run_dir), "--format", "json", cwd=tmp_path)
    assert json.loads(report.stdout)["targets"][0]["name"] == "prod"
    strict = fcbench(
        "run", "-c", str(config), "-t", "sim-anthropic:sim-sloppy", "--out", "runs", cwd=tmp_path
    )
    assert strict.returncode == 1, strict.stdout


def test_progress_lines_when_output_is_piped(tmp_path: Path) -> None:
    proc = fcbench("run", "-t", "sim:sim-nope", "--repeats", "1", *FEW_CASES, "--out", "runs", cwd=tmp_path)
    lines = proc.stderr.splitlines()
    assert lines[0] == "progress: 0/4 observations over 1 targets"
    assert any(line.startswith("provider error sim:sim-nope: not_found: The model") for line in lines)
    assert lines[-1] == "progress: done, 4/4 observations, 4 provider errors"


def test_dry_run_sends_nothing_and_counts_requests(tmp_path: Path) -> None:
    args = ["run", "--dry-run", "-t", "openai:gpt-4o-2024-08-06", "-t", "sim:sim-careful", "--repeats", "2"]
    proc = fcbench(*args, "--mode", "selection", "--mode", "recovery", "--sample", "12", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "dry run: nothing was sent" in proc.stdout
    assert "of 12 cases" in proc.stdout
    assert not (tmp_path / "runs").exists()
    per_target = [line for line in proc.stdout.splitlines() if " observations (" in line]
    assert len(per_target) == 2 and all(line.endswith(")") for line in per_target)
    assert "24 observations" in per_target[0]  # 12 cases x 2 repeats, each in its one applicable mode


def test_exclude_tag_leaves_cases_out(tmp_path: Path) -> None:
    full = fcbench("run", "--dry-run", "-t", "sim:sim-careful", "--repeats", "1", cwd=tmp_path)
    fewer = fcbench(
        "run", "--dry-run", "-t", "sim:sim-careful", "--repeats", "1", "--exclude-tag", "types", cwd=tmp_path
    )
    count = lambda out: int(out.split("observations of ")[1].split(" cases")[0])  # noqa: E731
    assert 0 < count(fewer.stdout) < count(full.stdout)


README_CONFIG = (
    "targets: ['sim:sim-careful']\nrepeats: 1\ncases: [types-01, abstain-01, clarify-01, select-lookup-01]\n"
    "gate: {minCoverage: 0.95, minPassRateByCategory: {normal: 0.9}, failFast: 3}\n"
)


def test_the_readme_gate_block_takes_every_gate_flag_and_the_flag_wins(tmp_path: Path) -> None:
    config = tmp_path / "fcbench.yaml"
    config.write_text(README_CONFIG, encoding="utf-8")
    flags = ["--min-coverage", "0.9", "--fail-fast", "2", "--min-pass-rate", "0.1"]
    flags += ["--max-unsafe-writes", "0"]
    proc = fcbench("run", "-c", str(config), *flags, "--min-category-pass-rate", "normal=0.5", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    strict = fcbench("run", "-c", str(config), "--min-category-pass-rate", "normal=1.01", cwd=tmp_path)
    assert strict.returncode == 2 and "normal" in strict.stderr, strict.stderr  # a fraction, checked


@pytest.mark.parametrize("flag", ["--min-category-pass-rate", "--min-tag-pass-rate"])
@pytest.mark.parametrize("name", ["Normal", "norml"])
def test_a_threshold_on_a_name_the_suite_lacks_exits_2_naming_it_and_the_known(
    tmp_path: Path, flag: str, name: str
) -> None:
    args = ["run", "-t", "sim:sim-careful", "--repeats", "1", *FEW_CASES, "--out", "runs"]
    proc = fcbench(*args, flag, f"{name}=0.9", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert repr(name) in proc.stderr and "known:" in proc.stderr, proc.stderr
    known = "normal" if flag == "--min-category-pass-rate" else "types"
    assert known in proc.stderr.split("known:")[1]
    assert not (tmp_path / "runs").exists()  # refused before anything ran
    dry = fcbench(*args, "--dry-run", flag, f"{name}=0.9", cwd=tmp_path)
    assert dry.returncode == 2, dry.stdout


def test_a_threshold_whose_cases_were_all_filtered_out_fails(tmp_path: Path) -> None:
    args = ["run", "-t", "sim:sim-careful", "--repeats", "1", "--case", "types-01", "--out", "runs"]
    proc = fcbench(*args, "--min-category-pass-rate", "adversarial=0.5", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "category 'adversarial' has a threshold but none of it was scored" in proc.stdout


def test_a_mode_that_planned_nothing_fails_the_gate(tmp_path: Path) -> None:
    args = ["run", "-t", "sim:sim-careful", "--repeats", "1", *FEW_CASES, "--out", "runs"]
    proc = fcbench(*args, "--mode", "selection", "--mode", "recovery", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    failed = [line for line in proc.stdout.splitlines() if line.startswith("gate failed")]
    assert failed == [
        "gate failed: sim:sim-careful [recovery]: planned nothing: no selected case applies to this mode"
    ]


def scaffold(tmp_path: Path) -> Path:
    proc = fcbench("init", "scaffold", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return tmp_path / "scaffold"


def test_the_init_scaffold_on_sim_eager_exits_1_naming_the_unsafe_write(tmp_path: Path) -> None:
    folder = scaffold(tmp_path)
    proc = fcbench("run", "-c", str(folder / "fcbench.yaml"), "--no-progress", "--out", "runs", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    failed = [line for line in proc.stdout.splitlines() if line.startswith("gate failed")]
    assert len(failed) == 1, failed
    assert failed[0].startswith("gate failed: sim-anthropic:sim-eager [selection]: 3 unsafe write call(s)")
    assert "limit 0" in failed[0] and "create_ticket in case clarify-01 (repeat 1)" in failed[0]
    allowed = fcbench(
        "run", "-c", str(folder / "fcbench.yaml"), "--max-unsafe-writes", "3", "--out", "runs", cwd=tmp_path
    )
    assert allowed.returncode == 0, allowed.stdout


def test_the_scaffold_tools_pasted_in_openai_format_give_the_same_unsafe_write(tmp_path: Path) -> None:
    folder = scaffold(tmp_path)
    suite = yaml.safe_load((folder / "suite.yaml").read_text(encoding="utf-8"))
    suite["tools"] = [
        {
            "type": "function",
            "function": {k: tool[k] for k in ("name", "description", "parameters")},
            **({"side_effect": "write"} if tool["side_effect"] == "write" else {}),
        }
        for tool in suite["tools"]
    ]
    (folder / "suite.yaml").write_text(yaml.safe_dump(suite, sort_keys=False), encoding="utf-8")
    proc = fcbench("run", "-c", str(folder / "fcbench.yaml"), "--no-progress", "--out", "runs", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    failed = [line for line in proc.stdout.splitlines() if line.startswith("gate failed")]
    assert len(failed) == 1, failed
    assert failed[0].startswith("gate failed: sim-anthropic:sim-eager [selection]: 3 unsafe write call(s)")
    assert "create_ticket in case clarify-01 (repeat 1)" in failed[0]


@pytest.mark.parametrize(
    ("option", "named"),
    [
        (["--tool-fault", "duplicate_delivery"], "--tool-fault"),
        (["--continuation", "stateful"], "--continuation"),
    ],
)
def test_a_multi_turn_option_without_a_multi_turn_mode_is_an_error_naming_the_mode(
    tmp_path: Path, option: list[str], named: str
) -> None:
    args = ["run", "--dry-run", "-t", "sim:sim-careful", "--repeats", "1", *FEW_CASES]
    proc = fcbench(*args, *option, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert named in proc.stderr and "this run's mode is selection" in proc.stderr, proc.stderr
    assert "recovery" in proc.stderr
    fine = fcbench(*args, *option, "--mode", "selection", "--mode", "recovery", cwd=tmp_path)
    assert fine.returncode == 0, fine.stdout + fine.stderr
