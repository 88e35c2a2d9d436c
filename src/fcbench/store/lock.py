"""An exclusive lock on a run directory, so two processes never write one run.

``fcbench run`` (and ``--resume``) hold the lock for as long as they write; a second process
asking for it gets a :class:`~fcbench.errors.RunStateError` naming the holder (exit 2) instead
of recording every missing observation a second time. The lock is an ``flock`` on ``.lock`` in
the run directory: the kernel releases it when the holder exits, even when killed, so a stale
file never blocks a resume.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from fcbench.errors import RunStateError
from fcbench.files import open_run_file

LOCK_FILE = ".lock"
"""The lock file inside a run directory (it holds the holder's pid, for the error message)."""


@contextlib.contextmanager
def held_lock(path: Path, *, wait: bool) -> Iterator[tuple[IO[str], bool]]:
    """An exclusive ``flock`` on the file ``path`` (created if missing, never through a link) for the
    ``with`` block: yields the open file and whether the lock is held (false only without ``wait``,
    when another process holds it; the caller then refuses). ``wait`` blocks until it is free."""
    handle = open_run_file(path, "a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield handle, False
            return
        try:
            yield handle, True
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    finally:
        handle.close()


@contextlib.contextmanager
def run_dir_lock(run_dir: Path) -> Iterator[None]:
    """Hold ``run_dir`` exclusively for the ``with`` block, or raise :class:`RunStateError` at once."""
    with held_lock(run_dir / LOCK_FILE, wait=False) as (handle, held):
        if not held:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise RunStateError(
                f"{run_dir}: in use by another fcbench process ({holder}); "
                "wait for it to finish, then resume if anything is left"
            )
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}\n")
        handle.flush()
        yield
