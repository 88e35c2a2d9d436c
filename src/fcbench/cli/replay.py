"""``fcbench replay``: send logged requests to a new target and compare its choices (shadow replay).

``fcbench replay LOG.jsonl... --dialect D --target ENDPOINT:MODEL [--out DIR] [--format md|json]``
reads the logs (:mod:`fcbench.logs.entries`; traces with ``--log-format otel|langfuse
[--tools FILE]``), sends each logged request once to the target without executing any tool,
and prints how often the target made the same decision, called the same tools and sent the same
arguments (:mod:`fcbench.logs.replay`). With ``--out`` the report (``replay.md``, ``replay.json``)
and the redacted raw exchanges (``exchanges.jsonl``) are written there. Exit codes: 0 when
something was compared, 1 when no request was replayed successfully, 2 for bad input.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fcbench.cli.importer import DialectOption, LogFormatOnlyOption, LogsArgument, SkipBadOption, ToolsOption


def replay_command(
    logs: LogsArgument,
    target: Annotated[str, typer.Option("--target", "-t", help="ENDPOINT:MODEL to replay against.")],
    dialect: DialectOption = None,
    log_format: LogFormatOnlyOption = "wire",
    tools: ToolsOption = None,
    out: Annotated[
        Path | None, typer.Option(help="Folder for the report and the redacted raw exchanges.")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="md or json (printed).")] = "md",
    skip_bad: SkipBadOption = False,
    concurrency: Annotated[int, typer.Option(min=1, help="Requests in flight.")] = 4,
    max_tokens: Annotated[int, typer.Option(min=1, help="Output token limit per request.")] = 1024,
    mock_latency_ms: Annotated[int, typer.Option(help="Latency of the embedded mock provider.")] = 0,
) -> None:
    """Shadow-replay logged requests against a new target (no tool is executed); report agreement.

    Example: fcbench replay prod.jsonl --dialect openai-chat --target sim:sim-careful --out replay/
    (or: fcbench replay spans.json --log-format otel --target sim:sim-careful)
    """
    from dataclasses import replace

    from fcbench.cli.common import managed_services
    from fcbench.cli.output import print_data
    from fcbench.endpoints import all_endpoints, parse_target
    from fcbench.errors import ConfigError
    from fcbench.logs.formats import read_log_files, tools_file
    from fcbench.logs.render import RENDERERS
    from fcbench.logs.replay import ReplayOptions, replay
    from fcbench.logs.traces import ReadOptions
    from fcbench.redact import sanitize
    from fcbench.report.terminal import data_console, terminal_text
    from fcbench.run.plan import Target
    from fcbench.transport.event_loop import run_async

    if fmt not in RENDERERS:
        raise ConfigError(f"unknown format {fmt!r}; known: {', '.join(RENDERERS)}", key="--format")
    offered = tools_file(tools) if tools else ()
    read, source = read_log_files(logs, log_format, ReadOptions(dialect, skip_bad, offered))
    endpoint, model = parse_target(target, all_endpoints())
    api_key = endpoint.api_key()
    chosen = Target(endpoint, model)
    errors = data_console(stderr=True)
    for bad in read.bad:  # a reason may quote the line: secrets of a documented kind go
        print_data(errors, f"skipped {bad.source}:{bad.line}: {bad.reason}", redact=True)
    with managed_services([chosen], mock_latency_ms=mock_latency_ms, console=errors) as services:
        key = endpoint.service_key(model)
        service = services.get(key) if key is not None else None
        resolved = replace(chosen, endpoint=endpoint.resolved(service.url if service else None))
        report = run_async(
            replay(
                read.entries,
                resolved,
                api_key,
                dialect=source,
                files=[str(p) for p in logs],
                options=ReplayOptions(concurrency=concurrency, max_tokens=max_tokens),
                record_dir=out,
            )
        )
    if out is not None:
        for name, render in RENDERERS.items():
            (out / f"replay.{name}").write_text(render(report), encoding="utf-8")
    data_console().out(sanitize(RENDERERS[fmt](report)), end="", highlight=False)
    if not report.compared:
        errors.print(terminal_text(f"nothing was replayed successfully ({len(report.comparisons)} sent)"))
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``replay`` to the app."""
    app.command("replay")(replay_command)
