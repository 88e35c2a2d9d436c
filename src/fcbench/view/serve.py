"""Serve the viewer with uvicorn on 127.0.0.1 (port 0: a free one), printing its address first.

The viewer answers only requests addressed to the address it listens on (``127.0.0.1:PORT`` or
``localhost:PORT``), and a stop signal wakes every request still waiting for a run's read, so the
server stops even while a read hangs.
"""

from __future__ import annotations

import socket
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import uvicorn

from fcbench.errors import ConfigError
from fcbench.view.app import create_app
from fcbench.view.runs import READ_TIMEOUT_S, RunCatalog

HOST = "127.0.0.1"
"""The viewer listens on the loopback interface only: it shows model output and raw exchanges."""
HOST_NAMES = (HOST, "localhost")
"""The names a request may give the viewer in ``Host`` (each with the port): anything else is refused."""
SHUTDOWN_GRACE_S = 5
"""How long a stopping server waits for requests in progress before it cancels them."""


def listen(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:``port`` (0 picks a free port); ConfigError when taken."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {HOST}:{port}: {exc.strerror or exc}", key="--port") from None
    sock.listen(128)
    return sock


def own_hosts(port: int) -> list[str]:
    """The ``Host`` values of requests addressed to the viewer on ``port``."""
    return [f"{name}:{port}" for name in HOST_NAMES] + (list(HOST_NAMES) if port == 80 else [])


class ViewerServer(uvicorn.Server):
    """uvicorn's server, which on a stop signal also closes the catalog: requests waiting for a read
    are answered at once instead of holding up the shutdown."""

    def __init__(self, config: uvicorn.Config, catalog: RunCatalog) -> None:
        super().__init__(config)
        self.catalog = catalog
        """The runs served, closed when the server is told to stop."""

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        threading.Thread(target=self.catalog.close, name="fcbench-view-close", daemon=True).start()


def serve(
    root: Path,
    port: int,
    *,
    open_browser: bool,
    announce: Callable[[str], None],
    read_timeout_s: float = READ_TIMEOUT_S,
) -> None:
    """Serve the runs at or below ``root`` until interrupted; ``announce`` gets the URL once listening."""
    sock = listen(port)
    bound = sock.getsockname()[1]
    url = f"http://{HOST}:{bound}/"
    app = create_app(root, own_hosts(bound), read_timeout_s)
    config = uvicorn.Config(
        app,
        access_log=False,
        log_level="warning",
        lifespan="off",
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
    )
    server = ViewerServer(config, app.state.catalog)
    announce(url)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # Ctrl-C is how a foreground server stops: exit 0
    finally:
        sock.close()
