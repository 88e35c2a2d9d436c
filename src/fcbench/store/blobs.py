"""Compact, exact storage of raw exchanges: content-addressed blobs in a gzip file per run.

Tool schemas, system prompts and whole request bodies repeat across repeats, targets and cases.
Each distinct large JSON part of a record's ``raw`` is stored once as ``{"id", "value"}`` in
``blobs.jsonl.gz`` and replaced in the record by ``{"$blob": id}``; :func:`expand_blobs` restores
the exact original value (same keys, same order, same numbers).

The file is a sequence of gzip members, one per written batch, so appending never rewrites
earlier data; a member torn by a crash is cut off when the store is reopened.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from fcbench.contract.json_text import compact_json
from fcbench.files import open_run_file

BLOBS_FILE = "blobs.jsonl.gz"
BLOB_KEY = "$blob"
BLOB_MIN_BYTES = 200
"""Raw JSON parts at least this long (serialised) are stored once per run and referenced."""


def _dumps(value: Any) -> str:
    return compact_json(value).decode()  # json.dumps's compact text, byte for byte


def _complete_members(data: bytes) -> tuple[int, list[bytes]]:
    """Length of the prefix made of complete gzip members, and their decompressed contents."""
    offset = 0
    members = []
    while offset < len(data):
        decoder = zlib.decompressobj(wbits=31)
        try:
            content = decoder.decompress(data[offset:])
        except zlib.error:
            break
        if not decoder.eof:
            break
        members.append(content)
        offset = len(data) - len(decoder.unused_data)
    return offset, members


def _blob_lines(content: bytes) -> Iterator[dict[str, Any]]:
    """The blobs of one member's lines; a line that is not a blob (damaged by hand or disk) is skipped."""
    for line in content.splitlines():
        try:
            blob = json.loads(line) if line.strip() else None
        except ValueError:
            continue
        if isinstance(blob, dict) and isinstance(blob.get("id"), str) and "value" in blob:
            yield blob


READ_CHUNK_BYTES = 1 << 20
"""How much of a blob file a reader takes at a time."""


def _stream_members(fh: IO[bytes]) -> Iterator[bytes]:
    """The decompressed content of each complete gzip member of ``fh``, one at a time (memory holds
    one member, not the file); a torn or damaged member ends the stream, as in :func:`_complete_members`."""
    decoder = zlib.decompressobj(wbits=31)
    parts: list[bytes] = []
    while chunk := fh.read(READ_CHUNK_BYTES):
        while chunk:
            try:
                parts.append(decoder.decompress(chunk))
            except zlib.error:
                return
            if not decoder.eof:
                break
            yield b"".join(parts)
            parts, chunk = [], decoder.unused_data
            decoder = zlib.decompressobj(wbits=31)


def iter_blobs(path: Path) -> Iterator[dict[str, Any]]:
    """Every complete blob line of a blob file, read member by member (a torn last member and damaged
    lines are ignored)."""
    try:
        fh = open_run_file(path)
    except FileNotFoundError:
        return
    with fh:
        for content in _stream_members(fh):
            yield from _blob_lines(content)


def load_blobs(run_dir: Path) -> dict[str, Any]:
    """Every blob of a run, by id (for :func:`expand_blobs`)."""
    return {blob["id"]: blob["value"] for blob in iter_blobs(run_dir / BLOBS_FILE)}


