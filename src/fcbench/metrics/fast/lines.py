"""Fold the lines of ``records.jsonl`` into a :class:`~fcbench.metrics.aggregate.RunAccumulator`: all
of them, or the share of one part of the pass (:class:`Share`: the records of some case ids).

Each line is read straight into a :class:`~fcbench.store.view.RecordView`; a line the decoder
refuses is read by :func:`json.loads`, as the record dicts were, and decides (skipped when it is
not JSON, a clear error when it is not a record).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import compress
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fcbench.errors import RunStateError
from fcbench.metrics.aggregate import RunAccumulator, Undecodable
from fcbench.metrics.partial import Unsplittable
from fcbench.store.records import RECORDS_FILE, DamagedLines, Record, is_record
from fcbench.store.view import (
    DECODE_ERRORS,
    DECODER,
    NULL,
    RecordView,
    complete_lines,
    readable_line,
    view_of,
)

Regrade = Callable[[RecordView], RecordView]
"""A record's view with its verdict re-graded (:func:`fcbench.store.view.regraded` of one view)."""

_CASE_KEY = b'"case_id":"'


@dataclass(frozen=True, slots=True)
class Share:
    """The records of one part of a pass: those whose case id falls in ``part`` of ``parts``.

    Each part reads every line and folds the records of its case ids, so every record of a case
    is folded in one part. Which part a line belongs to is found from its bytes (:meth:`owns`:
    the text of the first ``"case_id":"`` string), without decoding it; the part that folds the
    record checks its decoded case id (:meth:`holds`), and a record found in the wrong part
    (the case id written with escapes, a nested ``case_id`` key first) stops the parts:
    :class:`~fcbench.metrics.partial.Unsplittable`.
    """

    part: int
    """This part, from 0."""
    parts: int
    """How many parts the records are split into."""

    def owns(self, lines: list[bytes]) -> list[bool]:
        """Whether each line is this part's to read: by the text of its first ``"case_id":"``
        string (a line with none is part 0's)."""
        find, crc, parts, part = bytes.find, zlib.crc32, self.parts, self.part
        out = []
        for line in lines:
            start = find(line, _CASE_KEY)
            if start < 0:
                out.append(part == 0)
                continue
            start += len(_CASE_KEY)
            out.append(crc(line[start : find(line, b'"', start)]) % parts == part)
        return out

    def holds(self, case_id: Any) -> bool:
        """Whether the records of ``case_id`` are this part's (the bytes :meth:`owns` reads)."""
        if not isinstance(case_id, str):
            return False
        try:
            text = case_id.encode()
        except UnicodeEncodeError:
            return False
        return zlib.crc32(text) % self.parts == self.part


def fold_lines(
    acc: RunAccumulator,
    run_dir: Path,
    wanted: set[str] | None = None,
    share: Share | None = None,
    each: Regrade | None = None,
) -> int:
    """Fold every record line of ``run_dir`` (of the ``wanted`` modes; None: all) into ``acc``, read
    straight from the lines as :func:`fcbench.metrics.compute_metrics` does for the ``strict``
    profile; returns how many lines were JSON (``records_read``). With a ``share``, only the lines
    of its part, each record's order index still its line number in the whole file. ``each``
    (re-grading, observing) is given every view of a wanted mode before it is folded. Lines that
    are not JSON and a torn last line are counted in ``acc.damaged`` (the torn line by part 0 alone:
    every part reads it)."""
    torn = DamagedLines()
    read = 0
    seen = 0  # lines before this block
    decode = DECODER.decode
    add = acc.add
    for lines, readable in complete_lines(run_dir / RECORDS_FILE, torn):
        numbers = range(seen + 1, seen + len(lines) + 1)
        seen += len(lines)
        if share is None:
            numbered: Iterable[tuple[int, bytes]] = zip(numbers, lines, strict=True)
        else:
            mine = share.owns(lines)
            numbered = zip(compress(numbers, mine), compress(lines, mine), strict=True)
        for number, line in numbered:
            acc.line = number
            view = None
            if readable or readable_line(line):
                try:
                    view = decode(line)
                    if view.elided is not NULL:
                        view = view.restored()
                except DECODE_ERRORS:  # json.loads decides, below
                    view = None
            if view is not None and (wanted is None or view.mode in wanted):
                if share is not None and not share.holds(view.case_id):
                    raise Unsplittable(f"line {number}: case id {view.case_id!r} found in another part")
                read += 1
                try:
                    add(view if each is None else each(view))
                    continue
                except Undecodable:
                    read -= 1
                except (AttributeError, KeyError, TypeError, ValueError):
                    if share is not None:
                        raise Unsplittable(f"line {number} is not a valid record") from None
                    error = bad_record(run_dir, read, json.loads(line))
                    if error is None:
                        raise
                    raise error from None
            elif view is not None:
                read += 1  # a record of a mode not asked for
                continue
            try:  # the line as the record dicts were read: json.loads decides
                rec = json.loads(line)
            except (ValueError, RecursionError):
                acc.damaged += 1
                continue
            read += 1
            if share is not None and not (is_record(rec) and share.holds(view_of(rec).case_id)):
                raise Unsplittable(f"line {number}: a record another part may hold, or not a record")
            fold_record(acc, rec, run_dir, read, wanted, each)
    if share is None or share.part == 0:
        acc.damaged += torn.count
    return read


def fold_record(
    acc: RunAccumulator,
    rec: Any,
    run_dir: Path,
    number: int,
    wanted: set[str] | None,
    each: Regrade | None,
) -> None:
    """Check record ``number`` (a decoded line) and fold it into ``acc``: a clear error when it is
    not a record."""
    if not is_record(rec):
        raise bad_record(run_dir, number, rec) or RunStateError(
            f"{run_dir / RECORDS_FILE}: record {number} is not a valid record"
        )
    try:
        view = view_of(rec)
        if wanted is not None and view.mode not in wanted:
            return
        acc.add(view if each is None else each(view))
    except (AttributeError, KeyError, TypeError, ValueError):
        error = bad_record(run_dir, number, rec)
        if error is None:
            raise
        raise error from None


def bad_record(run_dir: Path, number: int, rec: Any) -> RunStateError | None:
    """A clear error when record ``number`` is not a record at all; None when it is (a real bug)."""
    try:
        Record.model_validate(rec)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        return RunStateError(
            f"{run_dir / RECORDS_FILE}: record {number} is not a valid record: {where}: {first['msg']}"
        )
    return None
