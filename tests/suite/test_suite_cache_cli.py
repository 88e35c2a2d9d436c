"""The suite cache through the command line (real subprocesses, the embedded mock provider): a run
fills the user's cache, the next run reads it, and an invalid suite fails the same way every time.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_run import fcbench

from fcbench.store.records import read_manifest
from fcbench.suite.cache import MIN_BYTES
from fcbench.suite.loader import BUILTIN_DIR, load_suite


@pytest.fixture(scope="module")
def large_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The core suite with enough extra copies of its single-turn cases to be cached."""
    folder = tmp_path_factory.mktemp("large") / "suite"
    shutil.copytree(BUILTIN_DIR / "core", folder)
    cases = folder / "cases.jsonl"
    models = [json.loads(line) for line in cases.read_text(encoding="utf-8").splitlines()]
    copies = MIN_BYTES // len(cases.read_bytes()) + 1
    with cases.open("a", encoding="utf-8") as out:
        for copy in range(copies):
            for model in models:
                out.write(json.dumps({**model, "id": f"{model['id']}-{copy}", "paraphrase_of": None}) + "\n")
    return folder


def cache_env(tmp_path: Path) -> dict[str, str]:
    return {"FCBENCH_CACHE_DIR": str(tmp_path / "cache"), "FCBENCH_SUITE_CACHE": "on"}


def run_once(suite: Path, tmp_path: Path, out: str) -> Path:
    done = fcbench(
        "run", "--suite", str(suite), "--case", "select-lookup-01-0", "--mode", "selection",
        "--no-progress", "--out", str(tmp_path / out), env=cache_env(tmp_path),
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    (run_dir,) = (tmp_path / out).iterdir()
    return run_dir


def test_a_run_fills_the_cache_and_the_next_run_reads_it(large_dir: Path, tmp_path: Path) -> None:
    fresh = load_suite(large_dir, cache=False)
    first = read_manifest(run_once(large_dir, tmp_path, "first"))
    assert first.dataset_hash == fresh.dataset_hash
    (entry,) = (tmp_path / "cache" / "suites").glob("*.json")
    # mark the entry: a run that takes the suite from it records the marked hash
    data = json.loads(entry.read_bytes())
    entry.write_text(json.dumps({**data, "dataset_hash": "0" * 64}), encoding="utf-8")
    second = run_once(large_dir, tmp_path, "second")
    assert read_manifest(second).dataset_hash == "0" * 64
    assert read_manifest(second).planned == first.planned > 0
    assert (second / "records.jsonl").read_text(encoding="utf-8").count("\n") == first.planned


def test_an_invalid_suite_fails_with_file_and_line_on_every_run(large_dir: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(large_dir, broken)
    assert fcbench("cases", "validate", str(broken), env=cache_env(tmp_path)).returncode == 0
    lines = (broken / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    case = json.loads(lines[-1])
    lines[-1] = json.dumps({**case, "expected": {"kind": "tool", "name": "no_such_tool"}})
    (broken / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    outputs = [fcbench("cases", "validate", str(broken), env=cache_env(tmp_path)) for _ in range(2)]
    where = f"{broken / 'cases.jsonl'}:{len(lines)}: expected.name: 'no_such_tool'"
    for done in outputs:
        assert done.returncode == 2 and where in done.stderr + done.stdout
        assert "Traceback" not in done.stderr
    assert outputs[0].stderr == outputs[1].stderr
    assert len(list((tmp_path / "cache" / "suites").glob("*.json"))) == 1  # only the valid one