def blob_refs(value: Any) -> set[str]:
    """Ids of every blob ``value`` references directly (not through other blobs)."""
    if isinstance(value, dict):
        if len(value) == 1 and isinstance(value.get(BLOB_KEY), str):
            return {value[BLOB_KEY]}
        return set().union(*(blob_refs(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(blob_refs(v) for v in value)) if value else set()
    return set()


def load_blob_closure(run_dir: Path, values: list[Any]) -> dict[str, Any]:
    """Only the blobs needed to expand ``values`` (memory bounded by them, not by the run's size)."""
    wanted = set().union(*(blob_refs(v) for v in values)) if values else set()
    loaded: dict[str, Any] = {}
    while wanted:
        found = {b["id"]: b["value"] for b in iter_blobs(run_dir / BLOBS_FILE) if b["id"] in wanted}
        if not found:
            break
        loaded.update(found)
        wanted = set().union(*(blob_refs(v) for v in found.values())) - set(loaded)
    return loaded


def expand_blobs(value: Any, blobs: dict[str, Any]) -> Any:
    """Replace every ``{"$blob": id}`` reference in ``value`` by the stored value, recursively."""
    if isinstance(value, dict):
        if len(value) == 1 and BLOB_KEY in value and value[BLOB_KEY] in blobs:
            return expand_blobs(blobs[value[BLOB_KEY]], blobs)
        return {k: expand_blobs(v, blobs) for k, v in value.items()}
    if isinstance(value, list):
        return [expand_blobs(v, blobs) for v in value]
    return value


class DurableAppender:
    """A file appended to in batches: :meth:`sync` writes what is queued, then flushes and fsyncs.

    Queuing and writing are two steps (:meth:`take_pending`, then :meth:`write_durably`), so a
    caller may hand a taken batch to another thread and keep queuing meanwhile."""

    _file: IO[Any]
    _pending: list[str]

    def take_pending(self) -> list[str]:
        """The queued lines, leaving the queue empty."""
        taken, self._pending = self._pending, []
        return taken

    def _encode(self, lines: list[str]) -> bytes | str:
        """What the file receives for ``lines``."""
        return "".join(lines)

    def write_durably(self, lines: list[str]) -> None:
        """Write ``lines``, then flush and fsync so they survive a crash."""
        if lines:
            self._file.write(self._encode(lines))
        self._file.flush()
        os.fsync(self._file.fileno())

    def sync(self) -> None:
        """Write what is queued, then flush and fsync so it survives a crash."""
        self.write_durably(self.take_pending())

    def close(self) -> None:
        """Sync and close (closing twice is harmless)."""
        if not self._file.closed:
            self.sync()
            self._file.close()


class BlobStore(DurableAppender):
    """Appends new blobs to a run's blob file; knows every blob already stored."""

    def __init__(self, path: Path, min_bytes: int = BLOB_MIN_BYTES) -> None:
        self._path = path
        self._min_bytes = min_bytes
        self._file = open_run_file(path, "a+b")  # a link or a special file is refused before any write
        self._file.seek(0)
        data = self._file.read()
        end, members = _complete_members(data)
        if end < len(data):
            self._file.truncate(end)
        self._known = {blob["id"] for content in members for blob in _blob_lines(content)}
        self._pending: list[str] = []

    def compact(self, value: Any) -> Any:
        """``value`` with every large dict or list replaced by a reference to a stored blob."""
        if not isinstance(value, dict | list):
            return value
        text = _dumps(value)
        if len(text) < self._min_bytes:
            return value
        blob_id = hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]
        if blob_id not in self._known:
            inner = (
                {k: self.compact(v) for k, v in value.items()}
                if isinstance(value, dict)
                else [self.compact(v) for v in value]
            )
            self._pending.append(_dumps({"id": blob_id, "value": inner}) + "\n")
            self._known.add(blob_id)
        return {BLOB_KEY: blob_id}

    def store_text(self, text: str) -> str:
        """Store a text as a blob (once per run); its id. UnicodeEncodeError when it is not UTF-8
        (a lone surrogate)."""
        line = _dumps(text)
        blob_id = hashlib.sha256(line.encode("utf-8")).hexdigest()[:20]
        if blob_id not in self._known:
            self._pending.append(_dumps({"id": blob_id, "value": text}) + "\n")
            self._known.add(blob_id)
        return blob_id

    def compact_raw(self, raw: dict[str, Any]) -> dict[str, Any]:
        """A record's ``raw`` with its request, response and attempts compacted separately."""
        return {key: self.compact(value) for key, value in raw.items()}

    def _encode(self, lines: list[str]) -> bytes:
        """The blobs of one batch as one gzip member."""
        return gzip.compress("".join(lines).encode("utf-8"), compresslevel=6)
