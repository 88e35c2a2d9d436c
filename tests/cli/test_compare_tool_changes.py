"""``fcbench compare`` names a tool whose description changed between two real runs (the embedded
mock, ``sim-careful``) and marks the flips of the cases offered it; old manifests still compare."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_inprocess import fcbench_in_process
from cli_run import fcbench
from intent_logs import write_suite

NEW_DESCRIPTION = "Delete the weather forecast archive of a city."


def _run(root: Path, suite: Path, out: str) -> Path:
    args = ["run", "--suite", str(suite), "-t", "sim:sim-careful", "--repeats", "2", "--no-progress"]
    result = fcbench_in_process(*args, "--out", out, cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = (root / out).iterdir()
    return run_dir


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One run of the suite, and one after lookup_order's description changed (nothing else)."""
    root = tmp_path_factory.mktemp("tool-change")
    base_suite = write_suite(root / "base")
    new_suite = root / "new"
    shutil.copytree(base_suite, new_suite)
    tools = json.loads((new_suite / "tools.core.json").read_text())
    tools["tools"][0]["description"] = NEW_DESCRIPTION
    (new_suite / "tools.core.json").write_text(json.dumps(tools))
    return _run(root, base_suite, "base-runs"), _run(root, new_suite, "new-runs")


def test_compare_names_the_changed_tool_and_marks_its_flips(runs: tuple[Path, Path]) -> None:
    base, new = runs
    result = fcbench("compare", str(base), str(new), "--format", "json")
    comparison = json.loads(result.stdout)
    (named,) = [w for w in comparison["warnings"] if w.startswith("tool ")]
    assert named.startswith("tool lookup_order changed (schema or description; sha256 ")
    assert "offered to 4 cases; its cases flipped: " in named
    flips = comparison["pass_to_fail"] + comparison["fail_to_pass"]
    assert flips, "the description change moved no case"
    lookups = {"lookup-en", "lookup-zh"}
    assert {f["case_id"] for f in flips} <= lookups | {"search-en", "thanks-en"}
    assert all(f["changed_tools"] == ["lookup_order"] for f in flips)
    assert all(f"{f['case_id']} pass -> fail" in named for f in comparison["pass_to_fail"])
    markdown = fcbench_in_process("compare", str(base), str(new)).stdout
    first = comparison["pass_to_fail"][0]["case_id"]
    assert f"| {first} (tool changed: lookup\\_order) |" in markdown


def test_the_manifest_pins_each_tool(runs: tuple[Path, Path]) -> None:
    base, new = runs
    pinned = [json.loads((run / "manifest.json").read_text())["tool_sets"]["core"] for run in runs]
    assert pinned[0]["cases"] == pinned[1]["cases"] == ["lookup-en", "lookup-zh", "search-en", "thanks-en"]
    assert pinned[0]["tools"]["search_orders"] == pinned[1]["tools"]["search_orders"]
    assert pinned[0]["tools"]["lookup_order"] != pinned[1]["tools"]["lookup_order"]


def test_a_manifest_from_before_tool_pins_still_compares(runs: tuple[Path, Path], tmp_path: Path) -> None:
    base, new = runs
    old = tmp_path / base.name
    shutil.copytree(base, old)
    manifest = json.loads((old / "manifest.json").read_text())
    del manifest["tool_sets"]
    (old / "manifest.json").write_text(json.dumps(manifest))
    result = fcbench_in_process("compare", str(old), str(new), "--format", "json")
    comparison = json.loads(result.stdout)
    assert not [w for w in comparison["warnings"] if w.startswith("tool ")]
    assert all(f["changed_tools"] == [] for f in comparison["pass_to_fail"])
