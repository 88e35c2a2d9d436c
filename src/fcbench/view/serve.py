"""Serve the viewer with uvicorn on 127.0.0.1 (port 0: a free one), printing its address first."""

from __future__ import annotations

import socket
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path

import uvicorn

from fcbench.errors import ConfigError
from fcbench.view.app import create_app

HOST = "127.0.0.1"
"""The viewer listens on the loopback interface only: it shows model output and raw exchanges."""


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


def serve(root: Path, port: int, *, open_browser: bool, announce: Callable[[str], None]) -> None:
    """Serve the runs at or below ``root`` until interrupted; ``announce`` gets the URL once listening."""
    sock = listen(port)
    url = f"http://{HOST}:{sock.getsockname()[1]}/"
    config = uvicorn.Config(create_app(root), access_log=False, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    announce(url)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # Ctrl-C is how a foreground server stops: exit 0
    finally:
        sock.close()
