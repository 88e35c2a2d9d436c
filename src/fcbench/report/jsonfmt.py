"""JSON report: the metrics themselves (see :class:`fcbench.metrics.RunMetrics`).

The case summaries, most of the text of a large run, are written row by row straight from their
compact rows (:class:`fcbench.metrics.cases.CaseRow`), after the rest of the metrics, which
pydantic writes: the bytes are those of :meth:`RunMetrics.to_json` with ``indent=2`` (the parts a
row shares with others, its case fields, rates and counts, are encoded once), and the whole text is
never held at once.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import msgspec

from fcbench.metrics import RunMetrics
from fcbench.metrics.cases import CaseGroup, CaseInfo, CaseRow, CaseSummaries, DriftRow, rate_of

_NO_CASES = '"cases": []\n}'
"""How the JSON of metrics without cases ends (``cases`` is the last field)."""

WRITE_ROWS = 2048
"""Case summaries written at a time."""

_ROW_FIELDS = (
    ("passed", b"%s"),
    ("errors", b"%d"),
    ("decisions", b"%s"),
    ("reasons", b"%s"),
    ("stability", b"%s"),
    ("distinct_outcomes", b"%d"),
    ("anomalies", b"%s"),
    ("drift", b"%s"),
)
"""The fields of a case summary after its case fields, in order, and how each is written."""

_FIELD = b"\n      "
"""What starts a field of a case summary (inside the ``cases`` list, inside the metrics)."""

_TAIL = b"".join(_FIELD + b'"' + name.encode() + b'": ' + kind + b"," for name, kind in _ROW_FIELDS)
_TAIL = b"," + _TAIL[:-1] + b"\n    }"
"""A case summary after its case fields: the values of :data:`_ROW_FIELDS` in order."""

REMEMBERED_TAILS = 65536
"""Distinct tails (:data:`_TAIL` filled in) remembered before starting over."""


def _nested(value: Any, indent: bytes = b"      ") -> bytes:
    """``value`` as indented JSON whose lines after the first start with ``indent``."""
    return msgspec.json.format(msgspec.json.encode(value), indent=2).replace(b"\n", b"\n" + indent)


@dataclass
class _RowWriter:
    """Encodes case summary rows as the indented JSON pydantic writes, remembering shared parts.

    The parts are remembered by the identity of their objects, which the rows keep alive; a row's
    tail (its counts) by its counts and the identity of its count tables, which cases with the
    same counts share.
    """

    encode: Any = field(default_factory=lambda: msgspec.json.Encoder().encode)
    infos: dict[int, bytes] = field(default_factory=dict)
    counts: dict[int, bytes] = field(default_factory=dict)
    rates: dict[tuple[int, int], bytes] = field(default_factory=dict)
    tails: dict[tuple[int, ...], bytes] = field(default_factory=dict)

    def rows(self, group: CaseGroup) -> Iterator[bytes]:
        """The case summaries of one group, each from ``{`` to ``}``, indented as the fourth level."""
        encode, infos, tails = self.encode, self.infos, self.tails
        head = (
            b"{" + _FIELD + b'"target": ' + encode(group.target) + b"," + _FIELD + b'"mode": '
            + encode(group.mode) + b"," + _FIELD + b'"case_id": '
        )  # fmt: skip
        for row in group.rows:
            info = infos.get(id(row.info))
            if info is None:
                info = infos[id(row.info)] = self._info(row.info)
            decisions, reasons, anomalies = row.decisions, row.reasons, row.anomalies
            key = (
                row.errors,
                row.passes,
                row.scorable,
                row.top,
                row.distinct,
                id(decisions) if decisions else 0,
                id(reasons) if reasons else 0,
                id(anomalies) if anomalies else 0,
            )
            tail = None if row.drift else tails.get(key)
            if tail is None:
                tail = self._tail(row)
                if not row.drift:
                    if len(tails) >= REMEMBERED_TAILS:
                        tails.clear()
                    tails[key] = tail
            yield head + encode(row.case_id) + info + tail

    def _tail(self, row: CaseRow) -> bytes:
        rates, counts = self.rates, self.counts
        passed = rates.get((row.passes, row.scorable)) or self._rate(row.passes, row.scorable)
        stability = rates.get((row.top, row.scorable)) or self._rate(row.top, row.scorable)
        decisions, reasons, anomalies = row.decisions, row.reasons, row.anomalies
        return _TAIL % (
            passed,
            row.errors,
            (counts.get(id(decisions)) or self._counts(decisions)) if decisions else b"{}",
            (counts.get(id(reasons)) or self._counts(reasons)) if reasons else b"{}",
            stability,
            row.distinct,
            (counts.get(id(anomalies)) or self._counts(anomalies)) if anomalies else b"{}",
            self._drift(row.drift) if row.drift else b"{}",
        )

    def _info(self, info: CaseInfo) -> bytes:
        return (
            b"," + _FIELD + b'"category": ' + self.encode(info.category)
            + b"," + _FIELD + b'"tags": ' + (_nested(info.tags) if info.tags else b"[]")
            + b"," + _FIELD + b'"expected_kind": ' + self.encode(info.expected_kind)
            + b"," + _FIELD + b'"prompt": ' + self.encode(info.prompt)
        )  # fmt: skip

    def _rate(self, n: int, d: int) -> bytes:
        found = self.rates[n, d] = _nested(rate_of(n, d).model_dump())
        return found

    def _counts(self, counts: dict[str, int]) -> bytes:
        found = self.counts[id(counts)] = _nested(counts)
        return found

    def _drift(self, drift: tuple[DriftRow, ...]) -> bytes:
        return _nested(
            {
                key: {"distinct": distinct, "top": rate_of(n, d).model_dump(), "capped": capped}
                for key, distinct, n, d, capped in drift
            }
        )


def _case_blocks(cases: CaseSummaries) -> Iterator[bytes]:
    """The case summaries, a few thousand at a time, each after four spaces, separated by commas."""
    writer = _RowWriter()
    block: list[bytes] = []
    for group in cases.groups:
        for row in writer.rows(group):
            block.append(row)
            if len(block) == WRITE_ROWS:
                yield b"    " + b",\n    ".join(block)
                block = []
    if block:
        yield b"    " + b",\n    ".join(block)


def write_json(metrics: RunMetrics, out: IO[bytes]) -> None:
    """Write the metrics to ``out`` as indented JSON and a newline, the same bytes as
    :func:`render_json`, streaming the case summaries."""
    head = metrics.model_copy(update={"cases": CaseSummaries()}).to_json(indent=2)
    if not metrics.cases or not head.endswith(_NO_CASES):
        out.write((metrics.to_json(indent=2) + "\n").encode())
        return
    out.write(head[: -len("[]\n}")].encode() + b"[\n")
    blocks = _case_blocks(metrics.cases)
    separator = b""
    while True:
        try:
            block = next(blocks, None)
        except UnicodeEncodeError:  # a lone surrogate: raise what pydantic raises on it
            metrics.to_json(indent=2)
            raise
        if block is None:
            break
        out.write(separator + block)
        separator = b",\n"
    out.write(b"\n  ]\n}\n")


def render_json(metrics: RunMetrics) -> str:
    """The metrics as indented JSON; :meth:`RunMetrics.from_json` reads it back unchanged."""
    buffer = io.BytesIO()
    write_json(metrics, buffer)
    return buffer.getvalue().decode()
