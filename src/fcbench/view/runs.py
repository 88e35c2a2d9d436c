"""The runs ``fcbench view`` serves: found under a folder, each summarised once per change of its
records file (metrics, the page's summary data, the cases and their expected behaviour).

Every read of a run (its summary, a page of observations, raw bodies) runs in a thread of its own
and is waited for at most :attr:`RunCatalog.read_timeout_s`: a run whose records are not a regular
file, whose read fails, or whose read did not finish in time is marked unreadable (until its
records file changes) and answers :class:`UnreadableRun` at once, while the other runs keep being
served. No lock is held across a read, and :meth:`RunCatalog.close` wakes every waiting request so
that the server can stop while a read hangs (the hung thread is a daemon: it does not hold up exit).
"""

from __future__ import annotations

import gc
import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from fcbench.errors import FcbenchError, RunStateError
from fcbench.files import kind_of
from fcbench.metrics import RunMetrics, compute_metrics
from fcbench.report.html import report_data
from fcbench.report.html_data import ObservationCollector, expected_by_case, observation_row
from fcbench.store.blobs import BLOBS_FILE
from fcbench.store.index import BlobIndex, Stamp, blob_index, file_stamp, indexed_views
from fcbench.store.records import MANIFEST_FILE, RECORDS_FILE, Manifest, read_manifest
from fcbench.view.query import index_row
from fcbench.view.table import ObservationTable

MAX_DEPTH = 3
"""How deep below the runs folder run directories are looked for."""
CACHED_RUNS = 16
"""Runs whose summaries are kept in memory (least recently used dropped first)."""
READ_TIMEOUT_S = 10.0
"""How long a request waits for one read of a run before the run is marked unreadable."""

T = TypeVar("T")


class UnreadableRun(RunStateError):
    """A run cannot be read now: its records are not a regular file, its read failed or timed out,
    or the viewer is stopping. The other runs are unaffected."""


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
    stamp: Stamp
    """File type, size and modification time of ``records.jsonl`` when computed (:func:`records_stamp`)."""
    table: ObservationTable
    """Every observation as the filters and the search read it, and where its line is."""

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


TreeStamp = tuple[tuple[str, int, int], ...]
"""Modification time of each folder where a run may appear, and stamp of each manifest there."""


def tree_stamp(root: Path) -> TreeStamp:
    """The :data:`TreeStamp` of the folders at or below ``root`` down to :data:`MAX_DEPTH` (links
    not followed): a new, removed or renamed run, or a changed manifest, changes it."""
    found: list[tuple[str, int, int]] = []
    level = [root]
    for depth in range(MAX_DEPTH + 1):
        below: list[Path] = []
        for folder in level:
            manifest = file_stamp(folder / MANIFEST_FILE)
            found.append((str(folder), manifest[1], manifest[2]))
            if depth == MAX_DEPTH:
                continue
            try:
                found.append((str(folder), -1, os.lstat(folder).st_mtime_ns))
                with os.scandir(folder) as entries:
                    below += [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False)]
            except OSError:
                continue
        level = below
    return tuple(found)


def default_pair(runs: list[RunEntry]) -> tuple[str, str] | None:
    """The pair of runs the viewer compares by default: the newest run that has an older run of the
    same suite and modes, and the newest such older run, as ``(base key, new key)``; None when no two
    runs are comparable. ``runs`` are newest first (:func:`find_runs`)."""
    for i, newer in enumerate(runs):
        kind = (newer.manifest.suite, sorted(newer.manifest.modes))
        for older in runs[i + 1 :]:
            if (older.manifest.suite, sorted(older.manifest.modes)) == kind:
                return older.key, newer.key
    return None


def records_stamp(run_dir: Path) -> Stamp:
    """The stamp of the run's records file (:func:`fcbench.store.index.file_stamp`)."""
    return file_stamp(run_dir / RECORDS_FILE)


def records_problem(stamp: Stamp) -> str | None:
    """Why records of this stamp must not be opened (a link, FIFO or device could block or never end),
    or None."""
    kind = stamp[0]
    if kind in (0, stat.S_IFREG):
        return None
    return f"{RECORDS_FILE} is {kind_of(kind)}"


