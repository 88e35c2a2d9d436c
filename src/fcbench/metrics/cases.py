"""The case summaries of a run, kept as compact rows and built as :class:`CaseSummary` on demand.

A run of many cases holds one summary per case x target x mode: hundreds of thousands of them.
:class:`CaseSummaries` keeps each as a :class:`CaseRow` (a small msgspec struct whose case fields
are shared by every target's row of that case) under its :class:`CaseGroup` (target and mode), and
builds the validated :class:`CaseSummary` models only when they are read as a sequence. What the
reports need from every case (the failing ones, the drifting ones, the pass counts, the JSON text)
is read from the rows directly (:meth:`CaseSummaries.rows`), and the rows travel between
processes as one MessagePack buffer of columns, one list per field (:class:`Packed`).

It is the type of :attr:`fcbench.metrics.RunMetrics.cases`: pydantic validates it from a list of
case summaries (``RunMetrics.from_json``) and serialises it as that list, so the JSON is unchanged.
"""

from __future__ import annotations

import functools
import heapq
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, overload

import msgspec
from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

from fcbench.metrics.models import ArgumentDrift, CaseSummary, Rate

MAX_PROMPT_CHARS = 600
"""A case's prompt is kept cut to this many characters."""


class CaseInfo(msgspec.Struct, frozen=True, gc=False, array_like=True):
    """What a record says about its case (one object per distinct case text, shared by the targets)."""

    category: str
    """The case's category."""
    tags: tuple[str, ...]
    """The case's tags."""
    expected_kind: str
    """What the case expects: ``tool``, ``tools``, ``text`` or ``clarification``."""
    prompt: str
    """The user prompt, cut to its first ``MAX_PROMPT_CHARS`` characters."""


def case_info(case: dict[str, Any]) -> CaseInfo:
    """The case fields of a record's ``case`` dict."""
    return CaseInfo(
        category=sys.intern(str(case.get("category", "unknown"))),
        tags=_tags(tuple(sys.intern(str(t)) for t in case.get("tags") or ())),
        expected_kind=sys.intern(str(case.get("expected_kind", "unknown"))),
        prompt=str(case.get("prompt", ""))[:MAX_PROMPT_CHARS],
    )


@functools.lru_cache(maxsize=4096)
def _tags(tags: tuple[str, ...]) -> tuple[str, ...]:
    """One tuple object per distinct tag list (cases share them)."""
    return tags


DriftRow = tuple[str, int, int, int, bool]
"""One drifting argument: ``tool.argument``, distinct values, top count, repeats, capped (see
:class:`ArgumentDrift`)."""


class CaseRow(msgspec.Struct, frozen=True, gc=False, array_like=True):
    """One case for one target and mode: the counts of a :class:`CaseSummary`, without its target."""

    case_id: str
    """The case's id in the suite."""
    info: CaseInfo
    """Category, tags, expected kind and prompt."""
    errors: int
    """Repeats lost to provider or harness errors."""
    passes: int
    """Passing scorable repeats."""
    scorable: int
    """Scorable repeats."""
    top: int
    """Scorable repeats that produced the most common normalised outcome."""
    distinct: int
    """Distinct normalised outcomes."""
    decisions: dict[str, int]
    """Scorable repeats by verdict decision, by decision."""
    reasons: dict[str, int]
    """Failure reasons with counts, most frequent first."""
    anomalies: dict[str, int]
    """Anomaly code -> accepted repeats carrying it, by code."""
    drift: tuple[DriftRow, ...] = ()
    """The arguments that drift, by name."""

    @property
    def failing(self) -> bool:
        """At least one scorable repeat failed."""
        return self.scorable > 0 and self.passes < self.scorable


class CaseGroup(msgspec.Struct, gc=False, array_like=True):
    """The case rows of one target and mode, by case id."""

    target: str
    """Target label, ``endpoint:model``."""
    mode: str
    """Mode name."""
    rows: list[CaseRow]
    """One row per case."""


_validate_case = CaseSummary.__pydantic_validator__.validate_python
_CASE_FIELDS = set(CaseSummary.model_fields)


class PackedGroup(msgspec.Struct, array_like=True, gc=False):
    """The rows of one :class:`CaseGroup` as columns, one list per field of :class:`CaseRow`; case
    infos and count tables as indexes into :class:`Packed` tables."""

    target: str
    """Target label."""
    mode: str
    """Mode name."""
    case_ids: list[str]
    """Each row's case id."""
    infos: list[int]
    """Each row's case info, as an index into :attr:`Packed.infos`."""
    errors: list[int]
    """Each row's :attr:`CaseRow.errors`."""
    passes: list[int]
    """Each row's :attr:`CaseRow.passes`."""
    scorable: list[int]
    """Each row's :attr:`CaseRow.scorable`."""
    top: list[int]
    """Each row's :attr:`CaseRow.top`."""
    distinct: list[int]
    """Each row's :attr:`CaseRow.distinct`."""
    decisions: list[int]
    """Each row's decisions, as an index into :attr:`Packed.tables`."""
    reasons: list[int]
    """Each row's reasons, as an index into :attr:`Packed.tables`."""
    anomalies: list[int]
    """Each row's anomalies, as an index into :attr:`Packed.tables`."""
    drift: list[tuple[DriftRow, ...]]
    """Each row's drift."""


