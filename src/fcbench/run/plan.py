"""The plan of a run: every observation target x case x repeat x mode, in a stable order.

The order (and so each observation's ``seq``) depends only on the resolved targets, the selected
cases, the repeats and the modes, so a resumed run, a shard and a merged run all agree on it.
"""

from __future__ import annotations

import fnmatch
import random
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate
from typing import NamedTuple

from fcbench.config import TargetSettings
from fcbench.contract import MODES
from fcbench.endpoints import Endpoint, target_label
from fcbench.errors import ConfigError
from fcbench.store.records import ObservationKey, TargetRef, observation_key
from fcbench.suggest import did_you_mean
from fcbench.suite.caselist import CaseFacts, heads_of, pick
from fcbench.suite.models import Case

GLOB_CHARS = frozenset("*?[")
"""A ``--case`` value holding one of these is a shell-style glob (:mod:`fnmatch`), not an id."""


@dataclass(frozen=True)
class Target:
    """A resolved target: an endpoint (with the mock address filled in) and a model id."""

    endpoint: Endpoint
    model: str
    settings: TargetSettings = field(default_factory=TargetSettings)
    """The target's own request settings from its ``targets:`` entry."""

    @property
    def ref(self) -> TargetRef:
        """The record's ``target`` field."""
        return TargetRef(endpoint=self.endpoint.name, dialect=self.endpoint.dialect, model=self.model)

    @property
    def label(self) -> str:
        """``endpoint:model``."""
        return target_label(self.endpoint.name, self.model)


@dataclass(frozen=True)
class Planned:
    """One planned observation."""

    seq: int
    target: Target
    case: Case
    repeat: int
    mode: str

    @property
    def key(self) -> ObservationKey:
        """Identity shared with :attr:`fcbench.store.records.Record.key`."""
        return observation_key(self.target.label, self.case.id, self.repeat, self.mode)


