"""The regression gate fails closed: pairing by name, explicit pairs, unpaired and unscorable targets,
coverage, latency and cost gates, partial and full flips, and the github format's verdict line.

The CLI entry point is exercised in-process on run directories written by the real record writer; the
runs over HTTP use real ``fcbench run`` and ``fcbench compare`` subprocesses.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from cli_inprocess import fcbench_in_process
from records_builder import RunBuilder, call_outcome, error_outcome, text_outcome, verdict

from fcbench.metrics import compute_metrics
from fcbench.report.compare import Comparison, compare_runs
from fcbench.suite.loader import load_suite

OLD = ("openai", "gpt-4o-2024-08-06")
NEW = ("openai", "gpt-4o-2024-11-20")

Outcomes = dict[str, str]
"""Case id -> one letter per repeat: ``P`` passed, ``F`` failed, ``E`` provider error (rate_limited)."""


def write_run(
    run_dir: Path,
    targets: dict[tuple[str, str], Outcomes],
    *,
    names: dict[tuple[str, str], str] | None = None,
    mode: str = "selection",
    latency_ms: float = 100.0,
    cost_usd: float = 0.001,
) -> Path:
    """A run with the given outcomes per target; ``names`` gives targets a config name in the manifest."""
    repeats = max(len(s) for outcomes in targets.values() for s in outcomes.values())
    b = RunBuilder(run_dir, run_id=run_dir.name, targets=list(targets), modes=[mode], repeats=repeats)
    for target, outcomes in targets.items():
        for case_id, letters in outcomes.items():
            for repeat, letter in enumerate(letters):
                if letter == "E":
                    outcome, v = error_outcome("rate_limited", 429), None
                elif letter == "P":
                    outcome, v = call_outcome(("lookup_order", {"order_id": case_id})), verdict()
                else:
                    outcome, v = text_outcome("no"), verdict("missed_call")
                b.add(
                    case_id,
                    outcome,
                    v,
                    target=target,
                    repeat=repeat,
                    mode=mode,
                    latency_ms=latency_ms,
                    cost_usd=None if letter == "E" else cost_usd,
                )
    b.write()
    if names:
        path = run_dir / "manifest.json"
        manifest = json.loads(path.read_text(encoding="utf-8"))
        for entry in manifest["targets"]:
            name = names.get((entry["endpoint"], entry["model"]))
            if name:
                entry["name"] = name
        path.write_text(json.dumps(manifest), encoding="utf-8")
    return run_dir


def cases(count: int, failing: int = 0, letters: str = "P") -> Outcomes:
    """``count`` cases; the first ``failing`` fail every repeat, the others are ``letters``."""
    return {f"case-{i:03d}": ("F" * len(letters) if i < failing else letters) for i in range(count)}


def compare_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``fcbench compare ARGS`` through the entry point, in this process."""
    return fcbench_in_process("compare", *map(str, args))


