"""What several verbs share: the progress bar and the embedded mock provider."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from fcbench.run import ProgressSink
from fcbench.store.records import Record


class RichProgress(ProgressSink):
    """A rich progress bar per target: done/planned, errors, ETA."""

    def __init__(self, console: Console) -> None:
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


@contextlib.contextmanager
def embedded_mock(needed: bool, latency_ms: int, faults: str | None) -> Iterator[str | None]:
    """Start the mock provider in the background when a target needs it; yield its URL."""
    if not needed:
        yield None
        return
    from fcbench.mock.server import MockServer

    with MockServer(latency_ms=latency_ms, faults=faults) as server:
        yield server.url
