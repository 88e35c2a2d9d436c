"""The runs ``fcbench view`` serves: found under a folder, each summarised once per change of its
records file (metrics, the page's summary data, the cases and their expected behaviour)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench.errors import FcbenchError, RunStateError
from fcbench.metrics import RunMetrics
from fcbench.report.html import report_data
from fcbench.report.html_data import ObservationCollector, collect, expected_by_case
from fcbench.store.records import MANIFEST_FILE, RECORDS_FILE, Manifest, read_manifest

MAX_DEPTH = 3
"""How deep below the runs folder run directories are looked for."""
CACHED_RUNS = 16
"""Runs whose summaries are kept in memory (least recently used dropped first)."""


@dataclass(frozen=True)
class RunEntry:
    """One run directory found."""

    key: str
    """Its name in URLs: the folder's path below the runs folder (the folder's name for one run)."""
    path: Path
    """The run directory."""
    manifest: Manifest
    """Its manifest."""


@dataclass(frozen=True)
class RunSummary:
    """What the viewer computed of one run (kept until its records file changes)."""

    metrics: RunMetrics
    """The run's metrics (strict profile)."""
    collector: ObservationCollector
    """Cases, decisions and anomaly codes seen (no rows)."""
    report: dict[str, Any]
    """The page's summary data (:func:`fcbench.report.html.report_data`)."""
    stamp: tuple[int, int]
    """Size and modification time of ``records.jsonl`` when computed."""

    @property
    def several_modes(self) -> bool:
        """Whether the run reports several modes (column labels carry the mode)."""
        return bool(self.report["several_modes"])

    def pass_rate(self) -> tuple[int, int]:
        """Passes and scorable observations over every target."""
        return (
            sum(t.pass_rate.n for t in self.metrics.targets),
            sum(t.pass_rate.d for t in self.metrics.targets),
        )


def find_runs(root: Path) -> list[RunEntry]:
    """Every run directory (a folder with ``manifest.json``) at or below ``root``, newest first."""
    found: list[RunEntry] = []
    if (root / MANIFEST_FILE).is_file():
        candidates = [root]
    else:
        candidates = sorted(
            {
                p.parent
                for depth in range(1, MAX_DEPTH + 1)
                for p in root.glob("/".join(["*"] * depth) + "/" + MANIFEST_FILE)
            }
        )
    for path in candidates:
        try:
            manifest = read_manifest(path)
        except FcbenchError:
            continue
        key = path.name if path == root else path.relative_to(root).as_posix()
        found.append(RunEntry(key=key, path=path, manifest=manifest))
    found.sort(key=lambda e: (e.manifest.started_at, e.key), reverse=True)
    return found


def _stamp(path: Path) -> tuple[int, int]:
    try:
        stat = (path / RECORDS_FILE).stat()
    except OSError:
        return (0, 0)
    return (stat.st_size, stat.st_mtime_ns)


@dataclass
class RunCatalog:
    """The runs below one folder and their summaries (bounded cache, recomputed when a run changes)."""

    root: Path
    """The folder given to ``fcbench view`` (a runs folder or one run directory)."""
    cache: OrderedDict[str, RunSummary] = field(default_factory=OrderedDict)
    """Summaries by run key, least recently used first."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Held while a summary is looked up or computed (requests are served from several threads)."""

    def runs(self) -> list[RunEntry]:
        """The runs found now."""
        return find_runs(self.root)

    def entry(self, key: str) -> RunEntry:
        """The run named ``key``; :class:`RunStateError` when there is none."""
        for e in self.runs():
            if e.key == key:
                return e
        raise RunStateError(f"no run {key!r} under {self.root}")

    def summary(self, entry: RunEntry) -> RunSummary:
        """The run's summary, computed on first use and again whenever its records file changed."""
        with self.lock:
            return self._summary(entry)

    def _summary(self, entry: RunEntry) -> RunSummary:
        stamp = _stamp(entry.path)
        cached = self.cache.get(entry.key)
        if cached is not None and cached.stamp == stamp:
            self.cache.move_to_end(entry.key)
            return cached
        metrics, collector = collect(entry.path, keep_rows=False)
        for case_id, extra in expected_by_case(entry.path).items():
            if case_id in collector.cases:
                collector.cases[case_id].update(extra)
        summary = RunSummary(metrics, collector, report_data(metrics, collector, ""), stamp)
        self.cache[entry.key] = summary
        while len(self.cache) > CACHED_RUNS:
            self.cache.popitem(last=False)
        return summary