def compare_subprocess(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``fcbench compare ARGS`` as a real ``python -m fcbench`` subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "fcbench", "compare", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def compare_json(*args: str | Path) -> tuple[int, dict[str, Any]]:
    proc = compare_cli(*args, "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def compare_dirs(base: Path, new: Path, **kwargs: Any) -> Comparison:
    return compare_runs(compute_metrics(base), compute_metrics(new), **kwargs)


def test_a_model_upgrade_under_one_name_is_compared_and_gated(tmp_path: Path) -> None:
    base = write_run(tmp_path / "base", {OLD: cases(20)}, names={OLD: "prod"})
    worse = write_run(tmp_path / "worse", {NEW: cases(20, failing=2)}, names={NEW: "prod"})  # -10 points
    same = write_run(tmp_path / "same", {NEW: cases(20)}, names={NEW: "prod"})

    bad = compare_cli(base, worse)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    title = "prod (openai:gpt-4o-2024-08-06 -> openai:gpt-4o-2024-11-20) [selection]"
    assert f"{title}: pass rate 100.0% (20/20) -> 90.0% (18/20)" in bad.stdout
    assert bad.stdout.rstrip().splitlines()[-1].startswith("REGRESSION: ")

    ok = compare_cli(base, same)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.rstrip().splitlines()[-1].startswith("no regression: 1 target(s) compared")

    code, data = compare_json(base, worse)
    assert code == 1
    (pair,) = data["targets"]
    assert (pair["name"], pair["new_name"], pair["pairing"]) == ("prod", "prod", "name")
    assert (pair["base_target"], pair["target"]) == ("openai:gpt-4o-2024-08-06", "openai:gpt-4o-2024-11-20")
    assert data["failures"] == [f"{title}: " + pair["reasons"][0]]


def test_names_pair_targets_even_when_every_label_changed(tmp_path: Path) -> None:
    a, b, c, d = (("openai", m) for m in ("m1", "m2", "m3", "m4"))
    base = write_run(
        tmp_path / "base", {a: cases(10), b: cases(10, failing=10)}, names={a: "prod", b: "cand"}
    )
    # NEW lists the targets in the other order: pairing by position would compare prod with cand
    new = write_run(tmp_path / "new", {d: cases(10, failing=10), c: cases(10)}, names={c: "prod", d: "cand"})
    code, data = compare_json(base, new)
    assert code == 0, data["failures"]
    pairs = {(t["name"], t["base_target"], t["target"], t["pairing"]) for t in data["targets"]}
    assert pairs == {("prod", "openai:m1", "openai:m3", "name"), ("cand", "openai:m2", "openai:m4", "name")}


def test_a_base_target_missing_from_new_fails(tmp_path: Path) -> None:
    a, b = ("openai", "m1"), ("openai", "m2")
    base = write_run(tmp_path / "base", {a: cases(10), b: cases(10)}, names={a: "prod", b: "cand"})
    new = write_run(tmp_path / "new", {a: cases(10)}, names={a: "prod"})
    proc = compare_cli(base, new)
    assert proc.returncode == 1, proc.stdout
    assert "cand (openai:m2) [selection]: BASE target has no partner in NEW" in proc.stdout
    code, data = compare_json(base, new)
    assert data["only_in_base"] == ["cand (openai:m2) [selection]"]
    assert [t["name"] for t in data["targets"]] == ["prod"]
    assert len(data["failures"]) == 1


def test_new_with_only_provider_errors_fails(tmp_path: Path) -> None:
    base = write_run(tmp_path / "base", {OLD: cases(10, letters="PPP")}, names={OLD: "prod"})
    new = write_run(tmp_path / "new", {NEW: cases(10, letters="EEE")}, names={NEW: "prod"})
    proc = compare_cli(base, new)
    assert proc.returncode == 1, proc.stdout
    assert "NEW has nothing scorable (0 of 30 planned observations; rate_limited x30)" in proc.stdout
    code, data = compare_json(base, new)
    reasons = data["targets"][0]["reasons"]
    assert any(r.startswith("coverage 100.0% (30/30) -> 0.0% (0/30)") for r in reasons)
    assert data["targets"][0]["new_provider_errors"] == {"rate_limited": 30}


def test_a_coverage_drop_over_the_limit_fails_even_when_every_scored_case_passes(tmp_path: Path) -> None:
    base = write_run(tmp_path / "base", {OLD: cases(20)})
    lossy = {**cases(20), **{f"case-{i:03d}": "E" for i in range(3)}}  # 17/20 scorable: -15 points
    new = write_run(tmp_path / "new", {OLD: lossy})
    comparison = compare_dirs(base, new)
    assert comparison.regression
    assert comparison.failures == [
        "openai:gpt-4o-2024-08-06 [selection]: coverage 100.0% (20/20) -> 85.0% (17/20) "
        "(-15.0 points, limit -10; NEW: rate_limited x3)"
    ]
    assert compare_cli(base, new, "--max-coverage-drop", "20").returncode == 0
    assert compare_cli(base, new).returncode == 1


def test_explicit_pairs_override_and_unpaired_runs_compare_nothing(tmp_path: Path) -> None:
    a, b, a2, b2 = (("openai", m) for m in ("a", "b", "a2", "b2"))
    base = write_run(tmp_path / "base", {a: cases(10), b: cases(10, failing=5)})
    new = write_run(tmp_path / "new", {a2: cases(10), b2: cases(10, failing=5)})

    nothing = compare_cli(base, new)
    assert nothing.returncode == 1
    assert "compared 0 targets" in nothing.stdout
    assert "openai:a [selection]: BASE target has no partner in NEW" in nothing.stdout

    code, data = compare_json(base, new, "--pair", "openai:a=openai:a2", "--pair", "openai:b=openai:b2")
    assert code == 0, data["failures"]
    assert {(t["base_target"], t["target"], t["pairing"]) for t in data["targets"]} == {
        ("openai:a", "openai:a2", "explicit"),
        ("openai:b", "openai:b2", "explicit"),
    }
    crossed = compare_cli(base, new, "--pair", "openai:a=openai:b2", "--pair", "openai:b=openai:a2")
    assert crossed.returncode == 1  # a (10/10) against b2 (5/10): the pairs given are the pairs used
    assert "openai:a -> openai:b2 [selection]: pass rate 100.0% (10/10) -> 50.0% (5/10)" in crossed.stdout

    unknown = compare_cli(base, new, "--pair", "openai:zzz=openai:a2")
    assert unknown.returncode == 2 and "openai:zzz" in unknown.stderr
    malformed = compare_cli(base, new, "--pair", "openai:a")
    assert malformed.returncode == 2 and "BASE=NEW" in malformed.stderr


def test_explicit_pairs_accept_names(tmp_path: Path) -> None:
    base = write_run(tmp_path / "base", {OLD: cases(10), ("x", "y"): cases(10)}, names={OLD: "prod"})
    new = write_run(tmp_path / "new", {NEW: cases(10), ("x", "y"): cases(10)}, names={NEW: "candidate"})
    code, data = compare_json(base, new, "--pair", "prod=candidate")
    assert code == 0, data["failures"]
    rules = {t["title"]: t["pairing"] for t in data["targets"]}
    assert rules == {
        "prod (openai:gpt-4o-2024-08-06) -> candidate (openai:gpt-4o-2024-11-20)": "explicit",
        "x:y": "name",
    }


def test_one_target_each_pairs_as_single_and_modes_must_match(tmp_path: Path) -> None:
    base = write_run(tmp_path / "base", {OLD: cases(5)})
    new = write_run(tmp_path / "new", {NEW: cases(5)})
    single = compare_dirs(base, new)
    assert not single.regression, single.failures
    assert [t.pairing for t in single.targets] == ["single"]

    forced = write_run(tmp_path / "forced", {OLD: cases(5)}, mode="forced")
    other_mode = compare_dirs(base, forced)
    assert other_mode.regression
    assert other_mode.targets == []
    assert other_mode.failures[0].startswith(
        "openai:gpt-4o-2024-08-06 [selection]: BASE target has no partner in NEW"
    )
    assert other_mode.failures[-1].startswith("compared 0 targets")


def test_partial_and_full_flips_in_both_directions(tmp_path: Path) -> None:
    base_cases = {"c1": "PPP", "c2": "PPP", "c3": "FFF", "c4": "PFP", "c5": "PPP", "c6": "FPF"}
    new_cases = {"c1": "PFP", "c2": "FFF", "c3": "PPP", "c4": "PPP", "c5": "PPP", "c6": "FFP"}
    base = write_run(tmp_path / "base", {OLD: base_cases})
    new = write_run(tmp_path / "new", {OLD: new_cases})
    c = compare_dirs(base, new)
    assert [(f.case_id, f.kind) for f in c.pass_to_fail] == [("c1", "partial"), ("c2", "full")]
    assert [(f.case_id, f.kind) for f in c.fail_to_pass] == [("c3", "full"), ("c4", "partial")]
    assert (c.pass_to_fail[0].base.n, c.pass_to_fail[0].new.n, c.pass_to_fail[0].new.d) == (3, 2, 3)

    # 3/3 <-> 0/3 moved beyond the interval; 3/3 <-> 2/3 stayed inside it: noise, counted, not listed
    assert [f.real for f in c.pass_to_fail] == [False, True]
    assert [f.real for f in c.fail_to_pass] == [True, False]

    md = compare_cli(base, new, "--max-drop", "100", "--alpha", "0.001").stdout
    sections = {
        "Flipped pass -> fail, full": ["c2"],
        "Flipped pass -> fail, partial": [],
        "Flipped fail -> pass, full": ["c3"],
        "Flipped fail -> pass, partial": [],
    }
    for heading, expected in sections.items():
        section = md.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
        rows = [line.split("|")[1].strip() for line in section.splitlines() if line.startswith("| c")]
        assert rows == expected, (heading, section)
    assert "## Within noise: 2\n\n2 flips within noise" in md


def test_a_partial_flip_over_many_repeats_is_a_real_change(tmp_path: Path) -> None:
    base = write_run(tmp_path / "base", {OLD: {"c1": "P" * 10, "c2": "P" * 35}})
    new = write_run(tmp_path / "new", {OLD: {"c1": "PPPPFFFFFP", "c2": "P" * 34 + "F"}})
    c = compare_dirs(base, new, max_drop=100.0, alpha=0.001)
    assert [(f.case_id, f.kind, f.real) for f in c.pass_to_fail] == [
        ("c1", "partial", True),  # 10/10 -> 6/10: outside each other's interval
        ("c2", "partial", False),  # 35/35 -> 34/35: noise
    ]
    assert "1 case(s) now fail beyond their interval" in c.verdict


def test_latency_and_cost_are_shown_always_and_gate_only_when_asked(tmp_path: Path) -> None:
    base = write_run(tmp_path / "base", {OLD: cases(10)}, latency_ms=100.0, cost_usd=0.001)
    slow = write_run(tmp_path / "slow", {OLD: cases(10)}, latency_ms=300.0, cost_usd=0.001)
    costly = write_run(tmp_path / "costly", {OLD: cases(10)}, latency_ms=100.0, cost_usd=0.002)

    shown = compare_cli(base, slow)
    assert shown.returncode == 0, shown.stdout
    assert "| Latency p95 | 100 ms | 300 ms | +200.0% | not gated |" in shown.stdout
    assert "| Cost per passing observation | $0.001000 | $0.001000 | +0.0% | not gated |" in shown.stdout

    gated = compare_cli(base, slow, "--max-latency-increase", "50")
    assert gated.returncode == 1
    assert "p95 latency 100 ms -> 300 ms (+200.0%, limit +50%)" in gated.stdout
    assert compare_cli(base, slow, "--max-latency-increase", "250").returncode == 0
    assert compare_cli(base, slow, "--max-cost-increase", "10").returncode == 0

    assert compare_cli(base, costly).returncode == 0
    cost = compare_cli(base, costly, "--max-cost-increase", "50")
    assert cost.returncode == 1
    assert "cost per passing observation $0.001000 -> $0.002000 (+100.0%, limit +50%)" in cost.stdout
    assert compare_cli(base, costly, "--max-latency-increase", "0").returncode == 0


def test_a_requested_gate_that_cannot_be_evaluated_fails(tmp_path: Path) -> None:
    base = write_run(tmp_path / "base", {OLD: cases(4)})
    none_pass = write_run(tmp_path / "none", {OLD: cases(4, failing=4)})  # no cost per pass in NEW
    c = compare_dirs(base, none_pass, max_drop=100.0, alpha=1e-9, max_cost_increase=1000.0)
    assert c.failures == [
        "openai:gpt-4o-2024-08-06 [selection]: cost per passing observation cannot be compared "
        "($0.001000 -> –), and its gate (+1000%) was asked for"
    ]
    assert not compare_dirs(base, none_pass, max_drop=100.0, alpha=1e-9).regression


def test_github_format_starts_with_the_verdict(tmp_path: Path) -> None:
    a, b = ("openai", "m1"), ("openai", "m2")
    base = write_run(tmp_path / "base", {a: cases(20), b: cases(20)}, names={a: "prod", b: "cand"})
    new = write_run(tmp_path / "new", {NEW: cases(20, failing=4)}, names={NEW: "prod"})
    failed = compare_cli(base, new, "--format", "github")
    assert failed.returncode == 1
    lines = failed.stdout.splitlines()
    code, data = compare_json(base, new)
    assert len(data["failures"]) == 2  # prod: the pass-rate drop; cand: no partner
    assert lines[0] == "**FAIL**: 2 thresholds failed"
    row = next(line for line in lines if line.startswith("| **REGRESSED** prod |"))
    assert "100.0% (20/20) → 80.0% (16/20)" in row and "| name |" in row
    assert "### Failed thresholds" in failed.stdout
    assert "- cand (openai:m2) \\[selection\\]: BASE target has no partner in NEW" in failed.stdout

    same = compare_cli(base, base, "--format", "github")
    assert same.returncode == 0
    assert same.stdout.splitlines()[0] == "**PASS**: 2 targets compared, no threshold failed"


def _real_run(tmp_path: Path, folder: str, target: str, *extra: str) -> Path:
    """``fcbench run`` of the core suite's boundary cases against the embedded mock, the target named prod."""
    config = tmp_path / f"{folder}.yaml"
    config.write_text(f'targets:\n  - {{name: prod, target: "{target}"}}\nrepeats: 2\n', encoding="utf-8")
    out = tmp_path / folder
    args = ["--config", str(config), "--category", "boundary", "--out", str(out), "--no-progress", *extra]
    proc = subprocess.run(
        [sys.executable, "-m", "fcbench", "run", *args], capture_output=True, text=True, timeout=300
    )
    runs = list(out.iterdir()) if out.exists() else []
    assert len(runs) == 1, proc.stdout + proc.stderr
    return runs[0]


def test_real_runs_over_http_pair_by_name_and_fail_closed(tmp_path: Path) -> None:
    base = _real_run(tmp_path, "base", "sim:sim-careful")
    upgraded = _real_run(tmp_path, "upgraded", "sim-anthropic:sim-sloppy")
    limited = _real_run(tmp_path, "limited", "sim:sim-careful", "--mock-faults", "rate_limit:1")

    assert compare_subprocess(base, base).returncode == 0
    code, data = compare_json(base, upgraded)
    assert code == 1
    (pair,) = data["targets"]
    assert (pair["name"], pair["pairing"], pair["base_target"], pair["target"]) == (
        "prod",
        "name",
        "sim:sim-careful",
        "sim-anthropic:sim-sloppy",
    )
    assert any(
        f.startswith("prod (sim:sim-careful -> sim-anthropic:sim-sloppy) [selection]: pass rate")
        for f in data["failures"]
    )

    code, data = compare_json(base, limited)
    assert code == 1
    boundary = [c for c in load_suite("core").cases if c.category == "boundary" and c.recovery is None]
    planned = 2 * len(boundary)  # two repeats of core's single-turn boundary cases
    assert data["failures"][0] == (
        "prod (sim:sim-careful) [selection]: NEW has nothing scorable "
        f"(0 of {planned} planned observations; rate_limited x{planned})"
    )
