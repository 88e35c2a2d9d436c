"""``fcbench mock serve``: run the mock provider in the foreground until interrupted.

At startup one line per dialect of the mock's registry gives its base URL (``DIALECT URL``), for
example::

    openai-chat          http://127.0.0.1:8765/v1
    anthropic-messages   http://127.0.0.1:8765
    gemini               http://127.0.0.1:8765/v1beta

``--workers N`` serves from N processes sharing the port, for load tests that need more than one
core; each worker keeps its own request counts and stored Responses conversations.
"""

from __future__ import annotations

from typing import Annotated

import typer

from fcbench.cli.helptext import RegistryHelpCommand
from fcbench.errors import ConfigError

DEFAULT_PORT = 8765


def serve_command(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port; 0 picks a free one.")] = DEFAULT_PORT,
    latency_ms: Annotated[
        int, typer.Option("--latency-ms", help="Fixed delay before every model response.")
    ] = 0,
    faults: Annotated[
        str | None,
        typer.Option(help="Random faults, e.g. 'rate_limit:0.1,server_error:0.05,seed=7'."),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            help="Server processes sharing the port, for load tests on several cores. Each keeps its "
            "own request counts (fault draws, sim-flaky) and Responses conversations: use 1 to reproduce.",
        ),
    ] = 1,
) -> None:
    """Serve the mock provider ({mock_dialects}) until interrupted.

    Examples: fcbench mock serve --port 8765; fcbench mock serve --workers 2 --latency-ms 200
    """
    # The server stack (FastAPI, uvicorn) loads only for this command, not on every fcbench start.
    from fcbench.mock.faults import FaultSpec
    from fcbench.mock.server import base_urls, bind_socket, build_server, serve_workers

    if latency_ms < 0:
        raise ConfigError(f"must be 0 or more, got {latency_ms}", key="--latency-ms")
    spec = FaultSpec.parse(faults)
    server = build_server(latency_ms=latency_ms, faults=spec) if workers == 1 else None
    sock = bind_socket(host, port)
    shown_host = f"[{host}]" if ":" in host else host
    root = f"http://{shown_host}:{sock.getsockname()[1]}"
    for dialect, url in base_urls(root).items():
        print(f"{dialect:<20} {url}", flush=True)
    try:
        if server is not None:
            server.run(sockets=[sock])
        else:
            serve_workers(sock, workers, latency_ms=latency_ms, faults=spec)
    except KeyboardInterrupt:
        pass  # Ctrl-C is how a foreground server is meant to stop: exit 0
    finally:
        sock.close()


def register(app: typer.Typer) -> None:
    """Add the ``mock`` command group (``fcbench mock serve``) to the app."""
    group = typer.Typer(name="mock", help="The built-in mock provider.", no_args_is_help=True)
    short = "Serve the mock provider, in every dialect, until interrupted."
    group.command("serve", cls=RegistryHelpCommand, short_help=short)(serve_command)
    app.add_typer(group, name="mock")
