"""The event loop every run, replay and probe runs on: uvloop's where it is installed.

uvloop (libuv under asyncio's interface) spends less CPU per request than asyncio's own loop, on
fcbench's side of every exchange; where it is missing (it has no Windows build), asyncio's loop is
used and nothing else changes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

Result = TypeVar("Result")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's ``new_event_loop`` where uvloop is installed, else None (asyncio's default loop)."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def run_async(main: Coroutine[Any, Any, Result]) -> Result:
    """Run ``main`` to its end on a new event loop (:func:`loop_factory`), as :func:`asyncio.run` does."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)


__all__ = ["loop_factory", "run_async"]
