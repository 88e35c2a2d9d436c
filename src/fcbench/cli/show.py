"""``fcbench show RUN``: observations of a run in the terminal, expected next to actual, with the
grader's reasons (rendering in :mod:`fcbench.report.show`).

The records are streamed: only the first ``--limit`` matching observations are kept in memory,
and with ``--raw`` only the blobs their raw exchanges reference are read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:  # the record models load when the command runs, not at start-up
    from fcbench.store.records import Manifest, Record
    from fcbench.store.view import RecordView

LISTED_NAMES = 40
"""How many known names an error message lists."""

NARROW_OUTPUT_COLUMNS = 80
"""Width of the output when it is not a terminal and ``--width`` is not given."""


@dataclass(frozen=True)
class ShowFilter:
    """Which observations ``fcbench show`` prints."""

    case: str | None = None
    """Only this case id."""
    target: str | None = None
    """Only this target (label ``endpoint:model`` or the config's name for it)."""
    mode: str | None = None
    """Only this mode."""
    failed: bool = False
    """Only observations that did not pass (provider and harness errors included)."""


@dataclass(frozen=True)
class Selection:
    """The first matching observations of a run and how many matched in all."""

    records: list[Record]
    """The first ``limit`` matching records, in file order."""
    matching: int
    """How many records matched."""
    manifest: Manifest
    """The run's manifest."""
    damaged: int = 0
    """Lines of ``records.jsonl`` skipped as damaged."""


def _known(names: Iterable[str]) -> str:
    listed = sorted(set(names))
    shown = ", ".join(listed[:LISTED_NAMES])
    return shown + (f" and {len(listed) - LISTED_NAMES} more" if len(listed) > LISTED_NAMES else "")


def _target_labels(names: Mapping[str, str], wanted: str) -> set[str]:
    """The labels ``wanted`` names (a label or a config name); an error listing the known ones."""
    from fcbench.errors import ConfigError

    labels = {label for label, name in names.items() if wanted in (label, name)}
    if not labels:
        known = [f"{label} ({name})" if name != label else label for label, name in names.items()]
        raise ConfigError(f"no target {wanted!r} in this run; targets: {_known(known)}", key="--target")
    return labels


def _matches(view: RecordView, flt: ShowFilter, labels: set[str] | None) -> bool:
    if flt.case is not None and view.case_id != flt.case:
        return False
    if flt.mode is not None and view.mode != flt.mode:
        return False
    if labels is not None and view.label not in labels:
        return False
    verdict = view.verdict_data()
    return not (flt.failed and verdict is not None and verdict.get("passed") is True)


def select(run_dir: Path, flt: ShowFilter, limit: int) -> Selection:
    """Stream the records of ``run_dir`` and keep the first ``limit`` that match ``flt``.

    :class:`~fcbench.errors.ConfigError` for a target, mode or case the run does not hold."""
    from fcbench.errors import ConfigError
    from fcbench.report.export import target_names
    from fcbench.store.records import DamagedLines, read_manifest
    from fcbench.store.view import run_views

    manifest = read_manifest(run_dir)
    labels = _target_labels(target_names(manifest), flt.target) if flt.target is not None else None
    if flt.mode is not None and flt.mode not in manifest.modes:
        raise ConfigError(f"no mode {flt.mode!r} in this run; modes: {_known(manifest.modes)}", key="--mode")
    kept: list[Record] = []
    matching = 0
    cases: set[str] = set()
    damaged = DamagedLines()
    for view in run_views(run_dir, damaged):
        cases.add(view.case_id)
        if _matches(view, flt, labels):
            matching += 1
            if len(kept) < limit:
                kept.append(view.record())
    if flt.case is not None and flt.case not in cases:
        raise ConfigError(f"no case {flt.case!r} in this run; cases: {_known(cases)}", key="--case")
    return Selection(kept, matching, manifest, damaged.count)


def show(
    run: Path = typer.Argument(..., help="Run directory (holds manifest.json and records.jsonl)."),
    case: str | None = typer.Option(None, "--case", help="Only this case id."),
    target: str | None = typer.Option(
        None, "--target", "-t", help="Only this target (ENDPOINT:MODEL or name)."
    ),
    mode: str | None = typer.Option(None, "--mode", help="Only this mode."),
    failed: bool = typer.Option(False, "--failed", help="Only observations that did not pass."),
    raw: bool = typer.Option(False, "--raw", help="Also print the raw request and response bodies."),
    limit: int = typer.Option(20, "--limit", min=1, help="Show at most this many observations."),
    width: int | None = typer.Option(
        None, "--width", min=40, help="Output width (default: the terminal's; 80 when not a terminal)."
    ),
) -> None:
    """Show observations of a run: expected next to actual, each argument's verdict, the reasons.

    Examples: fcbench show runs/ID --failed; fcbench show runs/ID --case types-01 -t sim:sim-careful --raw"""
    from rich.console import Console

    from fcbench.report.export import run_suite, target_names
    from fcbench.report.show import expanded_raws, render_observation, suite_cases
    from fcbench.report.terminal import terminal_text

    selection = select(run, ShowFilter(case=case, target=target, mode=mode, failed=failed), limit)
    probe = Console()
    columns = width or (probe.width if probe.is_terminal else NARROW_OUTPUT_COLUMNS)
    console = Console(width=columns, emoji=False, highlight=False)
    suite, note = run_suite(selection.manifest)
    if note:
        console.print(terminal_text(f"note: {note}"), style="dim")
    cases = suite_cases(suite)
    names = target_names(selection.manifest)
    raws = expanded_raws(run, selection.records) if raw else [None] * len(selection.records)
    for record, expanded in zip(selection.records, raws, strict=True):
        name = names.get(record.target.label, record.target.label)
        console.print(
            render_observation(record, case=cases.get(record.case_id), name=name, width=columns, raw=expanded)
        )
    shown, matching = len(selection.records), selection.matching
    if selection.damaged:
        from fcbench.store.records import damaged_note

        console.print(f"warning: {damaged_note(selection.damaged)}", style="yellow")
    if not matching:
        console.print("no observation matches")
    elif shown < matching:
        console.print(f"showing {shown} of {matching} matching; --limit to see more")
    else:
        console.print(f"showing all {matching} matching")


def register(app: typer.Typer) -> None:
    """Add the ``show`` command to the fcbench app."""
    app.command("show")(show)
