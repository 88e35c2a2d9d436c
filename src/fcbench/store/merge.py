"""Merge shard run directories (``fcbench run --shard I/N``) into one run.

The shards must share everything pinned in the manifest except the shard itself, and together
cover every shard 1..N exactly once. The merged run's records are ordered by ``seq`` and its
manifest is the shards' manifest with ``shard`` cleared and ``planned`` summed, so it reports
exactly like an unsharded run. A shard's record line that is not JSON, or JSON that is no record,
is skipped and counted (:attr:`Merged.damaged`), never copied and never silently dropped.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fcbench.errors import RunStateError
from fcbench.files import replaced_file, write_replacing
from fcbench.store.blobs import BLOBS_FILE, iter_blobs
from fcbench.store.records import (
    RECORDS_FILE,
    DamagedLines,
    Manifest,
    is_record,
    iter_record_dicts,
    read_manifest,
    write_manifest,
)

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
