"""Where things are in a run's files, found in one pass per version of a file, so that one
observation is read with a few seeks instead of a pass over the run.

* :class:`RecordOffsets`: the byte range of every record line of ``records.jsonl``, numbered as
  every reader numbers observations (their position among the file's records: lines that are no
  record are skipped, a torn last line ends the file, as in :func:`fcbench.store.view.iter_views`).
* :class:`BlobIndex`: for every blob of ``blobs.jsonl.gz``, the gzip member holding it and the
  line within the member's content; loading a blob reads and inflates that one member.

Each index carries the :func:`file_stamp` (type, size, modification time) of the file it was built
from and covers the file up to that size only, so a file that grows while it is read (a run in
progress) is indexed consistently; a reader compares :meth:`RecordOffsets.fresh` /
:meth:`BlobIndex.fresh` with the file's stamp now and builds a new index when it changed. The
files are data from someone else: they are opened without following links
(:func:`fcbench.files.open_run_file`), every read is bounded by the recorded length, and a line or
member that does not hold what the index says is treated as absent, never trusted.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import msgspec

from fcbench.files import open_run_file
from fcbench.store.blobs import READ_CHUNK_BYTES, blob_refs
from fcbench.store.view import BLOCK_BYTES, RecordView, read_view

Stamp = tuple[int, int, int]
"""File type bits, size and modification time (ns) of a file, the link itself never followed;
``(0, 0, 0)`` while there is no file."""


def file_stamp(path: Path) -> Stamp:
    """The :data:`Stamp` of ``path`` now."""
    try:
        st = os.lstat(path)
    except OSError:
        return (0, 0, 0)
    return (stat.S_IFMT(st.st_mode), st.st_size, st.st_mtime_ns)


def _regular(stamp: Stamp) -> bool:
    return stamp[0] == stat.S_IFREG


@dataclass
class StampedIndex:
    """An index of one file, valid while the file keeps the stamp it had when the index was built."""

    stamp: Stamp = (0, 0, 0)
    """The file's stamp when the index was built (a record index covers ``stamp[1]`` bytes)."""

    def fresh(self, path: Path) -> bool:
        """Whether the file is still the one indexed."""
        return file_stamp(path) == self.stamp


@dataclass
class RecordOffsets(StampedIndex):
    """The byte range of every record line of one ``records.jsonl``, by observation number."""

    starts: array[int] = field(default_factory=lambda: array("q"))
    """Where observation ``n``'s line starts."""
    lengths: array[int] = field(default_factory=lambda: array("q"))
    """How long it is, without its newline."""

    def __len__(self) -> int:
        return len(self.starts)

    def line(self, fh: IO[bytes], n: int) -> bytes | None:
        """Observation ``n``'s line read from the open file ``fh`` (one seek, one bounded read)."""
        if not 0 <= n < len(self.starts):
            return None
        fh.seek(self.starts[n])
        return fh.read(self.lengths[n])

    def views(self, path: Path, numbers: Iterable[int]) -> dict[int, RecordView]:
        """The records numbered ``numbers`` (those that are no longer a record left out), the file
        opened once."""
        found: dict[int, RecordView] = {}
        with open_run_file(path) as fh:
            for n in sorted(set(numbers)):
                line = self.line(fh, n)
                view = read_view(line, False) if line else None
                if view is not None:
                    found[n] = view
        return found

    def view(self, path: Path, n: int) -> RecordView | None:
        """Record number ``n``, or None."""
        return self.views(path, [n]).get(n) if 0 <= n < len(self.starts) else None


def indexed_views(path: Path, offsets: RecordOffsets) -> Iterator[RecordView]:
    """Every record of ``records.jsonl`` as a view, in file order, each one's byte range appended to
    ``offsets`` (whose stamp is set first: the file is read up to that size only)."""
    offsets.stamp = stamp = file_stamp(path)
    if not _regular(stamp):
        if stamp[0]:
            open_run_file(path).close()  # refused with the store's own error, naming the file
        return
    with open_run_file(path) as fh:
        left, position, rest = stamp[1], 0, b""
        while left > 0 and (block := fh.read(min(BLOCK_BYTES, left))):
            left -= len(block)
            lines = (rest + block).split(b"\n")
            rest = lines.pop()
            for line in lines:
                view = read_view(line, False)
                if view is not None:
                    offsets.starts.append(position)
                    offsets.lengths.append(len(line))
                    yield view
                position += len(line) + 1


def record_offsets(path: Path) -> RecordOffsets:
    """The offsets of every record of ``records.jsonl`` (one pass)."""
    offsets = RecordOffsets()
    for _ in indexed_views(path, offsets):
        pass
    return offsets


class _BlobId(msgspec.Struct):
    """What the index reads of a blob line: its id (the value must be there, unread)."""

    id: str
    value: msgspec.Raw


_read_blob_id = msgspec.json.Decoder(_BlobId).decode


def _blob_key(blob_id: str) -> int:
    """A 63-bit key of a blob id (the ids are text from the file: hashed, never parsed)."""
    return (
        int.from_bytes(hashlib.blake2b(blob_id.encode("utf-8", "surrogatepass"), digest_size=8).digest()) >> 1
    )


