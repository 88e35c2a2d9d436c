"""The short per-target summary table printed at the end of ``fcbench run`` (from the run's metrics)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from fcbench.redact import sanitize
from fcbench.report.fit import fitted

if TYPE_CHECKING:  # the metrics stack loads only for a summary, not for every verb printing data
    from fcbench.metrics import Rate, RunMetrics


def terminal_text(text: object) -> str:
    """Untrusted text (case ids, tags, target labels, provider messages) safe to print with rich:
    cleaned by the one :func:`~fcbench.redact.sanitize` (no ANSI or OSC-8 sequence reaches the
    terminal) and rich markup escaped. Print it on a console made by :func:`data_console` (emoji
    codes off)."""
    return escape(sanitize(str(text)))


def data_console(*, stderr: bool = False) -> Console:
    """A console for data: no emoji codes (``a:b:m`` stays ``a:b:m``), no highlighting, no wrapping."""
    return Console(stderr=stderr, emoji=False, highlight=False, soft_wrap=True)


def _cell(rate: Rate) -> str:
    return f"{100 * rate.n / rate.d:.0f}% ({rate.n}/{rate.d})" if rate.d else "-"


def print_summary(console: Console, run_dir: Path) -> RunMetrics:
    """Print one row per target and mode, best pass rate first (observed, provider errors,
    decisions, schema validity, semantics, pass rate with its interval, recovery success in
    recovery mode), then where each target fails (one line each), then the unexpected write
    calls (severe), side effects and conversation limits hit, then each provider error code with
    an example; return the metrics."""
    from fcbench.metrics import compute_metrics
    from fcbench.report.authorization import print_authorization
    from fcbench.report.judge import print_judge
    from fcbench.report.notes import model_caused_lines, text_call_lines
    from fcbench.report.tool_order import print_tool_order
    from fcbench.store.records import damaged_note

    metrics = compute_metrics(run_dir)
    columns, rows = summary_table(metrics)
    console.print(fitted(columns, rows, width=console.width, title=f"fcbench run {run_dir.name}"))
    print_failures(console, run_dir, metrics)
    if metrics.damaged_lines:
        console.print(f"warning: {damaged_note(metrics.damaged_lines)}", style="yellow", highlight=False)
    print_writes(console, metrics)
    print_authorization(console, metrics)
    print_unsafe_calls(console, run_dir, metrics)
    print_provider_errors(console, metrics)
    for line in model_caused_lines(metrics) + text_call_lines(run_dir, metrics):
        console.print(terminal_text(line), style="yellow", highlight=False, soft_wrap=True)
    print_tool_order(console, metrics)
    print_judge(console, metrics)
    return metrics


def summary_table(metrics: RunMetrics) -> tuple[list[str], list[list[str]]]:
    """The summary's columns and rows: targets ranked by pass rate (:func:`ranked`), each rate
    with its Wilson 95% interval, and a recovery column when a target ran the recovery mode."""
    from fcbench.report.common import display_name, fmt_rate_ci, ranked

    recovery = any(t.recovery_success.d for t in metrics.targets)
    columns = [
        "target",
        "mode",
        "observed",
        "provider errors",
        "decision",
        "schema-valid",
        "exact args",
        "pass",
    ]
    rows = []
    for t in ranked(metrics):
        if not t.observed:
            continue
        row = [
            sanitize(display_name(t)),
            sanitize(t.mode),
            str(t.observed),
            str(sum(t.provider_errors.values())),
            _cell(t.selection_accuracy),
            _cell(t.schema_valid),
            _cell(t.semantic_exact),
            fmt_rate_ci(t.pass_rate, 0),
        ]
        rows.append(row + ([fmt_rate_ci(t.recovery_success, 0)] if recovery else []))
    return columns + (["recovery"] if recovery else []), rows


def print_failures(console: Console, run_dir: Path, metrics: RunMetrics) -> None:
    """One compact line per target with failures, ranked like the table: where its observations
    failed (:mod:`fcbench.report.failures`), counted in one more pass over the records."""
    from fcbench.report.common import display_name, ranked
    from fcbench.report.failures import FailureCounts, failure_line
    from fcbench.store.view import run_views

    counts = FailureCounts()
    for rec in run_views(run_dir):
        counts(rec)
    for t in ranked(metrics):
        found = counts.of(t.target, t.mode)
        if found:
            line = f"fails {display_name(t)} [{t.mode}]: {failure_line(found)}"
            console.print(terminal_text(line), highlight=False, soft_wrap=True)


def print_unsafe_calls(console: Console, run_dir: Path, metrics: RunMetrics) -> None:
    """Each unsafe write call of the run (the call with its arguments, its case, its target), in
    bold red under the counts; the records are read again only when there is one."""
    from fcbench.report.gate import run_unsafe_writes, unsafe_write_lines

    if not any(t.unexpected_write_calls for t in metrics.targets):
        return
    for line in unsafe_write_lines(run_unsafe_writes(run_dir)):
        console.print(
            f"[bold red]unsafe write:[/bold red] {terminal_text(line)}", highlight=False, soft_wrap=True
        )


def print_writes(console: Console, metrics: RunMetrics) -> None:
    """Per target and mode: unexpected write calls (severe, in bold red), side effects and the
    conversation limits hit, when any."""
    for t in sorted(metrics.targets, key=lambda t: (t.target, t.mode)):
        where = terminal_text(f"{t.target} [{t.mode}]")
        if t.unexpected_write_calls:
            line = (
                f"SEVERE unexpected write calls {where}: {t.unexpected_write_calls} call(s) in "
                f"{_cell(t.unexpected_writes)} of observations"
            )
            console.print(f"[bold red]{line}[/bold red]", highlight=False, soft_wrap=True)
        if t.side_effects or t.replayed_writes:
            line = f"side effects {where}: {t.side_effects} (replayed writes: {t.replayed_writes})"
            console.print(line, highlight=False, soft_wrap=True)
        if t.limit_hits:
            hits = ", ".join(f"{terminal_text(name)} x{count}" for name, count in t.limit_hits.items())
            console.print(f"conversation limits hit {where}: {hits}", highlight=False, soft_wrap=True)
        if t.cached:
            line = (
                f"cached {where}: {t.cached} observations answered from the response cache "
                "(not in stability, latency, tokens or cost)"
            )
            console.print(line, highlight=False, soft_wrap=True)


def print_provider_errors(console: Console, metrics: RunMetrics) -> None:
    """Per target and mode with provider errors: the count of each code and one example message."""
    for t in sorted(metrics.targets, key=lambda t: (t.target, t.mode)):
        for code, count in t.provider_errors.items():
            example = t.provider_error_examples.get(code, "")
            line = f"provider errors {t.target} [{t.mode}]: {code} x{count}" + (
                f": {example}" if example else ""
            )
            console.print(terminal_text(line), highlight=False, soft_wrap=True)
