"""The runs under a folder: every directory holding a ``manifest.json``, oldest first."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fcbench.errors import FcbenchError, InputError
from fcbench.store.records import MANIFEST_FILE, RECORDS_FILE, Manifest, read_manifest


@dataclass(frozen=True)
class FoundRun:
    """One run directory and its manifest."""

    path: Path
    """The run directory."""
    manifest: Manifest
    """Its manifest."""


@dataclass(frozen=True)
class FoundRuns:
    """The runs under a folder, and the directories that were passed over."""

    runs: list[FoundRun]
    """Readable runs, sorted by start time (then run id); one per run id."""
    skipped: list[str]
    """``path: why`` for each directory with a manifest that was not taken."""


def find_runs(root: Path) -> FoundRuns:
    """Every run under ``root`` (``root`` itself included), sorted by start time; an unreadable
    manifest or a second copy of a run id is skipped and named in ``skipped``."""
    if not root.is_dir():
        raise InputError("not a folder", path=str(root))
    found: list[FoundRun] = []
    skipped: list[str] = []
    for manifest_path in sorted(root.rglob(MANIFEST_FILE)):
        try:
            found.append(FoundRun(manifest_path.parent, read_manifest(manifest_path.parent)))
        except FcbenchError as exc:
            skipped.append(str(exc))
    found.sort(key=lambda r: (r.manifest.started_at, r.manifest.run_id, str(r.path)))
    runs: list[FoundRun] = []
    ids: set[str] = set()
    for run in found:
        if run.manifest.run_id in ids:
            skipped.append(f"{run.path}: a second copy of run {run.manifest.run_id}")
            continue
        ids.add(run.manifest.run_id)
        runs.append(run)
    return FoundRuns(runs, skipped)


def records_size(run_dir: Path) -> int:
    """Size of the run's ``records.jsonl`` in bytes (0 when absent): a run read again only if it grew."""
    try:
        return (run_dir / RECORDS_FILE).stat().st_size
    except OSError:
        return 0


__all__ = ["FoundRun", "FoundRuns", "find_runs", "records_size"]
