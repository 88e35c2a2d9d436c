"""Run the CLI in a real pseudo-terminal of a given size, as a person at a terminal would.

The child gets the pty as its controlling terminal, so a Ctrl-C typed on it (``\\x03``) reaches
it as SIGINT through the terminal's line discipline, the way a key press does.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")
"""Escape sequences and carriage returns, removed from what the terminal showed."""


@dataclass
class PtyResult:
    """What a run in the pseudo-terminal showed and how it ended."""

    returncode: int
    """The child's exit code."""
    screen: str
    """Everything it wrote to the terminal, escape sequences removed."""


def _make_controlling_terminal() -> None:
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def run_in_pty(
    args: list[str],
    *,
    cwd: Path,
    columns: int = 80,
    rows: int = 50,
    env: Mapping[str, str] | None = None,
    timeout: float = 300.0,
    interrupt_when: Callable[[str], bool] | None = None,
) -> PtyResult:
    """Run ``python -m fcbench ARGS`` in a ``columns`` x ``rows`` terminal and collect its screen.

    ``interrupt_when``: typed Ctrl-C once it returns true for the screen so far."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    child_env = {k: v for k, v in (env or os.environ).items() if k not in {"COLUMNS", "LINES"}}
    child_env.setdefault("TERM", "xterm-256color")
    proc = subprocess.Popen(
        [sys.executable, "-m", "fcbench", *args],
        cwd=cwd,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=child_env,
        preexec_fn=_make_controlling_terminal,
        close_fds=True,
    )
    os.close(slave)
    chunks: list[bytes] = []
    interrupted = False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            screen = ANSI.sub("", b"".join(chunks).decode("utf-8", "replace"))
            if interrupt_when is not None and not interrupted and interrupt_when(screen):
                os.write(master, b"\x03")
                interrupted = True
            if proc.poll() is not None and not ready:
                break
        returncode = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    return PtyResult(returncode, ANSI.sub("", b"".join(chunks).decode("utf-8", "replace")))


__all__ = ["PtyResult", "run_in_pty"]
