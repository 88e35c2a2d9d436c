"""The log formats ``import logs`` and ``replay`` read (``--format``), one registry.

* ``wire`` (the default): JSON Lines of raw request/response pairs of one dialect (``--dialect``),
  read by the dialect's adapter (:mod:`fcbench.logs.entries`).
* ``otel``: OTLP JSON files of spans with the OpenTelemetry GenAI conventions (:mod:`fcbench.logs.otel`).
* ``langfuse``: Langfuse trace exports (:mod:`fcbench.logs.langfuse`).

Every format yields the same :class:`~fcbench.logs.entries.LogEntry` values (a canonical request
and the logged answer), so cases and replay do not know where an entry came from.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fcbench.adapters.logged import RequestFormatError
from fcbench.contract import Tool
from fcbench.errors import InputError
from fcbench.logs import langfuse, otel
from fcbench.logs.chat import read_tools
from fcbench.logs.entries import LogRead, read_logs
from fcbench.logs.traces import ReadOptions, TraceFormat, read_traces


def _read_wire(paths: Sequence[Path], options: ReadOptions) -> LogRead:
    if not options.dialect:
        raise InputError("--dialect is needed to read wire logs (--format wire)")
    return read_logs(paths, options.dialect, skip_bad=options.skip_bad)


def _trace_reader(trace: TraceFormat) -> Callable[[Sequence[Path], ReadOptions], LogRead]:
    def read(paths: Sequence[Path], options: ReadOptions) -> LogRead:
        return read_traces(trace, paths, options)

    return read


@dataclass(frozen=True)
class LogFormat:
    """One ``--format`` of ``import logs`` and ``replay``."""

    read: Callable[[Sequence[Path], ReadOptions], LogRead]
    """Reads the files into log entries."""
    summary: str
    """One line for the help text and the docs."""
    needs_dialect: bool = False
    """The format is one dialect's wire traffic (``--dialect`` says which)."""
    label: Callable[[ReadOptions], str] = field(default=lambda options: "")
    """The name reports give the logs' source."""


LOG_FORMATS: dict[str, LogFormat] = {
    "wire": LogFormat(
        _read_wire,
        "JSON Lines of raw request/response pairs of one dialect",
        needs_dialect=True,
        label=lambda options: options.dialect or "wire",
    ),
    "otel": LogFormat(
        _trace_reader(otel.FORMAT),
        "OTLP JSON spans with the OpenTelemetry GenAI conventions",
        label=lambda options: "otel",
    ),
    "langfuse": LogFormat(
        _trace_reader(langfuse.FORMAT),
        "a Langfuse trace export (JSON)",
        label=lambda options: "langfuse",
    ),
}
"""``--format`` name -> how its files are read."""


def log_format(name: str) -> LogFormat:
    """The format called ``name``; an :class:`InputError` naming the known ones otherwise."""
    if name not in LOG_FORMATS:
        raise InputError(f"unknown log format {name!r}; known: {', '.join(LOG_FORMATS)}")
    return LOG_FORMATS[name]


def tools_file(path: Path) -> tuple[Tool, ...]:
    """The tools of a tool-list file (any published format) for traces that record none (``--tools``)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot be read: {exc.strerror or exc}", path=str(path)) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(f"is not a JSON tool list: {exc}", path=str(path)) from None
    try:
        return tuple(read_tools(value, "tools"))
    except RequestFormatError as exc:
        raise InputError(str(exc), path=str(path)) from None


def read_log_files(paths: Sequence[Path], fmt: str, options: ReadOptions) -> tuple[LogRead, str]:
    """The entries of ``paths`` in format ``fmt``, and the name reports give their source."""
    chosen = log_format(fmt)
    return chosen.read(paths, options), chosen.label(options)


__all__ = ["LOG_FORMATS", "LogFormat", "log_format", "read_log_files", "tools_file"]
