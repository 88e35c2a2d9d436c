"""What one part of a run's records adds up to, in a form two parts add up in.

A metrics pass may fold a run's records in parts (:mod:`fcbench.metrics.fast.partition`: every record
of a case in the same part). Each part settles its cases into a :class:`CaseTotals` (the integer
counts of :class:`CaseCounts`, the case summary rows, and the order its cases were first met in)
beside its :class:`~fcbench.metrics.state.GroupState`, whose case state is then released, and its
stream parity into a :class:`ParityPart`. Two parts' integers and tables add; what depends on the
order of the records is kept with the order index of the record it came from (the first record
of a case or a group, the first message of an error code) and taken in that order, so the sums
in floating point (the mean stability, pass^k) are taken in the same order as in one pass and
give the same bits. Costs are summed exactly (:class:`fcbench.metrics.stats.ExactSum`), in any
order.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field, replace
from typing import Any

from fcbench.grading import RIGHT_DECISIONS
from fcbench.metrics.cases import CaseGroup, CaseInfo, CaseRow, CaseSummaries
from fcbench.metrics.models import ParityDifference
from fcbench.metrics.observe import SELECTION_KINDS
from fcbench.metrics.state import GroupState, Settled

Kind = tuple[int, int, int]
"""A case's scorable repeats, passes and repeats of its most common outcome (``n``, ``c``, ``top``)."""


