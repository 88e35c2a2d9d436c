"""``fcbench mock serve --workers N``: N server processes share one port (real subprocess, 127.0.0.1)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from cli_run import stop

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "description": "Find one order by its exact public order ID.",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string", "pattern": "^ORD-[0-9]{6}$"}},
                "required": ["order_id"],
                "additionalProperties": False,
            },
        },
    }
]


def workers_of(pid: int) -> list[int]:
    """Child processes of ``pid`` that are multiprocessing workers (not its resource tracker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid and b"spawn_main" in command:
            found.append(int(entry.name))
    return found


def test_workers_share_the_port_answer_and_stop_together() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "fcbench", "mock", "serve", "--port", "0", "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    workers: list[int] = []
    try:
        assert process.stdout is not None
        urls = dict(process.stdout.readline().split() for _ in range(4))
        assert urls["anthropic-messages"].startswith("http://127.0.0.1:")
        deadline = time.monotonic() + 60
        while len(workers) < 2 or not _healthy(urls["anthropic-messages"]):
            assert time.monotonic() < deadline, f"workers did not come up: {workers}"
            time.sleep(0.1)
            workers = workers_of(process.pid)
        assert len(workers) == 2
        body = {
            "model": "sim-careful",
            "messages": [{"role": "user", "content": "Where is order ORD-104821?"}],
            "tools": TOOLS,
        }
        for _ in range(6):  # a new connection each time: the kernel hands them to either worker
            reply = httpx.post(
                urls["openai-chat"] + "/chat/completions",
                json=body,
                headers={"authorization": "Bearer k"},
                trust_env=False,
                timeout=30,
            )
            assert reply.status_code == 200
            call = reply.json()["choices"][0]["message"]["tool_calls"][0]["function"]
            assert call == {"name": "lookup_order", "arguments": '{"order_id": "ORD-104821"}'}
    finally:
        stop(process, signal.SIGINT, timeout=30)
    assert process.returncode == 0
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in workers):
        assert time.monotonic() < deadline, "workers outlived the server"
        time.sleep(0.1)


def test_workers_must_be_at_least_one() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "fcbench", "mock", "serve", "--workers", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "workers" in result.stderr and "Traceback" not in result.stderr


def _healthy(root: str) -> bool:
    try:
        return httpx.get(root + "/health", timeout=1.0, trust_env=False).status_code == 200
    except httpx.TransportError:
        return False
