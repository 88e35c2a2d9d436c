"""``fcbench import cases --format seed`` and ``fcbench export cases --format seed`` as a user runs
them (real subprocesses): the seed file comes back equal, and what is lost is named on stderr."""

from __future__ import annotations

import json
from pathlib import Path

from cli_run import fcbench

SEED = Path(__file__).resolve().parents[1] / "fixtures" / "seed"


def test_seed_cases_round_trip_through_the_cli(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    imported = fcbench(
        "import", "cases", str(SEED / "cases.json"), "--format", "seed",
        "--tools", str(SEED / "tools.json"), "--out", str(suite),
    )  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith(f"imported 6 cases (0 skipped, 1 warnings) -> {suite}")
    assert "warning: the seed format accepts arguments outside a tool's parameters" in imported.stderr
    exported = fcbench("export", "cases", str(suite), "--format", "seed", "-o", str(tmp_path / "back.json"))
    assert exported.returncode == 0, exported.stderr
    assert json.loads((tmp_path / "back.json").read_text()) == json.loads((SEED / "cases.json").read_text())
    assert (
        "warning: not in the seed format: the tools (import cases takes them with --tools)" in exported.stderr
    )
    assert f"wrote 6 cases (0 skipped) to {tmp_path / 'back.json'}" in exported.stderr


def test_exporting_a_built_in_suite_names_what_is_lost(tmp_path: Path) -> None:
    result = fcbench("export", "cases", "core", "--format", "seed")
    assert result.returncode == 0, result.stderr
    cases = json.loads(result.stdout)
    assert cases and all(set(c) >= {"case_id", "user_message", "expected_function"} for c in cases)
    assert "warning: not in the seed format: several expected calls (case skipped): " in result.stderr
    assert "warning: not in the seed format: tags: " in result.stderr


def test_seed_is_the_format_of_cases_only(tmp_path: Path) -> None:
    result = fcbench("export", str(tmp_path), "--format", "seed")
    assert result.returncode == 2
    assert "fcbench export cases SUITE --format seed" in result.stderr
    wrong = fcbench("export", "cases", "core", "--format", "csv")
    assert wrong.returncode == 2 and "cases are exported as seed, not csv" in wrong.stderr
