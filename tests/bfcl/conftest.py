"""Fixtures for the BFCL import and the ``bfcl`` grading profile.

- ``bfcl_dir``: the sample BFCL data in ``tests/fixtures/bfcl`` (question files, ``possible_answer/``).
- ``imported`` (session): ``imported(category) -> (suite_dir, report)``, each sample category imported
  once per session into a temporary folder.
- ``write_jsonl``: writes rows as a JSON Lines file and returns its path.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from fcbench.bfcl.convert import ImportReport, import_bfcl

BFCL_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "bfcl"


@pytest.fixture(scope="session")
def bfcl_dir() -> Path:
    """The folder holding the sample BFCL files."""
    return BFCL_DIR


@pytest.fixture(scope="session")
def imported(
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[[str], tuple[Path, ImportReport]]:
    """Import a sample category once per session; returns its suite folder and report."""
    done: dict[str, tuple[Path, ImportReport]] = {}

    def get(category: str) -> tuple[Path, ImportReport]:
        if category not in done:
            out = tmp_path_factory.mktemp(f"bfcl-{category}") / "suite"
            report = import_bfcl(BFCL_DIR / f"BFCL_v4_{category}.json", out)
            done[category] = (out, report)
        return done[category]

    return get


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[[str, Iterable[Any]], Path]:
    """Write rows as JSON Lines to ``tmp_path / name`` (creating folders) and return the path."""

    def write(name: str, rows: Iterable[Any]) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        return path

    return write
