"""``fcbench coverage SUITE LOGS...``: what share of logged traffic the suite's cases cover.

Logged requests are grouped into intents (the tool called, the argument keys present, the
language) and matched against the cases (:mod:`fcbench.logs.coverage` defines both); the output
gives the share of traffic and of distinct intents covered, the largest uncovered intents with
example lines (``file:line``), the unreadable lines (skipped and named, never fatal), and an
``fcbench import logs`` command whose sample holds the most uncovered intents.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from fcbench.cli.cases import SuiteArgument
from fcbench.cli.importer import DialectOption, LogFormatOnlyOption, LogsArgument, ToolsOption

if TYPE_CHECKING:
    from fcbench.logs.coverage import CoverageReport


BAD_LINES_SHOWN = 10
"""Unreadable lines named in the text output (the JSON names them all)."""


class CoverageFormat(StrEnum):
    """Output formats of ``fcbench coverage``."""

    text = "text"
    json = "json"


def _percent(n: int, d: int) -> str:
    return f"{n}/{d} ({100 * n / d:.1f}%)" if d else "0/0"


def coverage_lines(report: CoverageReport, top: int) -> list[str]:
    """The text output of ``fcbench coverage``."""
    traffic = report.traffic
    covered_intents = len(report.intents) - len(report.uncovered)
    lines = [
        f"suite {report.suite} ({report.cases} cases) against {traffic} logged model answers "
        f"({report.lines} lines read, {len(report.bad_lines)} bad lines skipped, "
        f"{report.not_answers} provider errors not counted)",
        f"traffic covered: {_percent(report.covered_traffic, traffic)}",
        f"distinct intents covered: {_percent(covered_intents, len(report.intents))}",
    ]
    if report.uncovered:
        lines.append(f"largest uncovered intents (of {len(report.uncovered)}):")
    for found in report.uncovered[:top]:
        share = f"{100 * found.requests / traffic:.1f}%" if traffic else "-"
        lines.append(f"  {found.requests} ({share}) {found.intent.label}; e.g. {', '.join(found.examples)}")
    lines += [f"bad line {bad}" for bad in report.bad_lines[:BAD_LINES_SHOWN]]
    if len(report.bad_lines) > BAD_LINES_SHOWN:
        lines.append(f"{len(report.bad_lines) - BAD_LINES_SHOWN} more bad lines (all in --format json)")
    suggestion = report.suggestion
    if suggestion is None:
        lines.append("nothing to import next: every logged intent is covered")
    else:
        lines.append(
            f"import next ({suggestion.size} cases holding {suggestion.uncovered_intents} uncovered "
            f"intents, {suggestion.uncovered_requests} of their requests): {suggestion.command}"
        )
    return lines


def coverage_command(
    suite: SuiteArgument,
    logs: LogsArgument,
    dialect: DialectOption = None,
    log_format: LogFormatOnlyOption = "wire",
    tools: ToolsOption = None,
    fmt: Annotated[
        CoverageFormat, typer.Option("--format", "-f", help="text or json.")
    ] = CoverageFormat.text,
    top: Annotated[int, typer.Option(min=1, help="Uncovered intents listed (largest first).")] = 10,
    sample: Annotated[int, typer.Option(min=1, help="Size of the suggested sample to import next.")] = 20,
) -> None:
    """Measure the share of logged traffic (and of distinct intents) the suite's cases cover.

    An intent is the tool called, the argument keys present and the language of the last user
    message; a case covers it when its expected tool, accepted keys and prompt language match.
    Unreadable log lines are counted and named, never fatal.

    Examples: fcbench coverage core prod.jsonl --dialect openai-chat;
    fcbench coverage my-suite/ spans.json --log-format otel --format json
    """
    from fcbench.cli.output import print_data
    from fcbench.logs.coverage import measure_coverage
    from fcbench.logs.formats import tools_file
    from fcbench.logs.traces import ReadOptions
    from fcbench.redact import Redactor
    from fcbench.report.terminal import data_console
    from fcbench.suite.loader import load_suite

    loaded = load_suite(suite)
    offered = tools_file(tools) if tools else ()
    options = ReadOptions(dialect, True, offered)
    report = measure_coverage(loaded, logs, log_format, options, sample=sample, tools_path=tools)
    if fmt is CoverageFormat.json:  # bad lines quote logged text: secrets of a documented kind go
        data = Redactor(patterns=True).json(report.to_json(top))
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return
    console = data_console()
    for line in coverage_lines(report, top):
        print_data(console, line, redact=True)


def register(app: typer.Typer) -> None:
    """Add the ``coverage`` command to the fcbench app."""
    app.command("coverage")(coverage_command)