@dataclass(frozen=True)
class Shard:
    """A deterministic 1/N slice of the plan (``--shard I/N``, I counted from 1)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """Parse ``I/N``."""
        try:
            left, right = text.split("/")
            shard = cls(int(left), int(right))
        except ValueError as exc:
            raise ConfigError(f"{text!r} is not of the form I/N", key="--shard") from exc
        if not 1 <= shard.index <= shard.count:
            raise ConfigError(f"{text!r}: I must be between 1 and N", key="--shard")
        return shard

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, seq: int) -> bool:
        """Whether observation ``seq`` belongs to this shard."""
        return seq % self.count == self.index - 1


def matching_ids(cases: Sequence[CaseFacts], patterns: Iterable[str], key: str) -> set[str]:
    """The ids of ``cases`` that ``patterns`` name: ids, or shell-style globs (``select-*``,
    ``types-0?``, ``[ab]-*``); a pattern matching no case is a :class:`ConfigError` under ``key``
    naming the closest ids."""
    wanted = list(dict.fromkeys(patterns))
    if not wanted:
        return set()
    known = [c.id for c in cases]
    found: set[str] = set()
    for pattern in wanted:
        glob = bool(GLOB_CHARS & set(pattern))
        matched = (
            [i for i in known if fnmatch.fnmatchcase(i, pattern)] if glob else [pattern] * (pattern in known)
        )
        if not matched:
            what = "case matches" if glob else "such case:"
            raise ConfigError(f"no {what} {pattern}{did_you_mean(pattern, known)}", key=key)
        found.update(matched)
    return found


def _filtered(
    facts: Sequence[CaseFacts],
    categories: Iterable[str],
    tags: Iterable[str],
    ids: Iterable[str],
    exclude_tags: Iterable[str],
    exclude_ids: Iterable[str],
) -> list[int]:
    """Positions of the cases matching every filter, minus the excluded ones."""
    cats, tag_set, excluded = set(categories), set(tags), set(exclude_tags)
    id_set = matching_ids(facts, ids, "--case")
    excluded_ids = matching_ids(facts, exclude_ids, "--exclude-case")
    if not (cats or tag_set or id_set or excluded or excluded_ids):
        return list(range(len(facts)))
    return [
        position
        for position, c in enumerate(facts)
        if (not cats or c.category in cats)
        and (not tag_set or tag_set & set(c.tags))
        and (not id_set or c.id in id_set)
        and not excluded & set(c.tags)
        and c.id not in excluded_ids
    ]


def select_cases(
    cases: Sequence[Case],
    categories: Iterable[str],
    tags: Iterable[str],
    ids: Iterable[str],
    *,
    exclude_tags: Iterable[str] = (),
    exclude_ids: Iterable[str] = (),
    sample: int | None = None,
    seed: int = 0,
    modes: Sequence[str] | None = None,
    include_pending: bool = True,
) -> Sequence[Case]:
    """Cases matching every given filter (a filter left empty matches everything; ``ids`` may be
    globs, :func:`matching_ids`), minus those
    with an excluded tag or an id ``exclude_ids`` names (ids or globs too) and (unless
    ``include_pending``) the pending ones, then (with ``sample``) a
    stratified sample of ``sample`` cases in total (:func:`stratified_sample`), drawn only from the
    cases one of ``modes`` observes (all, when ``modes`` is None), so a sample for ``selection``
    holds no recovery scenario and vice versa. Selecting reads only each case's head
    (:mod:`fcbench.suite.caselist`): no case is built for it."""
    facts = heads_of(cases)
    chosen = _filtered(facts, categories, tags, ids, exclude_tags, exclude_ids)
    if not chosen:
        raise ConfigError(
            "the filters select no case", key="--category/--tag/--case/--exclude-tag/--exclude-case"
        )
    if not include_pending and any(facts[p].pending for p in chosen):
        confirmed = [p for p in chosen if not facts[p].pending]
        if not confirmed:
            raise ConfigError(
                f"every selected case is pending ({len(chosen)}: expected prefilled, not confirmed by a "
                "person); confirm them (fcbench cases review) or pass --include-pending to score them",
                key="--include-pending",
            )
        chosen = confirmed
    if sample is not None:
        pool = (
            chosen if modes is None else [p for p in chosen if any(mode_applies(m, facts[p]) for m in modes)]
        )
        chosen = _sampled(facts, pool, sample, seed)
    return cases if len(chosen) == len(cases) else pick(cases, chosen)


def _sampled(facts: Sequence[CaseFacts], pool: Sequence[int], size: int, seed: int) -> list[int]:
    """The positions :func:`stratified_sample` keeps of the cases at ``pool``."""
    if size >= len(pool):
        return list(pool)
    strata: dict[tuple[str, bool], list[int]] = {}
    for position in pool:
        strata.setdefault((facts[position].category, facts[position].multi_turn), []).append(position)
    quotas = {key: size * len(group) / len(pool) for key, group in strata.items()}
    counts = {key: int(quota) for key, quota in quotas.items()}
    by_remainder = sorted(quotas, key=lambda key: (counts[key] - quotas[key], key))
    for key in by_remainder[: size - sum(counts.values())]:
        counts[key] += 1
    rng = random.Random(seed)
    chosen = {facts[p].id for key in sorted(strata) for p in rng.sample(strata[key], counts[key])}
    return [position for position in pool if facts[position].id in chosen]


def stratified_sample(cases: Sequence[Case], size: int, seed: int) -> Sequence[Case]:
    """``size`` of ``cases``, drawn per stratum (category, and scenario or not) in proportion to its
    share (largest remainders), the same for the same seed, kept in suite order."""
    return pick(cases, _sampled(heads_of(cases), range(len(cases)), size, seed))


def mode_applies(mode: str, case: CaseFacts) -> bool:
    """Whether ``case`` is observed in ``mode``: scenarios only in multi-turn modes, and vice versa."""
    return MODES[mode].multi_turn == case.multi_turn


def build_plan(
    targets: Sequence[Target], cases: Sequence[Case], repeats: int, modes: Sequence[str]
) -> Iterator[Planned]:
    """Every observation in plan order: target, then case, then repeat, then mode (where the mode applies)."""
    seq = 0
    for target in targets:
        for case in cases:
            for repeat in range(repeats):
                for mode in modes:
                    if not mode_applies(mode, case):
                        continue
                    yield Planned(seq=seq, target=target, case=case, repeat=repeat, mode=mode)
                    seq += 1


def execution_order(plan: Sequence[Planned]) -> list[Planned]:
    """Interleave targets (and repeats last) so endpoints share the load and early results span targets."""
    index = {label: i for i, label in enumerate(dict.fromkeys(p.target.label for p in plan))}
    return sorted(plan, key=lambda p: (p.repeat, p.case.id, p.mode, index[p.target.label]))


def planned_by(plan: Sequence[Planned]) -> dict[str, dict[str, int]]:
    """Planned observations per target label and mode."""
    counts: dict[str, dict[str, int]] = {}
    for p in plan:
        by_mode = counts.setdefault(p.target.label, {})
        by_mode[p.mode] = by_mode.get(p.mode, 0) + 1
    return counts


class _CaseSlot(NamedTuple):
    """Where one case's observations sit in a target's part of the plan (made when it is reached,
    from the plan's layout)."""

    position: int
    """The case's index in the plan's cases (built when an observation of it is)."""
    case_id: str
    """The case's id."""
    offset: int
    """Plan position (``seq``) of the case's first observation within one target's part."""
    modes: tuple[str, ...]
    """The run's modes that apply to the case, in the run's order."""


class Recorded:
    """The observations of a :class:`Plan` already recorded, one byte per ``seq`` of the whole plan:
    a resumed run of 10^6 observations holds a megabyte here, not a key object per record."""

    def __init__(self, plan: Plan) -> None:
        self._plan = plan
        self._marks = bytearray(plan.seq_count)
        self.count = 0
        """How many distinct observations of the plan are marked."""

    def add(self, seq: int) -> None:
        """Mark the observation ``seq`` as recorded (marking it twice counts it once)."""
        if not self._marks[seq]:
            self._marks[seq] = 1
            self.count += 1

    def __contains__(self, seq: object) -> bool:
        return isinstance(seq, int) and 0 <= seq < len(self._marks) and self._marks[seq] == 1

    def by_label(self) -> Counter[str]:
        """Recorded observations per target label."""
        return Counter(self._plan.label_of(seq) for seq in self.seqs())

    def seqs(self) -> Iterator[int]:
        """The marked ``seq`` numbers, ascending."""
        marks, seq = self._marks, self._marks.find(1)
        while seq >= 0:
            yield seq
            seq = marks.find(1, seq + 1)


@dataclass(frozen=True, eq=False)
class Plan:
    """The plan of a run (or of one shard of it), expanded one observation at a time.

    The same observations, ``seq`` numbers and orders as :func:`build_plan` (plan order) and
    :func:`execution_order` (the order they are sent in), but nothing is built before it is asked
    for: what is kept is one small slot per case, so the first request of a run leaves before the
    rest of its plan exists, and memory does not grow with the number of observations. The counts
    (:meth:`__len__`, :meth:`planned_by`) are computed from the slots, and :meth:`seq_of` finds an
    observation's place from its key (resume). The slots are made from the cases' heads
    (:mod:`fcbench.suite.caselist`): a case is built only when one of its observations is.
    """

    targets: Sequence[Target]
    """Resolved targets, in config order."""
    cases: Sequence[Case]
    """The selected cases, in suite order."""
    repeats: int
    """Repeats per case, target and mode."""
    modes: Sequence[str]
    """The run's modes, in config order."""
    shard: Shard | None = None
    """The slice of the plan this is (None: all of it)."""

    @cached_property
    def _modes_by_kind(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The run's modes that apply to a single-turn case, and to a multi-turn scenario."""
        single = tuple(mode for mode in self.modes if not MODES[mode].multi_turn)
        return single, tuple(mode for mode in self.modes if MODES[mode].multi_turn)

    @cached_property
    def _layout(self) -> tuple[list[str], bytes, array[int]]:
        """Per case, in suite order: its id, its kind (1: multi-turn) and its slot's offset. Kept
        as a list of the heads' own strings, bytes and an array: a 10^5-case plan allocates no
        object per case (nothing for the garbage collector to walk) before its first request."""
        heads = heads_of(self.cases)
        ids = [head.id for head in heads]
        kinds = bytes(head.multi_turn for head in heads)
        sizes = [self.repeats * len(modes) for modes in self._modes_by_kind]
        offsets = array("q", accumulate((sizes[kind] for kind in kinds), initial=0))
        return ids, kinds, offsets

    def _slot(self, position: int) -> _CaseSlot:
        ids, kinds, offsets = self._layout
        return _CaseSlot(position, ids[position], offsets[position], self._modes_by_kind[kinds[position]])

    @property
    def _slots(self) -> Iterator[_CaseSlot]:
        """One slot per case, in suite order, each made when it is reached."""
        return (self._slot(position) for position in range(len(self._layout[0])))

    @cached_property
    def _slot_of(self) -> dict[str, int]:
        """Case id -> its position (the first, should an id repeat)."""
        found: dict[str, int] = {}
        for position, case_id in enumerate(self._layout[0]):
            found.setdefault(case_id, position)
        return found

    @cached_property
    def _target_index(self) -> dict[str, int]:
        return {target.label: index for index, target in enumerate(self.targets)}

    @cached_property
    def _mode_groups(self) -> dict[tuple[str, ...], int]:
        """How many cases each tuple of applying modes has, in the order first met."""
        kinds = self._layout[1]
        multi = kinds.count(1)
        counts = (len(kinds) - multi, multi)
        order = (1, 0) if kinds[:1] == b"\x01" else (0, 1)
        return {self._modes_by_kind[kind]: counts[kind] for kind in order if counts[kind]}

    @cached_property
    def _per_target(self) -> int:
        """Observations in one target's part of the whole plan (before sharding)."""
        return self._layout[2][-1]

    def observes_nothing(self) -> bool:
        """Whether the whole plan (every shard of it) holds no observation."""
        return not self.targets or self._per_target == 0

    def _seq(self, target: int, slot: _CaseSlot, repeat: int, mode: int) -> int:
        return target * self._per_target + slot.offset + repeat * len(slot.modes) + mode

    def _owns(self, seq: int) -> bool:
        return self.shard is None or self.shard.owns(seq)

    def __iter__(self) -> Iterator[Planned]:
        """Every observation in plan order (``seq`` ascending)."""
        for target_index, target in enumerate(self.targets):
            for slot in self._slots:
                for repeat in range(self.repeats):
                    for mode_index, mode in enumerate(slot.modes):
                        seq = self._seq(target_index, slot, repeat, mode_index)
                        if self._owns(seq):
                            case = self.cases[slot.position]
                            yield Planned(seq=seq, target=target, case=case, repeat=repeat, mode=mode)

    def in_execution_order(self, skip: Recorded | None = None) -> Iterator[Planned]:
        """Every observation in the order :func:`execution_order` gives, but those ``skip`` holds
        (already recorded), each built when it is asked for."""
        ids = self._layout[0]
        by_id = sorted(range(len(ids)), key=ids.__getitem__)
        for repeat in range(self.repeats):
            for slot in map(self._slot, by_id):
                for mode_index, mode in sorted(enumerate(slot.modes), key=lambda pair: pair[1]):
                    for target_index, target in enumerate(self.targets):
                        seq = self._seq(target_index, slot, repeat, mode_index)
                        if not self._owns(seq):
                            continue
                        if skip is not None and seq in skip:
                            continue
                        case = self.cases[slot.position]
                        yield Planned(seq=seq, target=target, case=case, repeat=repeat, mode=mode)

    def recorded(self, keys: Iterable[ObservationKey]) -> Recorded:
        """Which of this plan's (or shard's) observations ``keys`` name; keys of other plans or
        shards are left out."""
        marks = Recorded(self)
        for key in keys:
            seq = self.seq_of(key)
            if seq is not None:
                marks.add(seq)
        return marks

    @property
    def seq_count(self) -> int:
        """One more than the largest ``seq`` of the whole plan (every shard of it)."""
        return len(self.targets) * self._per_target

    def label_of(self, seq: int) -> str:
        """The target label of the observation ``seq``."""
        return self.targets[seq // self._per_target].label

    def seq_of(self, key: ObservationKey) -> int | None:
        """The ``seq`` of the observation ``key`` names; None when it is not in this plan (or shard)."""
        label, case_id, repeat, mode = key
        position = self._slot_of.get(case_id)
        slot = self._slot(position) if position is not None else None
        target = self._target_index.get(label)
        if slot is None or target is None or mode not in slot.modes or not 0 <= repeat < self.repeats:
            return None
        seq = self._seq(target, slot, repeat, slot.modes.index(mode))
        return seq if self._owns(seq) else None

    def _shard_owned(self, target: int, slot: _CaseSlot) -> Iterator[tuple[str, int]]:
        """(mode, 1) for each observation of one case and target that this shard holds, in plan order."""
        for repeat in range(self.repeats):
            for mode_index, mode in enumerate(slot.modes):
                if self._owns(self._seq(target, slot, repeat, mode_index)):
                    yield mode, 1

    @cached_property
    def _counts(self) -> dict[str, dict[str, int]]:
        counts: dict[str, dict[str, int]] = {}
        for target_index, target in enumerate(self.targets):
            by_mode: dict[str, int] = {}
            if self.shard is None:  # every case's modes, repeats times
                for modes, cases in self._mode_groups.items():
                    for mode in modes:
                        by_mode[mode] = by_mode.get(mode, 0) + self.repeats * cases
            for slot in self._slots if self.shard is not None else ():
                for mode, count in self._shard_owned(target_index, slot):
                    by_mode[mode] = by_mode.get(mode, 0) + count
            if by_mode:
                counts[target.label] = by_mode
        return counts

    def planned_by(self) -> dict[str, dict[str, int]]:
        """Planned observations per target label and mode, as :func:`planned_by` counts the list."""
        return {label: dict(by_mode) for label, by_mode in self._counts.items()}

    def __len__(self) -> int:
        """Observations planned (of this shard)."""
        return sum(sum(by_mode.values()) for by_mode in self._counts.values())
