"""Metrics of several runs at once (``fcbench compare`` reads two): one worker process per run.

A metrics pass is CPU-bound in one core, so two large runs read one after the other take twice as
long as either. When the runs are large enough for a worker's start-up to
be worth it and the machine has a core for each, every run gets its own process, this one
included: it reads the largest run itself while the workers read the others (so one result less
crosses between processes, and one worker less starts); otherwise they are read in this process,
in order. The results are the same either way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from fcbench.metrics.fast.partition import Parts, parts_of, usable_cpus, worker_context
from fcbench.metrics.fast.run import run_metrics
from fcbench.metrics.result import RunMetrics
from fcbench.store.records import RECORDS_FILE

PARALLEL_MIN_BYTES = 32 * 2**20
"""Records (bytes of ``records.jsonl``, all runs together) below which the runs are read in this
process: a smaller pass finishes before a worker has started."""


def _records_bytes(run_dir: Path) -> int:
    path = run_dir / RECORDS_FILE
    return path.stat().st_size if path.is_file() else 0


def worker_count(run_dirs: Sequence[Path], cpus: int | None = None) -> int:
    """Processes to read ``run_dirs`` with: one per run up to the CPUs, or 1 when they are small."""
    available = cpus if cpus is not None else usable_cpus()
    if len(run_dirs) < 2 or available < 2:
        return 1
    if sum(_records_bytes(d) for d in run_dirs) < PARALLEL_MIN_BYTES:
        return 1
    return min(len(run_dirs), available)


def runs_metrics(
    run_dirs: Sequence[Path], *, modes: Iterable[str] | None = None, profile: str = "strict", parts: Parts = 1
) -> list[RunMetrics]:
    """:func:`~fcbench.metrics.fast.run.run_metrics` of each run, in order, in parallel when it
    pays (else one after the other, each in ``parts``).

    A run that fails in a worker is read again in this process, so its error (a damaged record
    file, a missing suite) is raised here with its own type and message.
    """
    wanted = list(modes) if modes is not None else None
    workers = worker_count(run_dirs)
    if workers == 1:
        return [run_metrics(d, modes=wanted, profile=profile, parts=parts_of(d, parts)) for d in run_dirs]
    here = max(range(len(run_dirs)), key=lambda i: _records_bytes(run_dirs[i]))
    with ProcessPoolExecutor(max_workers=workers - 1, mp_context=worker_context()) as pool:
        futures = {
            i: pool.submit(run_metrics, d, modes=wanted, profile=profile)
            for i, d in enumerate(run_dirs)
            if i != here
        }
        results = []
        for i, run_dir in enumerate(run_dirs):
            if i == here:
                results.append(run_metrics(run_dir, modes=wanted, profile=profile))
                continue
            try:
                results.append(futures[i].result())
            except Exception:  # read it again here, to raise the run's own error
                results.append(run_metrics(run_dir, modes=wanted, profile=profile))
        return results


__all__ = ["PARALLEL_MIN_BYTES", "runs_metrics", "worker_count"]
