"""``fcbench local list|pull|serve``: the managed local models (llama.cpp's server, no keys).

``fcbench run -t local:NAME`` needs none of these (it assembles and serves the model itself);
they are for fetching ahead of time (CI, an offline machine) and for serving by hand.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from typing import Annotated, Any

import typer

STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGTERM, signal.SIGHUP)
"""Signals that stop ``local serve`` the way Ctrl-C does: its server child is stopped, the port freed."""


def list_command() -> None:
    """List the models a local:NAME target can name, and whether each is assembled already.

    Example: fcbench local list
    """
    from fcbench.local import cache_dir, engine_version, is_ready, load_catalogue, model_path
    from fcbench.report.fit import fitted
    from fcbench.report.terminal import data_console, terminal_text

    cache = cache_dir(os.environ)
    rows = []
    for model in load_catalogue().values():
        ready = is_ready(model, cache)
        rows.append(
            (
                " ".join([model.name, *(f"@{variant}" for variant in model.variants)]),
                model.title,
                "yes" if ready else "no (fcbench local pull)",
                str(model_path(model, cache)) if ready else model.file,
                model.sha256[:12],
            )
        )
    console = data_console()
    console.print(
        fitted(("model", "what", "ready", "file", "sha256"), rows, width=console.width, title="local models")
    )
    version = engine_version()
    engine = f"xllamacpp {version}" if version else 'not installed: pip install -e ".[local]"'
    console.print(terminal_text(f"engine: {engine}; cache: {cache}"))


def pull_command(
    names: Annotated[list[str], typer.Argument(help="Model names (see fcbench local list).")],
) -> None:
    """Fetch and assemble models into the cache folder once, verifying each file's SHA-256.

    Example: fcbench local pull qwen2.5-coder-0.5b
    """
    from fcbench.local import cache_dir, ensure_model, find_served
    from fcbench.report.terminal import data_console, terminal_text

    console = data_console(stderr=True)
    cache = cache_dir(os.environ)
    for name in names:
        model = find_served(name).model  # MODEL@VARIANT names the same file
        path = ensure_model(model, cache, say=lambda line: console.print(terminal_text(line)))
        data_console().print(terminal_text(f"{name}: {path}"), soft_wrap=True)


def serve_command(
    name: Annotated[str, typer.Argument(help="Model name, or MODEL@VARIANT (see fcbench local list).")],
) -> None:
    """Serve a local model with llama.cpp's server until interrupted.

    Prints the base URL of each dialect it speaks (openai-chat, anthropic-messages, openai-responses).
    Example: fcbench local serve qwen2.5-coder-0.5b@json-fence
    """
    from fcbench.cli.common import local_service
    from fcbench.endpoints import all_endpoints
    from fcbench.report.terminal import data_console

    console = data_console(stderr=True)
    # Ctrl-C, SIGTERM and SIGHUP (a closed terminal) all leave the block below, which stops the
    # server child; ended by a signal Python does not catch, the process would orphan it.
    with (
        stopped_by_signals(),
        contextlib.suppress(KeyboardInterrupt),
        local_service(name, console) as service,
    ):
        for endpoint in all_endpoints().values():
            if endpoint.managed == "local":
                served = endpoint.resolved(service.url)
                line = f"{served.dialect:<20} {served.base_urls[0]}"
                data_console().print(line, highlight=False, soft_wrap=True)
        while True:
            time.sleep(1)


@contextlib.contextmanager
def stopped_by_signals(signals: tuple[signal.Signals, ...] = STOP_SIGNALS) -> Iterator[None]:
    """Inside the block, each of ``signals`` raises KeyboardInterrupt, as Ctrl-C does."""

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, interrupt) for sig in signals}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def register(app: typer.Typer) -> None:
    """Add the ``local`` command group to the app."""
    group = typer.Typer(
        name="local", help="Managed local models served by llama.cpp (no keys).", no_args_is_help=True
    )
    group.command("list")(list_command)
    group.command("pull")(pull_command)
    group.command("serve")(serve_command)
    app.add_typer(group, name="local")
