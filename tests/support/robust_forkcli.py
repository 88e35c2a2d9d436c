"""Run many CLI invocations quickly, each in its own process.

Starting ``python -m fcbench`` costs about a second of imports; a corpus of a hundred inputs would
spend most of its time importing. :class:`ForkedCli` starts one helper interpreter that imports the
CLI (every verb and the heavy modules they use) once, then forks a fresh child per invocation.
Each child is a separate OS process that sets its own working directory, environment, argv and
standard streams, runs the real entry point
(``fcbench.cli.app.main``, what ``python -m fcbench`` runs), and exits the way the interpreter
would: ``SystemExit`` codes as given, an uncaught exception as a printed traceback and code 1.
The corpus test (``tests/cli/test_robust_bad_input_corpus.py``) also runs a sample through real
``python -m fcbench`` subprocesses and checks both ways agree.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import TracebackType

HELPER = r"""
import importlib, json, os, signal, sys, time, traceback
from fcbench.cli.app import build_app, main

build_app()  # registers every verb once, before any fork; verbs import what they run lazily, so:
for warm in ("fcbench.config", "fcbench.bfcl.convert", "fcbench.report.compare", "fcbench.store.merge",
             "fcbench.suite.loader", "fcbench.report.render", "fcbench.report.html", "fcbench.run",
             "fcbench.mock.server"):
    try:
        importlib.import_module(warm)
    except ImportError:
        pass

def child(job):
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    for fd, path in ((1, job["stdout"]), (2, job["stderr"])):
        os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
    os.chdir(job["cwd"])
    os.environ.clear()
    os.environ.update(job["env"])
    sys.argv = ["fcbench", *job["args"]]
    code = 0
    try:
        main(job["args"])
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)

for line in sys.stdin:
    job = json.loads(line)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            child(job)
        finally:
            os._exit(70)
    deadline = time.monotonic() + job["timeout"]
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            code = "timeout"
            break
        time.sleep(0.005)
    print(json.dumps({"code": code}), flush=True)
"""


class ForkedCli:
    """A helper interpreter that runs ``fcbench`` invocations in forked children, one at a time."""

    def __init__(self, scratch: Path) -> None:
        self._scratch = scratch
        self._count = 0
        self._proc = (
            subprocess.Popen(
                [sys.executable, "-c", HELPER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
            )
            if hasattr(os, "fork")
            else None
        )

    def run(
        self, args: list[str], cwd: Path, env: dict[str, str], timeout: float = 60
    ) -> tuple[int | str, str, str]:
        """``(exit code or "timeout", stdout, stderr)`` of ``fcbench ARGS`` run in ``cwd`` with ``env``."""
        if self._proc is None:  # no fork on this platform: a plain subprocess per invocation
            cmd = [sys.executable, "-m", "fcbench", *args]
            done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
            return done.returncode, done.stdout, done.stderr
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._count += 1
        out = self._scratch / f"{self._count}.out"
        err = self._scratch / f"{self._count}.err"
        job = {"args": args, "cwd": str(cwd), "env": env, "stdout": str(out), "stderr": str(err)}
        self._proc.stdin.write(json.dumps({**job, "timeout": timeout}) + "\n")
        self._proc.stdin.flush()
        reply = json.loads(self._proc.stdout.readline())
        return reply["code"], out.read_text(errors="replace"), err.read_text(errors="replace")

    def close(self) -> None:
        """Stop the helper interpreter."""
        if self._proc is None:
            return
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait(timeout=10)

    def __enter__(self) -> ForkedCli:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
