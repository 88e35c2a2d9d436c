"""The run list is looked for again only when a folder or a manifest below the runs folder changed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from html_runs import scale_run

from fcbench.store.records import MANIFEST_FILE
from fcbench.view import runs
from fcbench.view.runs import RunCatalog


def test_the_run_list_is_cached_until_a_run_appears_or_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "runs"
    scale_run(root / "team" / "a", 8, run_id="20260101-000000-aaaaaa")
    searches: list[Path] = []
    real = runs.find_runs

    def counted(path: Path) -> list[runs.RunEntry]:
        searches.append(path)
        return real(path)

    monkeypatch.setattr(runs, "find_runs", counted)
    catalog = RunCatalog(root)
    assert [e.key for e in catalog.runs()] == ["team/a"]
    assert [e.key for e in catalog.runs()] == ["team/a"] and catalog.entry("team/a").key == "team/a"
    assert len(searches) == 1

    scale_run(root / "team" / "b", 8, run_id="20260102-000000-bbbbbb")  # a new run, two levels down
    assert [e.key for e in catalog.runs()] == ["team/b", "team/a"]
    assert len(searches) == 2

    manifest = root / "team" / "a" / MANIFEST_FILE
    data = json.loads(manifest.read_text())
    data["started_at"] = "2026-01-03T00:00:00Z"
    manifest.write_text(json.dumps(data))
    os.utime(manifest, ns=(1, 1))  # even with an old time, the size changed
    assert [e.key for e in catalog.runs()] == ["team/a", "team/b"]
    assert len(searches) == 3
    catalog.runs()
    assert len(searches) == 3
