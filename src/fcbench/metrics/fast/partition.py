"""One run's metrics pass over several cores: each process folds the records of some case ids.

A pass is CPU-bound in one core. With ``parts`` processes (this one and ``parts - 1`` workers),
each reads every line of ``records.jsonl`` but decodes and folds only the records of its share
of the case ids (:class:`~fcbench.metrics.fast.lines.Share`), settles its cases, and hands back what
they add up to (:class:`~fcbench.metrics.partial.RunPart`); this process adds the parts up
(:func:`~fcbench.metrics.aggregate.finish_parts`). Every record of a case is in one part, so the
cases' counts are those of one pass, and what depends on the order of the records is taken in
the order of their lines: the metrics are the same, byte for byte.

When the parts cannot give that (:class:`~fcbench.metrics.partial.Unsplittable`: a record the
parts cannot place, a damaged record, a NaN latency) or a worker fails, :func:`fold_in_parts`
returns None and the caller reads the run in one pass, which gives the result or the error.
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.context
import os
import threading
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Literal

from fcbench.metrics.aggregate import RunAccumulator, finish_parts, needs_parity
from fcbench.metrics.fast.lines import Share, fold_lines
from fcbench.metrics.partial import RunPart, Unsplittable
from fcbench.metrics.result import RunMetrics
from fcbench.store.records import RECORDS_FILE, Manifest

SPLIT_MIN_BYTES = 96 * 2**20
"""Records (bytes of ``records.jsonl``) below which a run is read in one process: a smaller pass
finishes before the worker's share pays for reading every line."""


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity where the OS has one, else all of them)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def worker_context() -> multiprocessing.context.ForkContext | multiprocessing.context.SpawnContext:
    """How to start workers: by ``fork`` where there is one and this process runs one thread (a
    forked worker starts at once, where a spawned one imports fcbench again, about half a second),
    else by ``spawn`` (forking a process with threads may copy a held lock)."""
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def parts_for(run_dir: Path, cpus: int | None = None) -> int:
    """Processes to read one run with: one per CPU when its records are large enough, else 1."""
    available = cpus if cpus is not None else usable_cpus()
    path = run_dir / RECORDS_FILE
    if available < 2 or not path.is_file() or path.stat().st_size < SPLIT_MIN_BYTES:
        return 1
    return available


Parts = int | Literal["auto"]
"""How many processes one run's pass is split over: a number, or ``auto`` (:func:`parts_for`)."""


def parts_of(run_dir: Path, parts: Parts) -> int:
    """``parts`` as a number of processes for ``run_dir`` (``auto``: :func:`parts_for`)."""
    return parts_for(run_dir) if parts == "auto" else parts


def fold_part(run_dir: Path, wanted: set[str] | None, part: int, parts: int, parity: bool = True) -> RunPart:
    """Fold the records of ``part`` of ``parts`` (:class:`Share`) and settle them (``strict``
    profile; ``parity``: keep what stream parity compares); raises :class:`Unsplittable` when the
    parts cannot give the metrics of one pass."""
    enabled = gc.isenabled()
    gc.disable()  # a state of many long-lived objects without cycles (see compute_metrics)
    try:
        acc = RunAccumulator(parity=parity)
        read = fold_lines(acc, run_dir, wanted, Share(part, parts))
        return acc.part(read)
    finally:
        if enabled:
            gc.enable()


def _worker(
    out: Connection, run_dir: Path, wanted: set[str] | None, part: int, parts: int, parity: bool
) -> None:
    """A worker process: send ``fold_part``'s part, or None when it failed."""
    try:
        found: RunPart | None = fold_part(run_dir, wanted, part, parts, parity)
    except Exception:  # the caller reads the run in one pass, which raises what is wrong
        found = None
    out.send(found)
    out.close()


def fold_in_parts(
    run_dir: Path, manifest: Manifest, wanted: set[str] | None, parts: int, *, parity: bool = True
) -> RunMetrics | None:
    """The ``strict`` metrics of ``run_dir`` folded in ``parts`` processes (this one reads part 0),
    or None when the parts cannot give the metrics of one pass, a worker failed, or stream parity
    is reported but the parts did not keep what it compares (``parity`` False)."""
    context = worker_context()
    workers: list[tuple[Any, Connection]] = []
    try:
        for part in range(1, parts):
            receiver, sender = context.Pipe(duplex=False)
            process = context.Process(
                target=_worker, args=(sender, run_dir, wanted, part, parts, parity), daemon=True
            )
            process.start()
            sender.close()
            workers.append((process, receiver))
        try:
            found = [fold_part(run_dir, wanted, 0, parts, parity)]
        except Unsplittable:
            return None
        for _, receiver in workers:
            try:
                theirs = receiver.recv()
            except EOFError:  # the worker died
                return None
            if theirs is None:
                return None
            found.append(theirs)
        if not parity and needs_parity(manifest, wanted, (k for p in found for k in p.groups)):
            return None
        try:
            return finish_parts(manifest, found, wanted)
        except Unsplittable:
            return None
    finally:
        for process, receiver in workers:
            receiver.close()
            if process.is_alive():
                process.terminate()
            process.join()


__all__ = [
    "SPLIT_MIN_BYTES",
    "Parts",
    "fold_in_parts",
    "fold_part",
    "parts_for",
    "parts_of",
    "usable_cpus",
    "worker_context",
]
