"""``fcbench local serve`` stopped by a signal leaves nothing behind: llama.cpp's real server (the
cached small model) is started as a user starts it, the parent gets SIGTERM, and then the server
child is gone and its port refuses connections. SIGHUP takes the same path (``STOP_SIGNALS``),
checked on the handler itself; a parent killed outright is ``tests/local/test_serve_orphan.py``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cli_run import keyless_env
from local_engine import SMALL_MODEL, require_model
from processes import alive, children, gone_within

from fcbench.cli.local import STOP_SIGNALS, stopped_by_signals

START_TIMEOUT_S = 120.0
"""Longest wait for the server to load the model and print its URL."""


class Serving:
    """A running ``fcbench local serve``: the process, its server child and the child's base URL."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "fcbench", "local", "serve", SMALL_MODEL],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=keyless_env(),
        )
        self.url = self._printed_url()
        (self.child,) = children(self.process.pid)

    def _printed_url(self) -> str:
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.append(self.process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(START_TIMEOUT_S)
        if not lines or not lines[0].strip():
            self.process.kill()
            pytest.fail(f"fcbench local serve printed no URL within {START_TIMEOUT_S} s")
        return lines[0].split()[-1].removesuffix("/v1")

    def kill(self) -> None:
        for pid in (self.process.pid, self.child):
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        self.process.wait(timeout=30)


def refuses(url: str) -> bool:
    try:
        httpx.get(url + "/health", timeout=5.0, trust_env=False)
    except httpx.ConnectError:
        return True
    return False


pytestmark = pytest.mark.skipif(
    not Path("/proc/self/task").is_dir(), reason="reads child processes from /proc"
)


@pytest.fixture
def serving() -> Iterator[Serving]:
    require_model()
    started = Serving()
    yield started
    started.kill()


def test_sigterm_stops_the_server_child_and_frees_the_port(serving: Serving) -> None:
    assert httpx.get(serving.url + "/health", timeout=10.0, trust_env=False).status_code == 200
    serving.process.send_signal(signal.SIGTERM)
    assert serving.process.wait(timeout=60) == 0
    assert gone_within(serving.child, 30.0), f"server child {serving.child} still runs"
    assert refuses(serving.url)


@pytest.mark.parametrize("sig", STOP_SIGNALS, ids=[sig.name for sig in STOP_SIGNALS])
def test_each_stop_signal_interrupts_like_ctrl_c_and_the_handlers_are_restored(sig: signal.Signals) -> None:
    before = signal.getsignal(sig)
    with pytest.raises(KeyboardInterrupt), stopped_by_signals():
        signal.raise_signal(sig)
    assert signal.getsignal(sig) is before
    assert signal.SIGHUP in STOP_SIGNALS
