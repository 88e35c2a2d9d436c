"""The failure-mode catalogue: one JSON file under a runs folder that accumulates, per model, the
failure patterns its runs showed (:mod:`fcbench.history.patterns`), and that people annotate.

``RUNS_ROOT/catalogue.json`` (:data:`CATALOGUE_FILE`) is a :class:`Catalogue`. Each run counts once:
a pattern keeps its count per run id (``runs``), so reading a run again replaces that run's counts
instead of adding to them; a run already read is read again only when its ``records.jsonl`` grew (a
resumed run). A person may set ``title`` and ``note`` (or any other key) on a pattern: updates keep
them, and keep an annotated pattern even when no run shows it any more.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fcbench.errors import InputError
from fcbench.files import open_user_file, write_replacing
from fcbench.history.patterns import PATTERN_KINDS, PatternKey, describe
from fcbench.history.runs import FoundRun, find_runs, records_size
from fcbench.history.scan import EXAMPLES, RunScan, scan_run
from fcbench.store.lock import held_lock

CATALOGUE_FILE = "catalogue.json"
LOCK_FILE = ".catalogue.lock"
"""Held by an update of the catalogue beside it, so two updaters never interleave."""
CATALOGUE_VERSION = "1"


class PatternExample(BaseModel):
    """One observation that showed the pattern."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    run_id: str
    """The run it belongs to."""
    case_id: str
    """The case's id."""
    seq: int | None = None
    """The record's position in the plan (``fcbench show RUN --case CASE``)."""
    target: str = ""
    """The target label, ``endpoint:model``."""


class Pattern(BaseModel):
    """One recurring failure pattern of one model."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    id: str
    """Stable id: a hash of ``model``, ``kind`` and ``fields`` (the same in every run)."""
    model: str
    """The model id exactly as sent to the provider (the manifest's pinned id)."""
    kind: str
    """``decision``, ``recovery``, ``argument``, ``order``, ``anomaly``, ``reason`` or ``tag``
    (see :mod:`fcbench.history.patterns`)."""
    fields: dict[str, str]
    """The kind's defining fields (e.g. ``{"tool", "key", "shape"}`` of an argument pattern)."""
    description: str
    """Generated one-line description, e.g. ``writes numbers as strings in `weight_grams`
    (get_shipping_quote)``."""
    title: str | None = None
    """A person's name for the pattern; kept across updates."""
    note: str | None = None
    """A person's note (cause, workaround, ticket); kept across updates."""
    count: int = 0
    """Observations that showed it, over every run read (the sum of ``runs``)."""
    runs: dict[str, int] = Field(default_factory=dict)
    """Run id -> observations of that run that showed it."""
    first_run: str | None = None
    """The earliest run (by start time) that showed it."""
    last_run: str | None = None
    """The latest run (by start time) that showed it."""
    targets: list[str] = Field(default_factory=list)
    """Target names (the config's name, else the label) it was seen under."""
    examples: list[PatternExample] = Field(default_factory=list)
    """Up to three observations that showed it, earliest runs first."""

    @property
    def label(self) -> str:
        """The title when a person gave one, else the generated description."""
        return self.title or self.description


class CatalogueRun(BaseModel):
    """One run the catalogue has read."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    run_id: str
    """The run's id."""
    started_at: str
    """Its start time, ISO 8601 (orders first and last runs)."""
    path: str
    """Its folder, relative to the catalogue's folder."""
    records_bytes: int
    """Size of its ``records.jsonl`` when read; the run is read again when it grows."""
    models: list[str] = Field(default_factory=list)
    """Model ids of its targets."""


class Catalogue(BaseModel):
    """``catalogue.json``: failure patterns per model over every run read."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    catalogue_version: str = CATALOGUE_VERSION
    """Version of this file's format."""
    updated_at: str | None = None
    """UTC time of the last update, ISO 8601."""
    runs: dict[str, CatalogueRun] = Field(default_factory=dict)
    """Run id -> the run as read."""
    patterns: list[Pattern] = Field(default_factory=list)
    """Every pattern, by model, then by kind (in :data:`fcbench.history.patterns.PATTERN_KINDS`
    order: decisions, recovery, arguments and order first, tags last), then most observations first."""

    def for_model(self, model: str) -> list[Pattern]:
        """The patterns of one model, in the catalogue's order."""
        return [p for p in self.patterns if p.model == model]


def catalogue_path(root: Path) -> Path:
    """Where the catalogue of the runs under ``root`` is kept."""
    return root / CATALOGUE_FILE


def load_catalogue(path: Path) -> Catalogue | None:
    """The catalogue at ``path``; None when there is none. A file that is not a catalogue (or not a
    regular file) is an error."""
    try:
        with open_user_file(path) as fh:
            data = fh.read()
    except FileNotFoundError:
        return None
    try:
        return Catalogue.model_validate_json(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        raise InputError(f"not a catalogue: {where}: {first['msg']}", path=str(path)) from None


def save_catalogue(path: Path, catalogue: Catalogue) -> None:
    """Write the catalogue atomically (:func:`~fcbench.files.write_replacing`)."""
    write_replacing(path, catalogue.model_dump_json(indent=2, exclude_none=False) + "\n")


class UpdateSummary(BaseModel):
    """What one update did."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    path: str
    """The catalogue file."""
    read: list[str] = Field(default_factory=list)
    """Run ids read now (new, or grown since they were read)."""
    unchanged: int = 0
    """Runs already read and unchanged, not read again."""
    runs: int = 0
    """Runs the catalogue holds."""
    patterns: int = 0
    """Patterns the catalogue holds."""


def update_catalogue(
    root: Path, found: list[FoundRun] | None = None, scans: dict[str, RunScan] | None = None
) -> UpdateSummary:
    """Fold the runs under ``root`` that are new or grew into ``root``'s catalogue and save it.

    ``found`` are the runs (default: :func:`find_runs`); ``scans`` holds passes already made over
    some of them, by run id, so they are not read twice.

    Two updaters never interleave: the update holds :data:`LOCK_FILE` beside the catalogue (a second
    one waits for it). A person editing the file meanwhile takes no lock, so just before writing the
    file is read again and every title, note or other key changed since the update began is kept."""
    with held_lock(root / LOCK_FILE, wait=True):
        return _update(root, found, scans)


def _update(root: Path, found: list[FoundRun] | None, scans: dict[str, RunScan] | None) -> UpdateSummary:
    path = catalogue_path(root)
    began = load_catalogue(path) or Catalogue()
    catalogue = began.model_copy(deep=True)
    runs = found if found is not None else find_runs(root).runs
    summary = UpdateSummary(path=str(path))
    by_id = {p.id: p for p in catalogue.patterns}
    for run in runs:
        manifest = run.manifest
        size = records_size(run.path)
        known = catalogue.runs.get(manifest.run_id)
        if known is not None and known.records_bytes == size:
            summary.unchanged += 1
            continue
        scan = (scans or {}).get(manifest.run_id) or scan_run(run.path, manifest)
        names = {t.ident: t.shown_name for t in manifest.targets}
        _forget(by_id.values(), manifest.run_id)
        _fold(by_id, scan, names)
        catalogue.runs[manifest.run_id] = CatalogueRun(
            run_id=manifest.run_id,
            started_at=manifest.started_at,
            path=_relative(run.path, root),
            records_bytes=size,
            models=sorted({t.model for t in manifest.targets}),
        )
        summary.read.append(manifest.run_id)
    _keep_human_edits(by_id, began, load_catalogue(path))
    catalogue.patterns = _finish(by_id.values(), catalogue.runs)
    catalogue.updated_at = datetime.now(UTC).isoformat(timespec="seconds")
    save_catalogue(path, catalogue)
    summary.runs, summary.patterns = len(catalogue.runs), len(catalogue.patterns)
    return summary


def _annotations(pattern: Pattern | None) -> tuple[object, ...]:
    """What a person writes on a pattern: title, note and any other key."""
    return (None, None, {}) if pattern is None else (pattern.title, pattern.note, pattern.model_extra or {})


def _keep_human_edits(by_id: dict[str, Pattern], began: Catalogue, now: Catalogue | None) -> None:
    """Apply to ``by_id`` the annotations of ``now`` (the file as it is) that changed since ``began``
    (the file when the update began): a person's edit made during the update."""
    before = {p.id: p for p in began.patterns}
    for edited in now.patterns if now is not None else []:
        if _annotations(edited) == _annotations(before.get(edited.id)):
            continue
        pattern = by_id.setdefault(edited.id, edited)
        pattern.title, pattern.note = edited.title, edited.note
        pattern.__pydantic_extra__ = dict(edited.model_extra or {})


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root)) or "."
    except ValueError:
        return str(path)


