"""The plan of a run: every observation target x case x repeat x mode, in a stable order.

The order (and so each observation's ``seq``) depends only on the resolved targets, the selected
cases, the repeats and the modes, so a resumed run, a shard and a merged run all agree on it.
"""

from __future__ import annotations

import fnmatch
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from fcbench.config import TargetSettings
from fcbench.contract import MODES
from fcbench.endpoints import Endpoint, target_label
from fcbench.errors import ConfigError
from fcbench.store.records import ObservationKey, TargetRef, observation_key
from fcbench.suggest import did_you_mean
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


def matching_ids(cases: Sequence[Case], patterns: Iterable[str], key: str) -> set[str]:
    """The ids of ``cases`` that ``patterns`` name: ids, or shell-style globs (``select-*``,
    ``types-0?``, ``[ab]-*``); a pattern matching no case is a :class:`ConfigError` under ``key``
    naming the closest ids."""
    known = [c.id for c in cases]
    found: set[str] = set()
    for pattern in dict.fromkeys(patterns):
        glob = bool(GLOB_CHARS & set(pattern))
        matched = (
            [i for i in known if fnmatch.fnmatchcase(i, pattern)] if glob else [pattern] * (pattern in known)
        )
        if not matched:
            what = "case matches" if glob else "such case:"
            raise ConfigError(f"no {what} {pattern}{did_you_mean(pattern, known)}", key=key)
        found.update(matched)
    return found


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
) -> list[Case]:
    """Cases matching every given filter (a filter left empty matches everything; ``ids`` may be
    globs, :func:`matching_ids`), minus those
    with an excluded tag or an id ``exclude_ids`` names (ids or globs too) and (unless
    ``include_pending``) the pending ones, then (with ``sample``) a
    stratified sample of ``sample`` cases in total (:func:`stratified_sample`), drawn only from the
    cases one of ``modes`` observes (all, when ``modes`` is None), so a sample for ``selection``
    holds no recovery scenario and vice versa."""
    cats, tag_set, excluded = set(categories), set(tags), set(exclude_tags)
    id_set = matching_ids(cases, ids, "--case")
    excluded_ids = matching_ids(cases, exclude_ids, "--exclude-case")
    chosen = [
        c
        for c in cases
        if (not cats or c.category in cats)
        and (not tag_set or tag_set & set(c.tags))
        and (not id_set or c.id in id_set)
        and not excluded & set(c.tags)
        and c.id not in excluded_ids
    ]
    if not chosen:
        raise ConfigError(
            "the filters select no case", key="--category/--tag/--case/--exclude-tag/--exclude-case"
        )
    if not include_pending:
        confirmed = [c for c in chosen if not c.pending]
        if not confirmed:
            raise ConfigError(
                f"every selected case is pending ({len(chosen)}: expected prefilled, not confirmed by a "
                "person); confirm them (fcbench cases review) or pass --include-pending to score them",
                key="--include-pending",
            )
        chosen = confirmed
    if sample is None:
        return chosen
    pool = chosen if modes is None else [c for c in chosen if any(mode_applies(m, c) for m in modes)]
    return stratified_sample(pool, sample, seed)


def stratified_sample(cases: Sequence[Case], size: int, seed: int) -> list[Case]:
    """``size`` of ``cases``, drawn per stratum (category, and scenario or not) in proportion to its
    share (largest remainders), the same for the same seed, kept in suite order."""
    if size >= len(cases):
        return list(cases)
    strata: dict[tuple[str, bool], list[Case]] = {}
    for case in cases:
        strata.setdefault((case.category, case.recovery is not None), []).append(case)
    quotas = {key: size * len(group) / len(cases) for key, group in strata.items()}
    counts = {key: int(quota) for key, quota in quotas.items()}
    by_remainder = sorted(quotas, key=lambda key: (counts[key] - quotas[key], key))
    for key in by_remainder[: size - sum(counts.values())]:
        counts[key] += 1
    rng = random.Random(seed)
    chosen = {case.id for key in sorted(strata) for case in rng.sample(strata[key], counts[key])}
    return [case for case in cases if case.id in chosen]


def mode_applies(mode: str, case: Case) -> bool:
    """Whether ``case`` is observed in ``mode``: scenarios only in multi-turn modes, and vice versa."""
    return MODES[mode].multi_turn == (case.recovery is not None)


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