@dataclass
class BlobIndex(StampedIndex):
    """Where each blob of one ``blobs.jsonl.gz`` is: its member and its line within the member."""

    member_starts: array[int] = field(default_factory=lambda: array("q"))
    """Byte offset of each complete gzip member in the file."""
    member_lengths: array[int] = field(default_factory=lambda: array("q"))
    """Its compressed length."""
    keys: array[int] = field(default_factory=lambda: array("q"))
    """:func:`_blob_key` of each blob, sorted (a lookup bisects)."""
    members: array[int] = field(default_factory=lambda: array("q"))
    """Member number of the blob of the same position in :attr:`keys`."""
    line_starts: array[int] = field(default_factory=lambda: array("q"))
    """Where its line starts in the member's inflated content."""
    line_lengths: array[int] = field(default_factory=lambda: array("q"))
    """Its line's length."""

    def __len__(self) -> int:
        return len(self.keys)

    def _positions(self, blob_id: str) -> Iterator[int]:
        key = _blob_key(blob_id)
        i = bisect_left(self.keys, key)
        while i < len(self.keys) and self.keys[i] == key:
            yield i
            i += 1

    def load(self, path: Path, ids: Iterable[str]) -> dict[str, Any]:
        """The blobs ``ids`` by id (ids the file does not hold left out), the file opened once."""
        with open_run_file(path) as fh:
            return self._load(fh, ids, {})

    def _load(self, fh: IO[bytes], ids: Iterable[str], inflated: dict[int, bytes]) -> dict[str, Any]:
        """The blobs ``ids`` read from ``fh``, each member needed inflated once (kept in ``inflated``)."""
        found: dict[str, Any] = {}
        for blob_id in ids:
            for i in self._positions(blob_id):
                member = self.members[i]
                if member not in inflated:
                    inflated[member] = self._inflate(fh, member)
                start = self.line_starts[i]
                value = _blob_value(inflated[member][start : start + self.line_lengths[i]], blob_id)
                if value is not _ABSENT:
                    found[blob_id] = value
                    break
        return found

    def _inflate(self, fh: IO[bytes], member: int) -> bytes:
        """The content of member ``member`` (empty when the bytes there no longer inflate)."""
        fh.seek(self.member_starts[member])
        try:
            return zlib.decompressobj(wbits=31).decompress(fh.read(self.member_lengths[member]))
        except zlib.error:
            return b""

    def closure(self, path: Path, values: list[Any]) -> dict[str, Any]:
        """The blobs needed to expand ``values``, following references inside blobs
        (:func:`fcbench.store.blobs.load_blob_closure` through the index), the file opened once."""
        wanted = set().union(*(blob_refs(v) for v in values)) if values else set()
        loaded: dict[str, Any] = {}
        inflated: dict[int, bytes] = {}
        with open_run_file(path) as fh:
            while wanted:
                found = self._load(fh, sorted(wanted), inflated)
                loaded.update(found)
                wanted = (
                    set().union(*(blob_refs(v) for v in found.values())) - set(loaded) if found else set()
                )
        return loaded


_ABSENT = object()


def _blob_value(line: bytes, blob_id: str) -> Any:
    """The value of the blob line ``line`` when it is the blob ``blob_id``, else :data:`_ABSENT`."""
    try:
        blob = json.loads(line)
    except (ValueError, RecursionError):
        return _ABSENT
    if isinstance(blob, dict) and blob.get("id") == blob_id and "value" in blob:
        return blob["value"]
    return _ABSENT


def _members(fh: IO[bytes], size: int) -> Iterator[tuple[int, int, bytes]]:
    """(offset, compressed length, content) of each complete gzip member in the first ``size``
    bytes of ``fh``; a torn or damaged member ends them."""
    offset, buffer = 0, b""
    decoder, parts = zlib.decompressobj(wbits=31), []
    consumed = 0
    while offset + consumed < size:
        chunk = buffer or fh.read(min(READ_CHUNK_BYTES, size - offset - consumed))
        buffer = b""
        if not chunk:
            return
        try:
            parts.append(decoder.decompress(chunk))
        except zlib.error:
            return
        if not decoder.eof:
            consumed += len(chunk)
            continue
        length = consumed + len(chunk) - len(decoder.unused_data)
        yield offset, length, b"".join(parts)
        offset, consumed, buffer = offset + length, 0, decoder.unused_data
        decoder, parts = zlib.decompressobj(wbits=31), []


def blob_index(path: Path) -> BlobIndex:
    """The index of ``blobs.jsonl.gz`` (one pass; an empty index while there is no such file)."""
    index = BlobIndex(stamp=file_stamp(path))
    if not _regular(index.stamp):
        if index.stamp[0]:
            open_run_file(path).close()  # refused with the store's own error, naming the file
        return index
    entries: list[tuple[int, int, int, int]] = []
    with open_run_file(path) as fh:
        for member, (offset, length, content) in enumerate(_members(fh, index.stamp[1])):
            index.member_starts.append(offset)
            index.member_lengths.append(length)
            position = 0
            for line in content.split(b"\n"):
                with contextlib.suppress(msgspec.DecodeError, RecursionError, ValueError):
                    entries.append((_blob_key(_read_blob_id(line).id), member, position, len(line)))
                position += len(line) + 1
    entries.sort()
    for key, member, start, length in entries:
        index.keys.append(key)
        index.members.append(member)
        index.line_starts.append(start)
        index.line_lengths.append(length)
    return index


__all__ = [
    "BlobIndex",
    "RecordOffsets",
    "Stamp",
    "StampedIndex",
    "blob_index",
    "file_stamp",
    "indexed_views",
    "record_offsets",
]
