"""Run ``python -m fcbench`` as a real subprocess, with no provider key in its environment."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def keyless_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without any ``*_API_KEY`` variable, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(extra or {})
    return env


def fcbench(
    *args: str,
    cwd: Path | None = None,
    timeout: float = 300,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``fcbench ARGS`` in ``cwd``: exit code, stdout and stderr as UTF-8 text; never raises on exit code."""
    return subprocess.run(
        [sys.executable, "-m", "fcbench", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        env=keyless_env(env),
        check=False,
    )


def stop(process: subprocess.Popen[str], sig: int = signal.SIGTERM, timeout: float = 10.0) -> None:
    """Send ``sig`` to ``process`` and wait ``timeout`` seconds for it to exit, then kill it."""
    process.send_signal(sig)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout)


__all__ = ["fcbench", "keyless_env", "stop"]
