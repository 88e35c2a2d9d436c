"""``fcbench history RUNS``: each named target's pass rate and failure types run by run, and the
failure-mode catalogue of the folder (``--update-catalogue`` folds new runs into it)."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from fcbench.history import Catalogue, History, Point

PATTERNS_SHOWN = 8
"""Catalogue patterns listed per model in the text output (the file holds them all)."""


class HistoryFormat(StrEnum):
    """Output formats of ``fcbench history``."""

    text = "text"
    json = "json"


def history(
    runs: Path = typer.Argument(..., help="Folder of run directories (each holds manifest.json)."),
    target: str | None = typer.Option(
        None, "--target", "-t", help="Only this target name or ENDPOINT:MODEL."
    ),
    fmt: HistoryFormat = typer.Option(HistoryFormat.text, "--format", "-f", help="Output format."),
    update_catalogue: bool = typer.Option(
        False,
        "--update-catalogue",
        help="Fold runs not read yet (or grown) into RUNS/catalogue.json, keeping its titles and notes.",
    ),
) -> None:
    """Show each named target's runs oldest first: pass rate with its interval, the change from the
    previous run, model changes, failure types' shares and coverage loss.

    A target is named by the config's name (targets: [{name: prod, target: ...}]), else by its
    label. The catalogue lists, per model, the failure patterns its runs showed; edit a pattern's
    title and note in the file, later updates keep them.

    Examples: fcbench history runs; fcbench history runs --target prod -f json;
    fcbench history runs --update-catalogue
    """
    from fcbench.errors import InputError
    from fcbench.history import build_history, catalogue_path, load_catalogue
    from fcbench.history import update_catalogue as update

    report, scans, found = build_history(runs, target)
    if not found:
        raise InputError("no runs here (no folder holds a manifest.json)", path=str(runs))
    if target is not None and not report.series:
        raise InputError(f"no target named {target!r} in these runs", path=str(runs))
    from rich.console import Console

    from fcbench.cli.output import print_data

    err = Console(stderr=True, highlight=False, emoji=False)
    if update_catalogue:
        summary = update(runs, found, scans)
        print_data(
            err,
            f"catalogue {summary.path}: {len(summary.read)} run(s) read, {summary.unchanged} unchanged; "
            f"{summary.runs} runs, {summary.patterns} patterns",
        )
    path = catalogue_path(runs)
    report.catalogue = str(path) if path.is_file() else None
    if fmt is HistoryFormat.json:
        sys.stdout.write(report.model_dump_json(indent=2) + "\n")
        return
    for line in report.skipped:
        print_data(err, f"skipped {line}")
    console = Console(highlight=False, emoji=False)
    _print_history(console, report)
    catalogue = load_catalogue(path)
    if catalogue is not None:
        _print_catalogue(console, catalogue, report)


def _change(point: Point) -> str:
    return "" if point.change is None else f"{point.change * 100:+.1f} pp"


def _print_history(console: Console, report: History) -> None:
    from rich.text import Text

    from fcbench.redact import sanitize
    from fcbench.report.common import fmt_rate, fmt_rate_ci
    from fcbench.report.fit import fitted
    from fcbench.store.records import damaged_note

    for line in report.series:
        console.print(Text(sanitize(f"{line.name} ({line.mode}, suite {line.suite})"), style="bold"))
        rows = [
            [sanitize(p.run_id), sanitize(p.model), fmt_rate_ci(p.pass_rate, 0), _change(p)]
            for p in line.points
        ]
        console.print(fitted(["Run", "Model", "Pass rate [95% CI]", "Change"], rows, width=console.width))
        for p in line.points:
            notes = []
            if p.model_changed_from is not None:
                notes.append(f"model changed: {p.model_changed_from} -> {p.model}")
            if p.dataset_changed_from is not None:
                notes.append(f"dataset changed: {p.dataset_changed_from} -> {p.dataset_version}")
            if p.change is not None and p.change != 0:
                word = "drop" if p.change < 0 else "rise"
                beyond = ", beyond the intervals" if p.separated else ""
                notes.append(f"pass rate {word} {_change(p)}{beyond}")
            failures = ", ".join(f"{kind} {fmt_rate(rate)}" for kind, rate in p.failures.items())
            notes.append(f"failures: {failures or 'none'}")
            if p.coverage_loss.n:
                codes = ", ".join(f"{code} {n}" for code, n in p.provider_errors.items())
                notes.append(f"coverage loss {fmt_rate(p.coverage_loss)} ({codes})")
            if p.damaged_lines:
                notes.append(damaged_note(p.damaged_lines))
            console.print(Text(sanitize(f"{p.run_id}: " + "; ".join(notes)), overflow="fold"))
        console.print()


def _print_catalogue(console: Console, catalogue: Catalogue, report: History) -> None:
    from rich.text import Text

    from fcbench.redact import sanitize

    models = list(dict.fromkeys(p.model for line in report.series for p in line.points))
    console.print(Text(sanitize(f"Failure patterns ({report.catalogue})"), style="bold", overflow="fold"))
    for model in models:
        patterns = catalogue.for_model(model)
        console.print(Text(sanitize(f"{model}: {len(patterns)} patterns"), style="italic"))
        for p in patterns[:PATTERNS_SHOWN]:
            runs = len(p.runs)
            seen = f"x{p.count} in {runs} run{'s' if runs != 1 else ''}"
            console.print(Text(sanitize(f"  {p.id}  {seen}  {p.label}"), overflow="fold"))
    if not models:
        console.print("no target in these runs")


def register(app: typer.Typer) -> None:
    """Add the ``history`` command to the fcbench app."""
    app.command("history")(history)
