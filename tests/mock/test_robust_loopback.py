"""Safe defaults: the mock provider listens on loopback only (the embedded server and ``mock serve``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fcbench.mock.server import MockServer

PROC_TCP = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))


def _listening_addresses(port: int) -> set[str]:
    """Local addresses (hex, as in /proc/net/tcp) of sockets listening on ``port``."""
    found = set()
    for table in PROC_TCP:
        if not table.exists():
            continue
        for line in table.read_text().splitlines()[1:]:
            fields = line.split()
            address, hex_port = fields[1].split(":")
            if int(hex_port, 16) == port and fields[3] == "0A":  # 0A: LISTEN
                found.add(address)
    return found


LOOPBACK_V4 = "0100007F"


@pytest.mark.skipif(not PROC_TCP[0].exists(), reason="needs /proc/net/tcp")
def test_the_embedded_mock_listens_on_loopback_only() -> None:
    with MockServer() as server:
        assert server.host == "127.0.0.1"
        assert _listening_addresses(server.port) == {LOOPBACK_V4}


@pytest.mark.skipif(not PROC_TCP[0].exists(), reason="needs /proc/net/tcp")
def test_mock_serve_listens_on_loopback_unless_told_otherwise() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "fcbench", "mock", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        dialect, url = proc.stdout.readline().split()
        assert dialect == "openai-chat" and url.startswith("http://127.0.0.1:")
        port = int(url.split(":")[2].split("/")[0])
        assert _listening_addresses(port) == {LOOPBACK_V4}
    finally:
        proc.terminate()
        proc.wait(timeout=15)
