"""Fixtures of the viewer's tests: two runs of the same cases (``base`` and ``new``, drawn with other
seeds, so some cases flip) under one runs folder, a real ``fcbench view`` serving it, and a headless
Chromium per test module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from html_runs import chromium, running_view, scale_run

N = 2000


@pytest.fixture(scope="session")
def runs_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("view") / "runs"
    scale_run(root / "base", N, seed=7, run_id="20260101-000000-base00")
    scale_run(root / "new", N, seed=8, run_id="20260102-000000-new000")
    return root


@pytest.fixture(scope="session")
def view_url(runs_root: Path) -> Iterator[str]:
    with running_view(runs_root) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium for one test module (the module is skipped without one)."""
    with chromium() as instance:
        yield instance
