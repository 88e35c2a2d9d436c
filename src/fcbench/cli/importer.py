"""``fcbench import``: bring external benchmarks in as fcbench suites.

``fcbench import bfcl QUESTIONS.json [--answers ANSWERS.json] --out SUITE_DIR [--category NAME]``
converts one Berkeley Function Calling Leaderboard category file into a suite folder (see
:mod:`fcbench.bfcl.convert`) and prints how many entries were imported and why any were skipped.

``fcbench import logs LOG.jsonl... --dialect D --out SUITE_DIR [--sample N --seed S] [--skip-bad]``
turns production request/response logs (one ``{"request": ..., "response": ...}`` pair per line,
see :mod:`fcbench.logs.entries`; or, with ``--format otel|langfuse [--tools FILE]``, traces, see
:mod:`fcbench.logs.formats`) into a suite of pending cases (see :mod:`fcbench.logs.cases`) and
prints what was imported, skipped and flagged for review.

``fcbench import cases CASES.json --format seed --tools TOOLS.json --out SUITE_DIR`` converts cases
written in the seed's own format (``FCTestCase``, see :mod:`fcbench.suite.seed_format`) into a suite
folder offered the tools of TOOLS.json (any published tool-list format), and names on stderr what
the seed cases say that fcbench cannot express.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from fcbench.bfcl.convert import ImportReport
    from fcbench.logs.cases import LogImportReport


def _print_report(console: Console, report: ImportReport, out: Path) -> None:
    from fcbench.bfcl.convert import REPORT_FILE
    from fcbench.cli.output import print_data

    kinds = ", ".join(f"{kind} {count}" for kind, count in report.by_kind.items())
    print_data(
        console, f"imported {report.imported} of {report.entries} entries ({kinds}); skipped {report.skipped}"
    )
    for reason, count in report.skipped_by_reason.items():
        print_data(console, f"  skipped {count}: {reason}")
    if report.answers:
        print_data(console, f"answers: {report.answers}")
    notes = sum(len(items) for items in report.warnings.values())
    print_data(
        console,
        f"suite {report.suite} {report.dataset_version}: {report.renamed_tools} tools renamed, "
        f"{notes} warnings in {len(report.warnings)} cases -> {out} (details in {REPORT_FILE})",
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
    """Convert a BFCL category file into an fcbench suite folder.

    Example: fcbench import bfcl BFCL_v4_simple_python.json --out bfcl-simple/
    """
    from rich.console import Console

    from fcbench.bfcl.convert import import_bfcl

    report = import_bfcl(questions, out, answers=answers, category=category, force=force)
    _print_report(Console(), report, out)


def _print_logs_report(console: Console, report: LogImportReport, out: Path) -> None:
    from fcbench.cli.output import print_data
    from fcbench.logs.cases import REPORT_FILE

    def say(text: str) -> None:  # bad lines quote logged text: secrets of a documented kind go
        print_data(console, text, redact=True)

    kinds = ", ".join(f"{kind} {count}" for kind, count in report.by_kind.items())
    say(
        f"imported {report.imported} pending cases ({kinds}) from {report.lines} log lines; "
        f"{report.candidates} usable, {len(report.skipped)} skipped, "
        f"{len(report.bad_lines)} bad lines skipped"
    )
    for reason, count in report.skipped_by_reason.items():
        say(f"  skipped {count}: {reason}")
    if report.sample is not None:
        strata = ", ".join(f"{s} {v['chosen']}/{v['available']}" for s, v in report.sample["strata"].items())
        say(f"sample of {report.sample['size']} (seed {report.sample['seed']}) by tool called: {strata}")
    sets = ", ".join(f"{name} {count}" for name, count in report.tool_sets.items())
    say(f"tool sets: {sets}")
    for label, what in report.flagged.items():
        say(f"needs review: {label}: {what}")
    for warning in report.warnings:
        say(f"warning: {warning}")
    say(
        f"suite {report.suite} {report.dataset_version} -> {out} (details in {REPORT_FILE}); "
        f"confirm the cases with: fcbench cases review {out}"
    )


LogsArgument = Annotated[
    list[Path],
    typer.Argument(help="Log files: request/response JSON Lines, OTLP JSON spans or a Langfuse export."),
]
"""The log files of ``import logs`` and ``replay``."""
DialectOption = Annotated[
    str | None,
    typer.Option(
        help="Dialect of wire logs (a dialect name of `fcbench targets`; one that cannot be read says why)."
    ),
]
"""The ``--dialect`` of ``import logs`` and ``replay`` (an adapter registry name; wire logs only)."""
SkipBadOption = Annotated[
    bool, typer.Option(help="Skip and count unreadable log lines instead of failing on the first.")
]
"""The ``--skip-bad`` of ``import logs`` and ``replay``."""
LogFormatOption = Annotated[
    str,
    typer.Option(
        "--format",
        "--log-format",
        help="wire (request/response pairs, needs --dialect), otel (OTLP JSON spans) or langfuse.",
    ),
]
"""The ``--format`` of ``import logs`` (a name of :data:`fcbench.logs.formats.LOG_FORMATS`)."""
LogFormatOnlyOption = Annotated[
    str, typer.Option("--log-format", help="wire (needs --dialect), otel (OTLP JSON spans) or langfuse.")
]
"""The ``--log-format`` of ``replay`` and ``coverage``, whose ``--format`` is their output's."""
ToolsOption = Annotated[
    Path | None, typer.Option(help="Tool list offered where a trace records no tool definitions.")
]
"""The ``--tools`` of ``import logs`` and ``replay``."""


