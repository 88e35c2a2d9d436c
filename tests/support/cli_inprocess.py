"""Run the ``fcbench`` entry point in this process, for tests about what a verb decides.

:func:`fcbench_in_process` calls :func:`fcbench.cli.app.main` (what ``python -m fcbench`` runs, with
its own handling of bad input and exit codes) with standard streams captured by typer's
``CliRunner`` isolation, and returns what a subprocess would: exit code, stdout and stderr. It saves
the ~0.5 s of imports a new interpreter spends. Tests about the process edge (signals, a terminal,
the interpreter's own exit) keep using real subprocesses (``cli_run.fcbench``).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from fcbench.cli.app import main

KEPT_VARIABLES = ("COLUMNS",)
"""Variables the entry point may set for itself; restored after each call."""


def fcbench_in_process(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``fcbench ARGS`` run in-process (in ``cwd`` when given): exit code, stdout and stderr as text;
    never raises on exit code.

    Any ``*_API_KEY`` variable is hidden for the call, as for the subprocess helper."""
    hidden = {name: None for name in os.environ if name.endswith("_API_KEY")}
    kept = {name: os.environ.get(name) for name in KEPT_VARIABLES}
    folder = contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext()
    with folder, CliRunner().isolation(env={**hidden, **kept}) as (stdout, stderr, _):
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        sys.stdout.flush()  # the captured streams are buffered text wrappers
        sys.stderr.flush()
        out = stdout.getvalue().decode("utf-8", errors="replace")
        err = stderr.getvalue().decode("utf-8", errors="replace")
    return subprocess.CompletedProcess(["fcbench", *args], code, out, err)


__all__ = ["fcbench_in_process"]
