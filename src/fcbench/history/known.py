"""The catalogue patterns one run shows, per target (the "Known failure patterns" of a report)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fcbench.history.catalogue import catalogue_path, load_catalogue
from fcbench.history.patterns import PATTERN_KINDS
from fcbench.history.scan import scan_run
from fcbench.store.records import read_manifest


@dataclass(frozen=True)
class KnownPattern:
    """A catalogue pattern one target of the run shows."""

    target: str
    """The target label, ``endpoint:model``."""
    id: str
    """The pattern's id in the catalogue."""
    text: str
    """The pattern's title when a person gave one, else its generated description."""
    count: int
    """Observations of this run and target that showed it."""
    kind: str = ""
    """The pattern's kind."""


@dataclass(frozen=True)
class KnownPatterns:
    """The catalogue patterns of a run, and how many of its patterns the catalogue lacks."""

    catalogue: Path
    """The catalogue file read."""
    patterns: list[KnownPattern]
    """By target (the run's order), then by kind (tags last), then most observations first."""
    unknown: int
    """Distinct (target, pattern) pairs of the run that are not in the catalogue yet."""


def known_patterns(run_dir: Path) -> KnownPatterns | None:
    """The catalogue patterns the run shows, when its parent folder holds a catalogue; else None."""
    path = catalogue_path(run_dir.resolve().parent)
    catalogue = load_catalogue(path)
    if catalogue is None:
        return None
    manifest = read_manifest(run_dir)
    scan = scan_run(run_dir, manifest)
    by_id = {p.id: p for p in catalogue.patterns}
    order = {t.ident: i for i, t in enumerate(manifest.targets)}
    found: list[KnownPattern] = []
    unknown = 0
    for (label, key), count in scan.patterns.items():
        pattern = by_id.get(key.id)
        if pattern is None:
            unknown += 1
            continue
        found.append(KnownPattern(label, pattern.id, pattern.label, count, pattern.kind))
    rank = {kind: i for i, kind in enumerate(PATTERN_KINDS)}
    found.sort(
        key=lambda k: (
            order.get(k.target, len(order)),
            k.target,
            rank.get(k.kind, len(rank)),
            -k.count,
            k.text,
        )
    )
    return KnownPatterns(path, found, unknown)


__all__ = ["KnownPattern", "KnownPatterns", "known_patterns"]