@dataclass
class RunCatalog:
    """The runs below one folder, their summaries (bounded cache, recomputed when a run changes) and
    the runs that cannot be read; each read time-boxed (see the module's docstring)."""

    root: Path
    """The folder given to ``fcbench view`` (a runs folder or one run directory)."""
    read_timeout_s: float = READ_TIMEOUT_S
    """How long a request waits for one read of a run before the run is marked unreadable."""
    cache: OrderedDict[str, RunSummary] = field(default_factory=OrderedDict)
    """Summaries by run key, least recently used first."""
    unreadable: dict[str, tuple[Stamp, str]] = field(default_factory=dict)
    """Runs that could not be read, by key: the records' stamp then and why (cleared when it changes)."""
    pending: dict[str, Future[Any]] = field(default_factory=dict)
    """Reads in progress by name (a run's summary is read once however many requests wait for it)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Guards the three tables above; held only to look up or update them, never across a read."""
    listing: tuple[TreeStamp, list[RunEntry]] | None = None
    """The runs found last and the :func:`tree_stamp` of the folder then."""
    blob_indexes: dict[str, BlobIndex] = field(default_factory=dict)
    """The blob index of each run whose raw bodies were asked for, by key (rebuilt when the blob
    file changed)."""
    pages: dict[str, tuple[Stamp, str]] = field(default_factory=dict)
    """Each run's page as last rendered, by key, with the records' stamp of its summary."""
    closed: bool = False
    """Set by :meth:`close`: no read starts any more."""

    def runs(self) -> list[RunEntry]:
        """The runs found now: looked for again only when a folder or a manifest changed
        (:func:`tree_stamp`)."""
        stamp = tree_stamp(self.root)
        with self.lock:
            if self.listing is not None and self.listing[0] == stamp:
                return list(self.listing[1])
        found = find_runs(self.root)
        with self.lock:
            self.listing = (stamp, found)
        return list(found)

    def entry(self, key: str) -> RunEntry:
        """The run named ``key``; :class:`RunStateError` when there is none."""
        for e in self.runs():
            if e.key == key:
                return e
        raise RunStateError(f"no run {key!r} under {self.root}")

    def summary(self, entry: RunEntry) -> RunSummary:
        """The run's summary, computed on first use and again whenever its records file changed;
        :class:`UnreadableRun` when it cannot be read."""
        return self._finish_summary(entry, self._start_summary(entry))

    def summaries(self, entries: Iterable[RunEntry]) -> dict[str, RunSummary | UnreadableRun]:
        """Each run's summary or why it cannot be read, the runs read side by side."""
        started: list[tuple[RunEntry, Future[RunSummary] | RunSummary | UnreadableRun]] = []
        for e in entries:
            try:
                started.append((e, self._start_summary(e)))
            except UnreadableRun as exc:
                started.append((e, exc))
        found: dict[str, RunSummary | UnreadableRun] = {}
        for e, step in started:
            try:
                found[e.key] = step if isinstance(step, UnreadableRun) else self._finish_summary(e, step)
            except UnreadableRun as exc:
                found[e.key] = exc
        return found

    def read(self, entry: RunEntry, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)``, a read of the run ``entry``, in a thread of its own, waited for at most
        :attr:`read_timeout_s`; :class:`UnreadableRun` when the run cannot be read."""
        stamp = self._check(entry)
        with self.lock:
            future: Future[T] = self._spawn(None, lambda: work(*args))
        return self._wait(entry, future, stamp)

    def read_all(self, work: Callable[[], T]) -> T:
        """``work()``, a read of every run (the history), once no run is known to be unreadable."""
        bad = []
        for e in self.runs():
            try:
                self._check(e)
            except UnreadableRun:
                bad.append(e.key)
        if bad:
            raise UnreadableRun(f"needs every run, and {', '.join(bad)} cannot be read")
        with self.lock:
            future: Future[T] = self._spawn(None, work)
        try:
            return future.result(timeout=self.read_timeout_s)
        except TimeoutError:
            raise UnreadableRun(f"reading the runs took longer than {self.read_timeout_s:g} s") from None

    def blob_index(self, entry: RunEntry) -> BlobIndex:
        """The run's blob index, built on first use and again when its blob file changed (call it
        inside :meth:`read`: building it reads the whole blob file)."""
        path = entry.path / BLOBS_FILE
        with self.lock:
            index = self.blob_indexes.get(entry.key)
        if index is None or not index.fresh(path):
            index = blob_index(path)
            with self.lock:
                self.blob_indexes[entry.key] = index
                while len(self.blob_indexes) > CACHED_RUNS:
                    del self.blob_indexes[next(iter(self.blob_indexes))]
        return index

    def page(self, entry: RunEntry, summary: RunSummary, render: Callable[[], str]) -> str:
        """The run's page, ``render()`` called only when its summary changed since the last call."""
        with self.lock:
            kept = self.pages.get(entry.key)
        if kept is not None and kept[0] == summary.stamp:
            return kept[1]
        html = render()
        with self.lock:
            self.pages[entry.key] = (summary.stamp, html)
            while len(self.pages) > CACHED_RUNS:
                del self.pages[next(iter(self.pages))]
        return html

    def close(self) -> None:
        """Start no more reads and wake every request waiting for one (the server is stopping)."""
        with self.lock:
            self.closed = True
            waiting = list(self.pending.values())
        for future in waiting:
            _settle(future, error=UnreadableRun("the viewer is stopping"))

    def _check(self, entry: RunEntry) -> Stamp:
        """The run's records stamp; :class:`UnreadableRun` when it is known (or seen) to be unreadable."""
        stamp = records_stamp(entry.path)
        problem = records_problem(stamp)
        with self.lock:
            if problem is not None:
                self.unreadable[entry.key] = (stamp, problem)
            known = self.unreadable.get(entry.key)
            if known is not None and known[0] != stamp:
                del self.unreadable[entry.key]
                known = None
        if known is not None:
            raise UnreadableRun(f"run {entry.key} cannot be read: {known[1]}")
        return stamp

    def _start_summary(self, entry: RunEntry) -> Future[RunSummary] | RunSummary:
        """The cached summary, or the read of it (shared with the requests already waiting for it)."""
        stamp = self._check(entry)
        with self.lock:
            cached = self.cache.get(entry.key)
            if cached is not None and cached.stamp == stamp:
                self.cache.move_to_end(entry.key)
                return cached
            name = f"summary:{entry.key}"
            future = self.pending.get(name)
            if future is None:
                future = self._spawn(name, lambda: self._store(entry, summarise(entry.path, stamp)))
            return future

    def _finish_summary(self, entry: RunEntry, step: Future[RunSummary] | RunSummary) -> RunSummary:
        """The summary read; any failure to read or check the run marks it unreadable."""
        if isinstance(step, RunSummary):
            return step
        return self._wait(entry, step, failures=(OSError, FcbenchError))

    def _store(self, entry: RunEntry, summary: RunSummary) -> RunSummary:
        with self.lock:
            self.cache[entry.key] = summary
            while len(self.cache) > CACHED_RUNS:
                self.cache.popitem(last=False)
        return summary

    def _spawn(self, name: str | None, work: Callable[[], T]) -> Future[T]:
        """Start ``work`` in a daemon thread, its future kept in :attr:`pending` under ``name`` (its
        own when None) while it runs; the caller holds the lock."""
        if self.closed:
            raise UnreadableRun("the viewer is stopping")
        future: Future[T] = Future()
        name = name or f"#{id(future)}"
        self.pending[name] = future

        def run() -> None:
            try:
                _settle(future, result=work())
            except BaseException as exc:  # handed to the waiting request, which decides
                _settle(future, error=exc)
            finally:
                with self.lock:
                    if self.pending.get(name) is future:
                        del self.pending[name]

        threading.Thread(target=run, name=f"fcbench-view-read {name}", daemon=True).start()
        return future

    def _wait(
        self,
        entry: RunEntry,
        future: Future[T],
        stamp: Stamp | None = None,
        failures: tuple[type[Exception], ...] = (OSError, RunStateError),
    ) -> T:
        """The read's result; a read that timed out or raised one of ``failures`` (by default: the
        system's refusal, or the store's of a file that is a link or no regular file) marks the run
        unreadable."""
        try:
            return future.result(timeout=self.read_timeout_s)
        except UnreadableRun:
            raise
        except TimeoutError:
            reason = f"reading it took longer than {self.read_timeout_s:g} s"
        except failures as exc:
            reason = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
        with self.lock:
            self.unreadable[entry.key] = (stamp or records_stamp(entry.path), reason)
        raise UnreadableRun(f"run {entry.key} cannot be read: {reason}") from None


def _settle(future: Future[Any], *, result: Any = None, error: BaseException | None = None) -> None:
    """Complete ``future`` unless :meth:`RunCatalog.close` already did."""
    try:
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)
    except InvalidStateError:
        pass


def summarise(run_dir: Path, stamp: Stamp) -> RunSummary:
    """Read the run: its metrics (a pass of their own), then one pass over the records for the page's
    summary data, the cases with their expected behaviour and the observation table."""
    metrics = compute_metrics(run_dir)
    several_modes = len({t.mode for t in metrics.targets}) > 1
    collector = ObservationCollector(keep_rows=False)
    table = ObservationTable()
    paused = gc.isenabled()
    gc.disable()  # many long-lived objects without cycles: nothing to collect
    try:
        for rec in indexed_views(run_dir / RECORDS_FILE, table.offsets):
            row = observation_row(rec, collector.count)
            collector.add(row, rec)
            index_row(table, row, rec, several_modes)
    finally:
        if paused:
            gc.enable()
    for case_id, extra in expected_by_case(run_dir).items():
        if case_id in collector.cases:
            collector.cases[case_id].update(extra)
    return RunSummary(metrics, collector, report_data(metrics, collector, ""), stamp, table)
