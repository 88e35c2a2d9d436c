"""The llama.cpp server child stops itself when its parent dies without stopping it (SIGKILL):
:func:`fcbench.local.serve.stop_when_orphaned` in a real grandchild process whose parent is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from processes import alive, gone_within

WATCHER = """
import os, sys, threading
from fcbench.local.serve import stop_when_orphaned
stop = threading.Event()
parent = os.getppid()
print(os.getpid(), flush=True)
stop_when_orphaned(stop, parent)
print("stopped", flush=True)
"""

PARENT = f"""
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", {WATCHER!r}], stdout=sys.stdout)
time.sleep(600)
"""


pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads processes from /proc")


def test_a_server_whose_parent_is_killed_stops_itself() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    watcher = int(parent.stdout.readline())  # printed once the watcher knows its parent
    assert alive(watcher)
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=30)
    if not gone_within(watcher, 30.0):
        os.kill(watcher, signal.SIGKILL)
        raise AssertionError("the orphaned server did not stop")
    assert parent.stdout.read().strip() == "stopped"  # printed by the watcher once orphaned
