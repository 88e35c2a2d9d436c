"""Record and manifest models, the append-only record writer and a tolerant reader.

A run directory holds ``manifest.json`` and ``records.jsonl`` (one :class:`Record` per line,
appended, flushed and fsynced in small batches). The reader tolerates a torn last line left by a
killed process and reports it instead of failing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fcbench.blobs import BLOBS_FILE, BlobStore
from fcbench.errors import RunStateError

RECORD_VERSION = "1"
RECORDS_FILE = "records.jsonl"
MANIFEST_FILE = "manifest.json"

Mode = Literal["selection", "forced", "recovery", "compat", "stream"]


class TargetRef(BaseModel):
    """Which endpoint, dialect and model produced an observation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    endpoint: str
    dialect: str
    model: str

    @property
    def label(self) -> str:
        """``endpoint:model``, the form used on the command line and in reports."""
        return f"{self.endpoint}:{self.model}"


class CaseRef(BaseModel):
    """What the metrics need to know about the case without reloading the suite."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    category: str
    tags: list[str] = Field(default_factory=list)
    expected_kind: str
    prompt: str = ""


class Record(BaseModel):
    """One observation: target x case x repeat x mode, with everything needed to re-grade it."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    seq: int
    """Position in the plan (stable across resume and shards)."""
    started_at: str
    dataset_version: str
    target: TargetRef
    case_id: str
    case: CaseRef
    repeat: int
    mode: Mode
    outcome: dict[str, Any]
    """The canonical outcome (DESIGN.md Outcome shape)."""
    anomalies: list[dict[str, Any]] = Field(default_factory=list)
    verdict: dict[str, Any] | None = None
    latency_ms: float | None = None
    usage: dict[str, Any] = Field(default_factory=dict)
    cost_usd: float | None = None
    attempts: int = 1
    schema_changes: list[dict[str, Any]] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    """Semantics the adapter could not map exactly (e.g. a tool_choice the dialect lacks)."""
    turns: list[dict[str, Any]] = Field(default_factory=list)
    """Multi-turn modes: every turn's outcome and the tool results sent back."""
    raw: dict[str, Any] = Field(default_factory=dict)
    """Redacted raw exchange: ``{"request": ..., "response": ...}`` (or a list of exchanges)."""
    error: str | None = None
    """Harness error text, when the harness itself failed."""

    @property
    def key(self) -> tuple[str, str, int, str]:
        """Identity of the observation in the plan: (target label, case id, repeat, mode)."""
        return (self.target.label, self.case_id, self.repeat, self.mode)


class Manifest(BaseModel):
    """Everything pinned for a run so two runs can be compared honestly."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    fcbench_version: str
    record_version: str = RECORD_VERSION
    suite: str
    suite_ref: str = ""
    """What loads the suite again: a built-in suite name or the suite folder's absolute path."""
    dataset_version: str
    dataset_hash: str
    config_hash: str
    targets: list[dict[str, Any]]
    """One entry per target: endpoint, dialect, base_url, model."""
    modes: list[str]
    repeats: int
    temperature: float | None
    seed: int
    planned: int
    planned_by: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Planned observations per target label and mode (modes apply to different cases)."""
    shard: str | None = None
    started_at: str
    finished_at: str | None = None
    filters: dict[str, Any] = Field(default_factory=dict)


def write_manifest(run_dir: Path, manifest: Manifest) -> None:
    """Write ``manifest.json`` atomically (write to a temporary file, then rename)."""
    tmp = run_dir / (MANIFEST_FILE + ".tmp")
    tmp.write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, run_dir / MANIFEST_FILE)


def read_manifest(run_dir: Path) -> Manifest:
    """Read ``manifest.json`` of a run directory, with a clear error if it is missing or invalid."""
    path = run_dir / MANIFEST_FILE
    if not path.is_file():
        raise RunStateError(f"{run_dir}: not a run directory (no {MANIFEST_FILE})")
    try:
        return Manifest.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        raise RunStateError(f"{path}: invalid manifest: {where}: {first['msg']}") from exc


class RecordWriter:
    """Appends records to ``records.jsonl`` in small batches, each flushed and fsynced.

    Raw exchanges are compacted through a :class:`~fcbench.blobs.BlobStore` beside the records.
    A batch is written when it holds ``batch`` records or its oldest record waited ``max_wait_s``:
    blobs first (fsynced), then the records that reference them, so a crash loses at most the
    observations of the unwritten batch, which a resumed run observes again.
    """

    def __init__(self, path: Path, batch: int = 32, max_wait_s: float = 1.0) -> None:
        self._path = path
        self._batch = batch
        self._max_wait_s = max_wait_s
        self._pending: list[str] = []
        self._oldest = 0.0
        truncate_torn_tail(path)
        self._blobs = BlobStore(path.with_name(BLOBS_FILE))
        self._file = path.open("a", encoding="utf-8")

    def append(self, record: Record) -> None:
        """Queue one record (its raw exchange compacted); write the batch when it is due."""
        if record.raw:
            record = record.model_copy(update={"raw": self._blobs.compact_raw(record.raw)})
        if not self._pending:
            self._oldest = time.monotonic()
        self._pending.append(record.model_dump_json() + "\n")
        if len(self._pending) >= self._batch or time.monotonic() - self._oldest >= self._max_wait_s:
            self.sync()

    def sync(self) -> None:
        """Write, flush and fsync the queued blobs, then the queued records."""
        self._blobs.sync()
        if self._pending:
            self._file.writelines(self._pending)
            self._pending.clear()
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        """Sync and close the files."""
        if not self._file.closed:
            self.sync()
            self._file.close()
            self._blobs.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def truncate_torn_tail(path: Path) -> None:
    """Drop a torn (unterminated) last line so appended records start on a fresh line."""
    if not path.exists():
        return
    with path.open("rb+") as fh:
        size = fh.seek(0, os.SEEK_END)
        if size == 0:
            return
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return
        pos = size - 1
        while pos > 0:
            step = min(4096, pos)
            fh.seek(pos - step)
            chunk = fh.read(step)
            idx = chunk.rfind(b"\n")
            if idx >= 0:
                fh.truncate(pos - step + idx + 1)
                return
            pos -= step
        fh.truncate(0)


def iter_record_dicts(path: Path) -> Iterator[dict[str, Any]]:
    """Yield each complete record line as a dict; a torn or corrupt last line is skipped."""
    if not path.exists():
        return
    with path.open("rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                return
            try:
                yield json.loads(raw)
            except (ValueError, RecursionError):
                continue


def iter_records(path: Path) -> Iterator[Record]:
    """Yield each complete record as a :class:`Record`."""
    for data in iter_record_dicts(path):
        yield Record.model_validate(data)