def _forget(patterns: Iterable[Pattern], run_id: str) -> None:
    """Drop one run's counts and examples (before it is read again)."""
    for p in patterns:
        p.runs.pop(run_id, None)
        p.examples = [e for e in p.examples if e.run_id != run_id]


def _fold(by_id: dict[str, Pattern], scan: RunScan, names: dict[str, str]) -> None:
    for (label, found), count in scan.patterns.items():
        pattern = by_id.get(found.id) or _new(found)
        by_id[found.id] = pattern
        pattern.runs[scan.run_id] = pattern.runs.get(scan.run_id, 0) + count
        name = names.get(label, label)
        if name not in pattern.targets:
            pattern.targets.append(name)
    for found, examples in scan.examples.items():
        pattern = by_id[found.id]
        for ex in examples:
            pattern.examples.append(
                PatternExample(run_id=ex.run_id, case_id=ex.case_id, seq=ex.seq, target=ex.target)
            )


def _new(found: PatternKey) -> Pattern:
    fields = dict(found.fields)
    return Pattern(
        id=found.id,
        model=found.model,
        kind=found.kind,
        fields=fields,
        description=describe(found.kind, fields),
    )


def _finish(patterns: Iterable[Pattern], runs: dict[str, CatalogueRun]) -> list[Pattern]:
    """Counts, first and last runs and examples recomputed; unseen, unannotated patterns dropped."""
    order = {run_id: (r.started_at, run_id) for run_id, r in runs.items()}
    kept: list[Pattern] = []
    for p in patterns:
        p.runs = {k: v for k, v in p.runs.items() if v > 0}
        p.count = sum(p.runs.values())
        p.description = describe(p.kind, p.fields)
        seen = sorted(p.runs, key=lambda run_id: order.get(run_id, ("", run_id)))
        p.first_run, p.last_run = (seen[0], seen[-1]) if seen else (None, None)
        p.examples = sorted(p.examples, key=lambda e: (order.get(e.run_id, ("", e.run_id)), e.seq or 0))[
            :EXAMPLES
        ]
        if p.count or p.title or p.note or p.model_extra:
            kept.append(p)
    rank = {kind: i for i, kind in enumerate(PATTERN_KINDS)}
    kept.sort(key=lambda p: (p.model, rank.get(p.kind, len(rank)), -p.count, p.description))
    return kept


__all__ = [
    "CATALOGUE_FILE",
    "CATALOGUE_VERSION",
    "Catalogue",
    "CatalogueRun",
    "Pattern",
    "PatternExample",
    "UpdateSummary",
    "catalogue_path",
    "load_catalogue",
    "save_catalogue",
    "update_catalogue",
]
