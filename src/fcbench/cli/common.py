"""What several verbs share: progress (a bar or plain lines) and the managed services a run needs
(the embedded mock provider, llama.cpp's server for local models)."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from fcbench.endpoints import RunningService
from fcbench.files import check_user_path
from fcbench.report.terminal import terminal_text
from fcbench.run import ProgressSink
from fcbench.run.plan import Target
from fcbench.store.records import Record


class RichProgress(ProgressSink):
    """A rich progress bar per target: done/planned, errors, ETA."""

    def __init__(self, console: Console) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("errors {task.fields[errors]}"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self._tasks: dict[str, Any] = {}

    def start(self, totals: dict[str, int], done: dict[str, int]) -> None:
        for label, total in totals.items():
            self._tasks[label] = self._progress.add_task(
                label, total=total, completed=done.get(label, 0), errors=0
            )
        self._progress.start()

    def advance(self, label: str, record: Record) -> None:
        task = self._tasks[label]
        if record.outcome.kind == "provider_error":
            errors = self._progress.tasks[task].fields["errors"] + 1
            self._progress.update(task, advance=1, errors=errors)
        else:
            self._progress.advance(task)

    def stop(self) -> None:
        self._progress.stop()


class LineProgress(ProgressSink):
    """Progress as plain lines, for logs and CI (when stderr is not a terminal): one line about
    every ``step`` observations and one at the end, with counts, provider errors and the first
    error message of each code as it appears."""

    def __init__(self, console: Console, lines: int = 20) -> None:
        self._console = console
        self._lines = lines
        self._total = self._done = self._errors = 0
        self._step = 1
        self._seen_codes: set[str] = set()

    def _say(self, text: str) -> None:
        self._console.print(terminal_text(text), highlight=False, soft_wrap=True)

    def start(self, totals: dict[str, int], done: dict[str, int]) -> None:
        self._total = sum(totals.values())
        self._done = sum(done.values())
        self._step = max(1, (self._total - self._done) // self._lines)
        self._say(f"progress: {self._done}/{self._total} observations over {len(totals)} targets")

    def advance(self, label: str, record: Record) -> None:
        self._done += 1
        outcome = record.outcome
        if outcome.kind == "provider_error":
            self._errors += 1
            if outcome.code not in self._seen_codes:
                self._seen_codes.add(outcome.code)
                self._say(f"provider error {label}: {outcome.code}: {outcome.message[:200]}")
        if self._done % self._step == 0:
            self._say(f"progress: {self._done}/{self._total} observations, {self._errors} provider errors")

    def stop(self) -> None:
        self._say(f"progress: done, {self._done}/{self._total} observations, {self._errors} provider errors")


def progress_sink(console: Console) -> ProgressSink:
    """A progress bar on a terminal, progress lines otherwise (piped output, CI logs)."""
    return RichProgress(console) if console.is_terminal else LineProgress(console)


def check_input_paths(suite: str | None) -> None:
    """Refuse a suite path that is, or whose folder holds, a FIFO, device or socket (reading one would
    hang or never end) with an :class:`~fcbench.errors.InputError` naming it; a built-in suite name
    or a missing path is left to the loader."""
    if not suite:
        return
    path = Path(suite)
    check_user_path(path)
    if path.is_dir():
        for entry in sorted(path.iterdir()):
            check_user_path(entry)


@dataclass
class Interruption:
    """Which signal stopped a run, if any (SIGTERM is handled exactly like Ctrl-C)."""

    signal_name: str = "SIGINT"
    """``SIGINT`` or ``SIGTERM``."""

    @property
    def exit_code(self) -> int:
        """128 + the signal number: 130 for Ctrl-C, 143 for SIGTERM."""
        return 128 + int(getattr(signal, self.signal_name))


@contextlib.contextmanager
def interruptible() -> Iterator[Interruption]:
    """Turn SIGTERM into Ctrl-C for the block, so both cancel the run the same orderly way (every
    finished observation written) and the caller can print the resume command.

    A process started with SIGINT ignored (a background job of a script: ``fcbench run &``) gets
    Python's Ctrl-C handling back for the block: without it the forwarded SIGINT would be ignored
    too, and a SIGTERM (``kill``, ``timeout``, a cancelled CI job) would not stop the run.
    """
    seen = Interruption()

    def on_term(signum: int, frame: Any) -> None:
        # Forwarded as SIGINT: inside asyncio.run that is the runner's own Ctrl-C path (it cancels
        # the main task, then raises KeyboardInterrupt), where raising here could land the
        # exception in whichever task happens to run ("Task exception was never retrieved").
        seen.signal_name = "SIGTERM"
        signal.raise_signal(signal.SIGINT)

    previous = signal.signal(signal.SIGTERM, on_term)
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGTERM, previous)
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def managed_services(
    targets: Sequence[Target], *, mock_latency_ms: int = 0, mock_faults: str | None = None, console: Console
) -> Iterator[dict[str, RunningService]]:
    """Start every managed service the targets need (the mock once, one llama.cpp server per local
    model), yield them by :meth:`~fcbench.endpoints.Endpoint.service_key`, stop them afterwards."""
    services: dict[str, RunningService] = {}
    with contextlib.ExitStack() as stack:
        for target in targets:
            key = target.endpoint.service_key(target.model)
            if key is None or key in services:
                continue
            if target.endpoint.managed == "mock":
                from fcbench.mock.server import MockServer

                mock = stack.enter_context(MockServer(latency_ms=mock_latency_ms, faults=mock_faults))
                pins = {"managed": "mock", "latency_ms": mock_latency_ms, "faults": mock_faults or "none"}
                services[key] = RunningService(mock.url, pins)
            else:
                services[key] = stack.enter_context(local_service(target.model, console))
        yield services


@contextlib.contextmanager
def local_service(name: str, console: Console) -> Iterator[RunningService]:
    """Assemble (once) and serve the local catalogue model ``name`` (``MODEL`` or ``MODEL@VARIANT``)."""
    from fcbench.local import LocalServer, cache_dir, ensure_model, find_served, require_engine

    served = find_served(name)
    require_engine()
    cache = cache_dir(os.environ)
    path = ensure_model(served.model, cache, say=lambda line: console.print(terminal_text(line)))
    console.print(terminal_text(f"starting llama.cpp's server for {name} ..."))
    log_path = cache / "logs" / f"{name}.log"
    with LocalServer(served.model, path, log_path=log_path, variant=served.variant) as server:
        yield RunningService(server.url, server.pins())