class Packed(msgspec.Struct, array_like=True):
    """The rows of :class:`CaseSummaries` as they are pickled: by columns, each distinct case info
    and count table once, so the rows unpickled share them again."""

    infos: list[CaseInfo]
    """The distinct case infos."""
    tables: list[dict[str, int]]
    """The distinct count tables (decisions, reasons, anomalies)."""
    groups: list[PackedGroup]
    """The rows of each group."""


_encode_packed = msgspec.msgpack.Encoder().encode
_decode_packed = msgspec.msgpack.Decoder(Packed).decode
_encode_table = msgspec.msgpack.Encoder().encode
_decode_table = msgspec.msgpack.Decoder(dict[str, int]).decode


@functools.lru_cache(maxsize=65536)
def rate_of(n: int, d: int) -> Rate:
    """A :class:`Rate` (frozen, so one instance serves every case with the same counts)."""
    return Rate(n=n, d=d)


class CaseSummaries(Sequence[CaseSummary]):
    """A sequence of :class:`CaseSummary`, stored as :class:`CaseGroup` rows (see the module)."""

    __slots__ = ("_built", "_groups")

    def __init__(self, groups: Iterable[CaseGroup] = ()) -> None:
        self._groups = [g for g in groups if g.rows]
        self._built: list[CaseSummary] | None = None

    @classmethod
    def of_summaries(cls, summaries: Iterable[CaseSummary]) -> CaseSummaries:
        """The rows of already built summaries (in their order)."""
        groups: list[CaseGroup] = []
        for s in summaries:
            if not groups or (groups[-1].target, groups[-1].mode) != (s.target, s.mode):
                groups.append(CaseGroup(s.target, s.mode, []))
            info = CaseInfo(s.category, tuple(s.tags), s.expected_kind, s.prompt)
            drift = tuple((k, v.distinct, v.top.n, v.top.d, v.capped) for k, v in s.drift.items())
            row = CaseRow(
                s.case_id,
                info,
                s.errors,
                s.passed.n,
                s.passed.d,
                s.stability.n,
                s.distinct_outcomes,
                dict(s.decisions),
                dict(s.reasons),
                dict(s.anomalies),
                drift,
            )
            groups[-1].rows.append(row)
        return cls(groups)

    @property
    def groups(self) -> list[CaseGroup]:
        """The groups of rows (target and mode), in order; none is empty."""
        return self._groups

    def rows(self) -> Iterator[tuple[CaseGroup, CaseRow]]:
        """Every row with its group, in order."""
        for group in self._groups:
            for row in group.rows:
                yield group, row

    def __len__(self) -> int:
        return sum(len(g.rows) for g in self._groups)

    def __bool__(self) -> bool:
        return bool(self._groups)

    def __iter__(self) -> Iterator[CaseSummary]:
        return iter(self._summaries())

    @overload
    def __getitem__(self, index: int) -> CaseSummary: ...
    @overload
    def __getitem__(self, index: slice) -> list[CaseSummary]: ...
    def __getitem__(self, index: int | slice) -> CaseSummary | list[CaseSummary]:
        return self._summaries()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CaseSummaries):
            return [(g.target, g.mode, r) for g, r in self.rows()] == [
                (g.target, g.mode, r) for g, r in other.rows()
            ]
        if isinstance(other, list):
            return self._summaries() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"CaseSummaries({len(self)} cases)"

    def __reduce__(self) -> tuple[Callable[[bytes], CaseSummaries], tuple[bytes]]:
        return _unpack, (_encode_packed(_pack(self._groups)),)

    def _summaries(self) -> list[CaseSummary]:
        if self._built is None:
            self._built = [summary(g, r) for g, r in self.rows()]
        return self._built

    def select(self, keep: Callable[[CaseRow], bool]) -> list[CaseSummary]:
        """The summaries of the rows ``keep`` accepts, in order (built only for those)."""
        return [summary(g, r) for g, r in self.rows() if keep(r)]

    def worst(self, limit: int | None = None) -> tuple[int, list[CaseSummary]]:
        """How many rows have a failing repeat, and the ``limit`` worst of them (None: all), lowest
        pass rate first, then most repeats, case id, target, mode."""
        # (pass rate, -repeats, case id, target, mode, group index, row index): compared as tuples.
        failing = [
            (r.passes / r.scorable, -r.scorable, r.case_id, g.target, g.mode, i, j)
            for i, g in enumerate(self._groups)
            for j, r in enumerate(g.rows)
            if r.failing
        ]
        kept = sorted(failing) if limit is None else heapq.nsmallest(limit, failing)
        groups = self._groups
        return len(failing), [summary(groups[i], groups[i].rows[j]) for *_, i, j in kept]

    def by_case(self) -> dict[tuple[str, str], dict[str, CaseRow]]:
        """(target, mode) -> case id -> its row (:meth:`case_rows`)."""
        keys = dict.fromkeys((g.target, g.mode) for g in self._groups)
        return {key: self.case_rows(key) for key in keys}

    def case_rows(self, key: tuple[str, str]) -> dict[str, CaseRow]:
        """Case id -> its row, of (target, mode) ``key``; of several rows of one case, the last."""
        out: dict[str, CaseRow] = {}
        for g in self._groups:
            if (g.target, g.mode) == key:
                out.update((r.case_id, r) for r in g.rows)
        return out

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        summaries = handler.generate_schema(list[CaseSummary])
        from_list = core_schema.no_info_after_validator_function(cls.of_summaries, summaries)
        return core_schema.json_or_python_schema(
            json_schema=from_list,
            python_schema=core_schema.union_schema([core_schema.is_instance_schema(cls), from_list]),
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda cases: cases._summaries(), return_schema=summaries
            ),
        )