def logs_command(
    logs: LogsArgument,
    out: Annotated[Path, typer.Option("--out", "-o", help="Suite folder to write (new or empty).")],
    dialect: DialectOption = None,
    fmt: LogFormatOption = "wire",
    tools: ToolsOption = None,
    sample: Annotated[
        int | None, typer.Option(help="Keep N cases, stratified by the tool called in the logged response.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the sample.")] = 0,
    skip_bad: SkipBadOption = False,
    name: Annotated[str | None, typer.Option(help="Suite name (default: logs-<dialect>).")] = None,
    force: Annotated[bool, typer.Option(help="Overwrite the files of an earlier import in --out.")] = False,
) -> None:
    """Turn production request/response logs into a suite of pending cases (review them next).

    Example: fcbench import logs prod.jsonl --dialect openai-chat --out imported/ --sample 50 --seed 1
    (or: fcbench import logs spans.json --format otel --out imported/)
    """
    from rich.console import Console

    from fcbench.logs.cases import import_logs
    from fcbench.logs.formats import tools_file

    offered = tools_file(tools) if tools else ()
    report = import_logs(
        logs,
        dialect,
        out,
        sample=sample,
        seed=seed,
        skip_bad=skip_bad,
        force=force,
        name=name,
        fmt=fmt,
        tools=offered,
    )
    _print_logs_report(Console(), report, out)


CASE_FORMATS = ("seed",)
"""The ``--format`` names of ``import cases`` and ``export cases``."""


def cases_command(
    cases: Annotated[Path, typer.Argument(help="A case file: a JSON array (or JSON Lines) of seed cases.")],
    tools: Annotated[
        Path, typer.Option(help="The tools the cases are offered (any published tool-list format).")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Suite folder to write (new or empty).")],
    fmt: Annotated[str, typer.Option("--format", help="Format of the case file: seed.")] = "seed",
    name: Annotated[str | None, typer.Option(help="Suite name (default: the file's name).")] = None,
    force: Annotated[bool, typer.Option(help="Overwrite the files of an earlier import in --out.")] = False,
) -> None:
    """Convert cases written in another format into an fcbench suite folder.

    What the cases say that fcbench cannot express is named on stderr, never dropped silently.
    Example: fcbench import cases fc_cases.json --format seed --tools tools.json --out seed-suite/
    """
    from fcbench.cli.output import print_data
    from fcbench.errors import ConfigError
    from fcbench.logs.formats import tools_file
    from fcbench.report.terminal import data_console
    from fcbench.suite.loader import load_suite
    from fcbench.suite.seed_format import import_seed_cases

    if fmt not in CASE_FORMATS:
        raise ConfigError(f"unknown case format {fmt!r}; known: {', '.join(CASE_FORMATS)}", key="--format")
    conversion = import_seed_cases(cases, tools_file(tools), out, name=name, force=force)
    suite = load_suite(out)
    errors = data_console(stderr=True)
    for warning in conversion.warnings:
        print_data(errors, f"warning: {warning}", redact=True)
    print_data(
        data_console(),
        f"imported {len(conversion.cases)} cases ({len(conversion.skipped)} skipped, "
        f"{len(conversion.warnings)} warnings) -> {out} "
        f"(suite {suite.info.name} {suite.info.dataset_version})",
        redact=True,
    )


def register(app: typer.Typer) -> None:
    """Add ``import`` (with the ``bfcl``, ``logs`` and ``cases`` commands) to the app."""
    sub = typer.Typer(
        name="import", help="Import external benchmarks as fcbench suites.", no_args_is_help=True
    )
    sub.command("bfcl")(bfcl_command)
    sub.command("logs")(logs_command)
    sub.command("cases")(cases_command)
    app.add_typer(sub, name="import")
