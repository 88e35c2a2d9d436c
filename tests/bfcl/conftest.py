"""Fixtures for the BFCL import tests (``bfcl_dir`` and ``imported`` are in the root conftest).

- ``write_jsonl``: writes rows as a JSON Lines file and returns its path.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[[str, Iterable[Any]], Path]:
    """Write rows as JSON Lines to ``tmp_path / name`` (creating folders) and return the path."""

    def write(name: str, rows: Iterable[Any]) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        return path

    return write
