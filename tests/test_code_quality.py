"""The code base stays lint-clean, formatted and type-checked (ruff and mypy, see pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> list[str]:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    return [found]


def test_ruff_lint_is_clean() -> None:
    proc = subprocess.run(
        [*_tool("ruff"), "check", "src", "tests", "benchmarks"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_is_clean() -> None:
    proc = subprocess.run(
        [*_tool("ruff"), "format", "--check", "src"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_is_clean() -> None:
    proc = subprocess.run([*_tool("mypy")], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_nothing_mentions_machine_paths() -> None:
    offenders = []
    for path in [*ROOT.joinpath("src").rglob("*.py"), *ROOT.glob("*.md")]:
        text = path.read_text(encoding="utf-8")
        if "/work/" in text or "/tmp/bash_jobs" in text:
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders
