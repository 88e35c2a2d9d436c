"""``fcbench import``: bring external benchmarks in as fcbench suites.

``fcbench import bfcl QUESTIONS.json [--answers ANSWERS.json] --out SUITE_DIR [--category NAME]``
converts one Berkeley Function Calling Leaderboard category file into a suite folder (see
:mod:`fcbench.bfcl.convert`) and prints how many entries were imported and why any were skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

if TYPE_CHECKING:
    from fcbench.bfcl.convert import ImportReport


def _print_report(console: Console, report: ImportReport, out: Path) -> None:
    from fcbench.bfcl.convert import REPORT_FILE

    kinds = ", ".join(f"{kind} {count}" for kind, count in report.by_kind.items())
    console.print(
        f"imported {report.imported} of {report.entries} entries ({kinds}); skipped {report.skipped}",
        highlight=False,
        soft_wrap=True,
    )
    for reason, count in report.skipped_by_reason.items():
        console.print(f"  skipped {count}: {reason}", highlight=False, soft_wrap=True)
    if report.answers:
        console.print(f"answers: {report.answers}", highlight=False, soft_wrap=True)
    notes = sum(len(items) for items in report.warnings.values())
    console.print(
        f"suite {report.suite} {report.dataset_version}: {report.renamed_tools} tools renamed, "
        f"{notes} warnings in {len(report.warnings)} cases -> {out} (details in {REPORT_FILE})",
        highlight=False,
        soft_wrap=True,
    )


def bfcl_command(
    questions: Annotated[Path, typer.Argument(help="A BFCL question file, e.g. BFCL_v4_simple_python.json.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Suite folder to write (new or empty).")],
    answers: Annotated[
        Path | None,
        typer.Option(help="Possible-answer file (default: possible_answer/<same name> beside QUESTIONS)."),
    ] = None,
    category: Annotated[
        str | None, typer.Option(help="BFCL category (default: from the file name BFCL_v4_<category>.json).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Overwrite the files of an earlier import in --out.")] = False,
) -> None:
    """Convert a BFCL category file into an fcbench suite folder."""
    from fcbench.bfcl.convert import import_bfcl

    report = import_bfcl(questions, out, answers=answers, category=category, force=force)
    _print_report(Console(), report, out)


def register(app: typer.Typer) -> None:
    """Add ``import`` (with the ``bfcl`` command) to the app."""
    sub = typer.Typer(
        name="import", help="Import external benchmarks as fcbench suites.", no_args_is_help=True
    )
    sub.command("bfcl")(bfcl_command)
    app.add_typer(sub, name="import")