@dataclass(slots=True)
class CaseCounts:
    """The integer counts a target's metrics add up over its cases; cases with the same settled
    counts (one object per memoised :class:`Settled`), expected kind, category and tags are added
    once, times their number."""

    cases: dict[tuple[int, str, str, tuple[str, ...], bool], list[Any]] = field(default_factory=dict)
    """(id of the counts, expected kind, category, tags, cached) -> [counts, case info, cases, kind
    index, cached]
    (the list keeps the counts alive, so their id stays theirs)."""
    scorable: int = 0
    """Scorable repeats."""
    passes: int = 0
    """Passing scorable repeats."""
    drifting: int = 0
    """Cases with an argument that drifts."""
    selection: list[int] = field(default_factory=lambda: [0, 0])
    """[right decisions, scorable repeats] of the cases selection accuracy applies to."""
    clarification: list[int] = field(default_factory=lambda: [0, 0])
    """[right decisions, scorable repeats] of the cases expecting a clarification."""
    abstention: list[int] = field(default_factory=lambda: [0, 0])
    """[right decisions, scorable repeats] of the cases expecting text."""
    by_category: dict[str, list[int]] = field(default_factory=dict)
    """Category -> [passes, scorable repeats]."""
    by_tag: dict[str, list[int]] = field(default_factory=dict)
    """Tag -> [passes, scorable repeats]."""
    confusion: dict[str, dict[str, int]] = field(default_factory=dict)
    """Expected kind -> decision -> scorable repeats."""
    decisions: dict[str, int] = field(default_factory=dict)
    """Decision -> scorable repeats."""
    stab_n: int = 0
    """Repeats that made their case's most common outcome."""
    stab_d: int = 0
    """Scorable repeats (of the cases with any)."""
    stab_cases: int = 0
    """Cases with a scorable repeat."""
    unstable: int = 0
    """Cases with more than one distinct outcome."""

    def flush(self) -> None:
        """Add up the cases held so far."""
        for settled, info, times, _, cached in self.cases.values():
            self._add(settled, info, times, cached)
        self.cases = {}

    def _add(self, settled: Settled, info: CaseInfo, times: int, cached: bool = False) -> None:
        n, c = settled.scorable * times, settled.passes * times
        if settled.drift:
            self.drifting += times
        self.scorable += n
        self.passes += c
        if not n:
            return
        kind = info.expected_kind
        correct = 0
        row = self.confusion.setdefault(kind, {})
        for decision, count in settled.decisions.items():
            count *= times
            if decision in RIGHT_DECISIONS:
                correct += count
            row[decision] = row.get(decision, 0) + count
            self.decisions[decision] = self.decisions.get(decision, 0) + count
        if kind in SELECTION_KINDS:
            self.selection[0] += correct
            self.selection[1] += n
        if kind == "clarification":
            self.clarification[0] += correct
            self.clarification[1] += n
        elif kind == "text":
            self.abstention[0] += correct
            self.abstention[1] += n
        for slot in (
            self.by_category.setdefault(info.category, [0, 0]),
            *(self.by_tag.setdefault(tag, [0, 0]) for tag in info.tags),
        ):
            slot[0] += c
            slot[1] += n
        if cached:  # a case answered from the response cache: no stability measured
            return
        self.stab_n += settled.top * times
        self.stab_d += n
        self.stab_cases += times
        if settled.distinct > 1:
            self.unstable += times

    def merge(self, other: CaseCounts) -> None:
        """Add ``other``'s counts (both flushed)."""
        for name in ("scorable", "passes", "drifting", "stab_n", "stab_d", "stab_cases", "unstable"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        add_pairs(
            (self.selection, other.selection),
            (self.clarification, other.clarification),
            (self.abstention, other.abstention),
        )
        for table, more in ((self.by_category, other.by_category), (self.by_tag, other.by_tag)):
            add_pairs(*((table.setdefault(key, [0, 0]), pair) for key, pair in more.items()))
        for kind, row in other.confusion.items():
            add_counts(self.confusion.setdefault(kind, {}), row)
        add_counts(self.decisions, other.decisions)


@dataclass(slots=True)
class CaseTotals:
    """A target's settled cases (of one part of the records): their counts, rows, and the order
    they were first met in."""

    counts: CaseCounts = field(default_factory=CaseCounts)
    """The integer counts, flushed."""
    rows: list[CaseRow] = field(default_factory=list)
    """The case summary rows, by case id."""
    order: array[int] = field(default_factory=lambda: array("q"))
    """The order index of each case with a scorable repeat (its first record), ascending."""
    kinds: array[int] = field(default_factory=lambda: array("l"))
    """Each of those cases' :data:`Kind`, as an index into ``kind_list``."""
    kind_list: list[Kind] = field(default_factory=list)
    """The distinct kinds."""

    def in_order(self) -> list[Kind]:
        """The kind of each case with a scorable repeat, in the order the cases were first met."""
        kinds = self.kind_list
        return [kinds[i] for i in self.kinds]

    def merge(self, other: CaseTotals) -> None:
        """Add ``other`` (the totals of other cases of the same target and mode)."""
        self.counts.merge(other.counts)
        if other.rows:
            self.rows += other.rows
            self.rows.sort(key=case_id_of)
        index = {kind: i for i, kind in enumerate(self.kind_list)}
        for kind in other.kind_list:
            if kind not in index:
                index[kind] = len(self.kind_list)
                self.kind_list.append(kind)
        theirs = [index[kind] for kind in other.kind_list]
        if not other.order:
            return
        if not self.order or self.order[-1] < other.order[0]:
            self.order += other.order
            self.kinds.extend(theirs[i] for i in other.kinds)
            return
        merged = sorted(
            [
                *zip(self.order, self.kinds, strict=True),
                *((o, theirs[k]) for o, k in zip(other.order, other.kinds, strict=True)),
            ]
        )
        self.order = array("q", [o for o, _ in merged])
        self.kinds = array("l", [k for _, k in merged])


def case_id_of(row: CaseRow) -> str:
    """The sort key of case rows: their case id."""
    return row.case_id


@dataclass(slots=True)
class ParityPart:
    """Stream parity of one target over some of its cases."""

    same: int = 0
    """(case, repeat) pairs scored in both modes with the same outcome."""
    total: int = 0
    """(case, repeat) pairs scored in both modes."""
    differences: list[ParityDifference] = field(default_factory=list)
    """The cases whose outcomes differ, by case id."""

    def merge(self, other: ParityPart) -> None:
        """Add ``other`` (the parity of other cases of the same target)."""
        self.same += other.same
        self.total += other.total
        if other.differences:
            self.differences = sorted([*self.differences, *other.differences], key=_parity_case)


def _parity_case(difference: ParityDifference) -> str:
    return difference.case_id


def add_pairs(*pairs: tuple[list[int], list[int]]) -> None:
    """Add each ``[count, of]`` pair's second list into its first."""
    for mine, theirs in pairs:
        mine[0] += theirs[0]
        mine[1] += theirs[1]


def add_counts(into: dict[str, int], more: dict[str, int]) -> None:
    """Add the counts of ``more`` into ``into``."""
    for key, n in more.items():
        into[key] = into.get(key, 0) + n


def merge_groups(into: GroupState, other: GroupState) -> None:
    """Add ``other`` (the same target and mode over other cases, settled) into ``into``; what the
    first record of the group decides comes from the part that met it first."""
    if other.first < into.first:
        into.first, into.endpoint, into.dialect, into.model = (
            other.first,
            other.endpoint,
            other.dialect,
            other.model,
        )
    for name in _SUMMED:
        setattr(into, name, getattr(into, name) + getattr(other, name))
    add_pairs(
        (into.schema, other.schema),
        (into.semantic, other.semantic),
        (into.params, other.params),
        (into.recovery, other.recovery),
    )
    for table, more in (
        (into.provider_errors, other.provider_errors),
        (into.recovery_outcomes, other.recovery_outcomes),
        (into.anomalies, other.anomalies),
        (into.repairs, other.repairs),
        (into.limit_hits, other.limit_hits),
    ):
        add_counts(table, more)
    for code, (first, message) in other.error_examples.items():
        example = into.error_examples.get(code)
        if example is None or first < example[0]:
            into.error_examples[code] = (first, message)
    into.latencies += other.latencies
    into.cost.merge(other.cost)


_SUMMED = (
    "observed",
    "accepted",
    "tok_in",
    "tok_out",
    "tok_unreported",
    "tok_cache_read",
    "tok_cache_write",
    "cost_unknown",
    "duplicates",
    "cached",
    "anomalous",
    "repaired",
    "unexpected_writes",
    "unexpected_write_calls",
    "side_effects",
    "replayed",
    "authorization_probes",
    "authorization_probe_failures",
    "authorization_workarounds",
)
"""The integer fields of a settled :class:`GroupState` that parts add."""


class Unsplittable(Exception):
    """The records cannot be folded in parts with the same result as in one pass (a record the
    parts cannot place, a NaN latency whose sorted place depends on the order): fold them in one."""


@dataclass(slots=True)
class RunPart:
    """What some of a run's records add up to: every target and mode met, settled, and stream
    parity per target."""

    read: int
    """Lines read as JSON (``records_read``)."""
    groups: dict[tuple[str, str], tuple[GroupState, CaseTotals]]
    """(target label, mode) -> its settled state and its cases' totals."""
    parity: dict[str, ParityPart]
    """Target label -> stream parity, for the targets met in both modes it compares."""
    damaged: int = 0
    """Lines skipped as damaged (``damaged_lines``): not JSON, or a torn last line."""

    def __getstate__(self) -> tuple[Any, ...]:
        """Pickled with every target's case rows packed together (as
        :class:`~fcbench.metrics.cases.CaseSummaries` pickles: each case info and count table
        once), as a part crosses between processes."""
        keys = list(self.groups)
        rows = CaseSummaries([CaseGroup(*key, self.groups[key][1].rows) for key in keys])
        totals = [(group, replace(t, rows=[])) for group, t in self.groups.values()]
        return self.read, keys, totals, rows, self.parity, self.damaged

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.read, keys, totals, rows, self.parity, self.damaged = state
        packed = {(g.target, g.mode): g.rows for g in rows.groups}
        self.groups = {}
        for key, (group, t) in zip(keys, totals, strict=True):
            t.rows = packed.get(key, [])
            self.groups[key] = (group, t)


def merge_parts(parts: list[RunPart]) -> RunPart:
    """The parts added up (each case's records all in one part); :class:`Unsplittable` when a NaN
    latency would sort differently than in one pass."""
    if len(parts) == 1:
        return parts[0]
    merged = RunPart(0, {}, {})
    for part in parts:
        merged.read += part.read
        merged.damaged += part.damaged
        for key, (group, totals) in part.groups.items():
            found = merged.groups.get(key)
            if found is None:
                merged.groups[key] = (group, totals)
                continue
            merge_groups(found[0], group)
            found[1].merge(totals)
        for label, parity in part.parity.items():
            mine = merged.parity.get(label)
            if mine is None:
                merged.parity[label] = parity
            else:
                mine.merge(parity)
    for group, _ in merged.groups.values():
        if any(value != value for value in group.latencies):
            raise Unsplittable("a latency is NaN")
    return merged
