"""``fcbench view [RUN_DIR | RUNS_ROOT]``: browse runs in a local web page.

The list of runs (every folder with ``manifest.json``), each run's report with every observation
(filters, search, expected and actual side by side, raw exchanges read on demand), and run versus
run. Served on 127.0.0.1 until interrupted, on a free port unless ``--port`` is given; the address
is printed first. Only requests addressed to that address are answered, and a run that cannot be
read within ``--read-timeout`` seconds shows an error page while the others are served.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def view(
    path: Annotated[
        Path,
        typer.Argument(help="A run directory, or a folder of runs (default: ./runs).", show_default=False),
    ] = Path("runs"),
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port on 127.0.0.1 (default: a free one, printed).")
    ] = 0,
    read_timeout: Annotated[
        float,
        typer.Option(min=0.1, help="Seconds to wait for one read of a run before showing it as unreadable."),
    ] = 10.0,
    no_open: Annotated[bool, typer.Option("--no-open", help="Do not open a browser.")] = False,
) -> None:
    """Browse runs in a local web page: runs, reports, every observation, run versus run.

    Examples: fcbench view; fcbench view runs/20260101-120000-abcdef --port 8780 --no-open
    """
    # The server stack (FastAPI, uvicorn, the report) loads only for this command.
    from fcbench.errors import ConfigError
    from fcbench.view.serve import serve

    if not path.is_dir():
        raise ConfigError(f"{path}: no such folder (give a run directory or a folder of runs)", key="PATH")

    def announce(url: str) -> None:
        typer.echo(f"fcbench view: {url}  (Ctrl-C stops)")

    serve(path.resolve(), port, open_browser=not no_open, announce=announce, read_timeout_s=read_timeout)


def register(app: typer.Typer) -> None:
    """Add the ``view`` command to the fcbench app."""
    app.command("view")(view)
