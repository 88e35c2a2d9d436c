"""Merge shard run directories (``fcbench run --shard I/N``) into one run.

The shards must share everything pinned in the manifest except the shard itself, and together
cover every shard 1..N exactly once. The merged run's records are ordered by ``seq`` and its
manifest is the shards' manifest with ``shard`` cleared and ``planned`` summed, so it reports
exactly like an unsharded run. A shard's record line that is not JSON, or JSON that is no record,
is skipped and counted (:attr:`Merged.damaged`), never copied and never silently dropped.

A run observed by several worker processes (``fcbench run --workers N``) keeps one record stream
per worker beside its records (``workers/<W>/records.jsonl`` and its blobs, :func:`worker_stream`);
:func:`fold_worker_streams` appends what the streams hold to the run's own records and blobs when
the workers end, and again before any resume (a killed run's streams are folded, not lost), then
removes them. A record already in the run is not appended twice.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fcbench.errors import RunStateError
from fcbench.files import open_run_file, replaced_file, write_replacing
from fcbench.store.blobs import BLOBS_FILE, BlobStore, iter_blobs
from fcbench.store.lock import LOCK_FILE, held_lock
from fcbench.store.records import (
    RECORDS_FILE,
    DamagedLines,
    Manifest,
    ObservationKey,
    is_record,
    iter_record_dicts,
    read_manifest,
    record_key,
    truncate_torn_tail,
    write_manifest,
)

WORKERS_DIR = "workers"
"""The folder of a run directory that holds the worker processes' record streams while they run."""

PINNED_FIELDS = (
    "fcbench_version",
    "record_version",
    "suite",
    "dataset_version",
    "dataset_hash",
    "config_hash",
    "targets",
    "modes",
    "repeats",
    "temperature",
    "seed",
    "filters",
)


def _check_shards(manifests: Sequence[tuple[Path, Manifest]]) -> int:
    first_dir, first = manifests[0]
    for run_dir, manifest in manifests[1:]:
        for name in PINNED_FIELDS:
            if getattr(manifest, name) != getattr(first, name):
                raise RunStateError(
                    f"{run_dir}: {name} differs from {first_dir}; these are not shards of one run"
                )
    shards = []
    for run_dir, manifest in manifests:
        if not manifest.shard:
            raise RunStateError(f"{run_dir}: not a shard (run it with --shard I/N)")
        index, count = (int(x) for x in manifest.shard.split("/"))
        shards.append((index, count, run_dir))
    counts = {count for _, count, _ in shards}
    if len(counts) != 1:
        raise RunStateError(f"shards disagree on N: {sorted(counts)}")
    total = counts.pop()
    indexes = sorted(index for index, _, _ in shards)
    if indexes != list(range(1, total + 1)):
        raise RunStateError(f"shards must cover 1..{total} exactly once; got {indexes}")
    return total


def _sum_planned_by(manifests: Sequence[Manifest]) -> dict[str, dict[str, int]]:
    total: dict[str, dict[str, int]] = {}
    for manifest in manifests:
        for label, by_mode in manifest.planned_by.items():
            for mode, count in by_mode.items():
                total.setdefault(label, {})[mode] = total.get(label, {}).get(mode, 0) + count
    return total


@dataclass(frozen=True)
class Merged:
    """What a merge wrote."""

    manifest: Manifest
    """The merged run's manifest."""
    damaged: dict[Path, int] = field(default_factory=dict)
    """Shard directory -> record lines skipped as damaged (shards with none are left out)."""


def merge_runs(run_dirs: Sequence[Path], out_dir: Path) -> Merged:
    """Merge shard directories into ``out_dir``; the merged manifest and the damaged lines skipped."""
    if not run_dirs:
        raise RunStateError("give at least one shard directory")
    manifests = [(d, read_manifest(d)) for d in run_dirs]
    _check_shards(manifests)
    if out_dir.exists() and any(out_dir.iterdir()):
        raise RunStateError(f"{out_dir}: exists and is not empty")
    out_dir.mkdir(parents=True, exist_ok=True)
    first = manifests[0][1]
    run_id = out_dir.name
    lines: list[tuple[int, str]] = []
    seen: set[int] = set()
    damaged: dict[Path, int] = {}
    for run_dir, _ in manifests:
        skipped = DamagedLines()
        for data in iter_record_dicts(run_dir / RECORDS_FILE, skipped):
            if not is_record(data) or not isinstance(data.get("seq"), int) or isinstance(data["seq"], bool):
                skipped.count += 1
                continue
            if data["seq"] in seen:
                raise RunStateError(f"{run_dir}: observation seq {data['seq']} appears in two shards")
            seen.add(data["seq"])
            data["run_id"] = run_id
            lines.append((data["seq"], json.dumps(data, ensure_ascii=False, separators=(",", ":"))))
        if skipped.count:
            damaged[run_dir] = skipped.count
    lines.sort()
    write_replacing(out_dir / RECORDS_FILE, "".join(line + "\n" for _, line in lines))
    blob_ids: set[str] = set()
    with replaced_file(out_dir / BLOBS_FILE) as raw, gzip.open(raw, "wt", encoding="utf-8") as fh:
        for run_dir, _ in manifests:
            for blob in iter_blobs(run_dir / BLOBS_FILE):
                if blob["id"] not in blob_ids:
                    blob_ids.add(blob["id"])
                    fh.write(json.dumps(blob, ensure_ascii=False, separators=(",", ":")) + "\n")
    finished = [m.finished_at for _, m in manifests]
    merged = first.model_copy(
        update={
            "run_id": run_id,
            "shard": None,
            "planned": sum(m.planned for _, m in manifests),
            "planned_by": _sum_planned_by([m for _, m in manifests]),
            "started_at": min(m.started_at for _, m in manifests),
            "finished_at": None if None in finished else max(f for f in finished if f),
        }
    )
    write_manifest(out_dir, merged)
    return Merged(merged, damaged)