def _pack(groups: list[CaseGroup]) -> Packed:
    infos: dict[CaseInfo, int] = {}  # equal infos once
    tables: dict[bytes, int] = {}  # equal tables (their encoded text: keys and counts in order) once

    def indexes(counts: list[dict[str, int]]) -> list[int]:
        return [tables.setdefault(text, len(tables)) for text in map(_encode_table, counts)]

    packed = []
    for g in groups:
        rows = g.rows
        packed.append(
            PackedGroup(
                g.target,
                g.mode,
                [r.case_id for r in rows],
                [infos.setdefault(r.info, len(infos)) for r in rows],
                [r.errors for r in rows],
                [r.passes for r in rows],
                [r.scorable for r in rows],
                [r.top for r in rows],
                [r.distinct for r in rows],
                indexes([r.decisions for r in rows]),
                indexes([r.reasons for r in rows]),
                indexes([r.anomalies for r in rows]),
                [r.drift for r in rows],
            )
        )
    return Packed(list(infos), [_decode_table(text) for text in tables], packed)


def _unpack(data: bytes) -> CaseSummaries:
    packed = _decode_packed(data)
    infos, tables = packed.infos, packed.tables
    names: dict[str, str] = {}
    shared = names.setdefault  # one string per case id, whatever the groups holding it
    groups = []
    for g in packed.groups:
        rows = list(
            map(
                CaseRow,
                [shared(c, c) for c in g.case_ids],
                [infos[i] for i in g.infos],
                g.errors,
                g.passes,
                g.scorable,
                g.top,
                g.distinct,
                [tables[i] for i in g.decisions],
                [tables[i] for i in g.reasons],
                [tables[i] for i in g.anomalies],
                g.drift,
            )
        )
        groups.append(CaseGroup(g.target, g.mode, rows))
    return CaseSummaries(groups)


def summary(group: CaseGroup, row: CaseRow) -> CaseSummary:
    """The validated :class:`CaseSummary` of one row."""
    info = row.info
    built = _validate_case(
        {
            "target": group.target,
            "mode": group.mode,
            "case_id": row.case_id,
            "category": info.category,
            "tags": info.tags,
            "expected_kind": info.expected_kind,
            "prompt": info.prompt,
            "passed": rate_of(row.passes, row.scorable),
            "errors": row.errors,
            "decisions": row.decisions,
            "reasons": row.reasons,
            "stability": rate_of(row.top, row.scorable),
            "distinct_outcomes": row.distinct,
            "anomalies": row.anomalies,
            "drift": {
                key: ArgumentDrift(distinct=distinct, top=rate_of(n, d), capped=capped)
                for key, distinct, n, d, capped in row.drift
            },
        }
    )
    # Every field was given: one shared set says so for every summary.
    object.__setattr__(built, "__pydantic_fields_set__", _CASE_FIELDS)
    return built


__all__ = [
    "MAX_PROMPT_CHARS",
    "CaseGroup",
    "CaseInfo",
    "CaseRow",
    "CaseSummaries",
    "DriftRow",
    "case_info",
    "rate_of",
    "summary",
]
