"""``fcbench mock serve`` (real subprocess)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import httpx
from cli_run import stop

from fcbench.cli.app import VERB_MODULES
from fcbench.mock.server import BASE_PATHS

# Until the verb is listed in the app's VERB_MODULES, run the real entry point with it added.
_BOOT = (
    "import fcbench.cli.app as cli; cli.VERB_MODULES = (*cli.VERB_MODULES, 'fcbench.cli.mock'); cli.main()"
)


def _command(*args: str) -> list[str]:
    if "fcbench.cli.mock" in VERB_MODULES:
        return [sys.executable, "-m", "fcbench", *args]
    return [sys.executable, "-c", _BOOT, *args]


def test_cli_serve_prints_base_urls_and_serves() -> None:
    process = subprocess.Popen(
        _command("mock", "serve", "--port", "0", "--faults", "rate_limit:1.0"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline().split() for _ in range(len(BASE_PATHS))]
        urls = dict((name, url) for name, url in lines)
        assert set(urls) == set(BASE_PATHS)
        root = urls["anthropic-messages"]
        assert root.startswith("http://127.0.0.1:") and urls["gemini"] == root + "/v1beta"
        deadline = time.monotonic() + 15
        while True:
            try:
                health = httpx.get(root + "/health", timeout=1, trust_env=False)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "server did not come up"
                time.sleep(0.05)
        assert health.status_code == 200
        limited = httpx.post(
            urls["openai-chat"] + "/chat/completions",
            headers={"authorization": "Bearer k"},
            json={"model": "sim-scripted", "messages": [{"role": "user", "content": "x"}]},
            trust_env=False,
        )
        assert limited.status_code == 429, "--faults reaches the server"
    finally:
        stop(process, signal.SIGINT, timeout=15)
    assert process.returncode == 0


def test_cli_rejects_a_bad_fault_spec() -> None:
    result = subprocess.run(
        _command("mock", "serve", "--faults", "meteor:0.5"), capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert "meteor" in result.stderr and "Traceback" not in result.stderr