def _workers_root(run_dir: Path) -> Path:
    """``run_dir/workers``, refused when it is a link or not a folder (a run directory is data)."""
    root = run_dir / WORKERS_DIR
    if root.is_symlink() or (root.exists() and not root.is_dir()):
        raise RunStateError(f"{root}: not a folder of worker streams (a link or a file); remove it to resume")
    return root


def worker_stream(run_dir: Path, index: int) -> Path:
    """The folder of worker ``index``'s record stream in ``run_dir`` (made when missing, never
    through a link)."""
    stream = _workers_root(run_dir) / str(index)
    if stream.is_symlink():
        raise RunStateError(f"{stream}: a link where a worker stream belongs; remove it to resume")
    stream.mkdir(parents=True, exist_ok=True)
    return stream


@dataclass(frozen=True)
class Folded:
    """What :func:`fold_worker_streams` appended to a run."""

    records: int = 0
    """Record lines appended to the run's records."""
    duplicates: int = 0
    """Stream records left out because the run already held their observation."""
    damaged: int = 0
    """Stream lines left out as damaged (not JSON, no record, or a torn last line)."""


def _stream_folders(root: Path) -> list[Path]:
    """The worker stream folders under ``root`` (links and stray files left alone), by index."""
    if not root.is_dir():
        return []
    found = [Path(entry.path) for entry in os.scandir(root) if entry.is_dir(follow_symlinks=False)]
    return sorted(found)


def _recorded_keys_of(path: Path) -> set[ObservationKey]:
    return {record_key(data) for data in iter_record_dicts(path) if is_record(data)}


def _fold_blobs(stream: Path, run_dir: Path) -> None:
    """Append the stream's blobs the run lacks to the run's blob file (one gzip member, fsynced)."""
    source = stream / BLOBS_FILE
    if not source.exists():
        return
    known = {blob["id"] for blob in iter_blobs(run_dir / BLOBS_FILE)}
    lines = []
    for blob in iter_blobs(source):
        if blob["id"] not in known:
            known.add(blob["id"])
            lines.append(json.dumps(blob, ensure_ascii=False, separators=(",", ":")) + "\n")
    if lines:
        store = BlobStore(run_dir / BLOBS_FILE)
        try:
            store.write_durably(lines)
        finally:
            store.close()


def _fold_records(stream: Path, records: Path, known: set[ObservationKey]) -> Folded:
    """Append the stream's complete record lines whose observation ``known`` lacks, byte for byte."""
    appended = duplicates = damaged = 0
    try:
        source = open_run_file(stream / RECORDS_FILE)
    except FileNotFoundError:
        return Folded()
    truncate_torn_tail(records)
    with source, open_run_file(records, "ab") as target:
        for line in source:
            try:
                data = json.loads(line) if line.endswith(b"\n") else None
            except (ValueError, RecursionError):
                data = None
            if data is None or not is_record(data):
                damaged += 1
                continue
            key = record_key(data)
            if key in known:
                duplicates += 1
                continue
            known.add(key)
            target.write(line)
            appended += 1
        target.flush()
        os.fsync(target.fileno())
    return Folded(appended, duplicates, damaged)


def fold_worker_streams(run_dir: Path) -> Folded:
    """Append every worker stream of ``run_dir`` to its records and blobs, then remove the streams.

    Each stream is taken under its worker's lock (waiting for a worker still writing, e.g. one
    whose parent was killed), blobs first, then the records that reference them, each fsynced, so a
    crash while folding loses nothing: the stream is removed only after, and folding it again
    appends only what the run still lacks.
    """
    streams = _stream_folders(_workers_root(run_dir))
    if not streams:
        return Folded()
    records = run_dir / RECORDS_FILE
    known = _recorded_keys_of(records)
    total = Folded()
    for stream in streams:
        with held_lock(stream / LOCK_FILE, wait=True):
            _fold_blobs(stream, run_dir)
            folded = _fold_records(stream, records, known)
            for name in (RECORDS_FILE, BLOBS_FILE, LOCK_FILE):
                (stream / name).unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # a stray file the user left there: the folder stays
            stream.rmdir()
        total = Folded(
            total.records + folded.records,
            total.duplicates + folded.duplicates,
            total.damaged + folded.damaged,
        )
    with contextlib.suppress(OSError):
        (run_dir / WORKERS_DIR).rmdir()
    return total
