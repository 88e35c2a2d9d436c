"""The child process that serves one model with llama.cpp's own HTTP server (``xllamacpp``).

Started by :class:`fcbench.local.server.LocalServer` as ``python -m fcbench.local.serve``; it
writes the address it listens on to ``--address-file`` and serves until SIGTERM, SIGINT or SIGHUP,
or until its parent is gone (a parent killed with SIGKILL cannot stop it: the child notices that
it was handed to another parent and stops itself). It is a process
of its own so that the environment llama.cpp reads at load time (``OMP_WAIT_POLICY``) is set
before the library loads, and so that stopping it frees every thread and byte it used.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path

from fcbench.files import write_replacing

MISSING_EXTRA_EXIT = 3
"""Exit status when ``xllamacpp`` is not installed (the parent turns it into the install hint)."""

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
"""Signals that stop the server."""

PARENT_CHECK_S = 0.5
"""How often the server checks that the process that started it is still its parent."""


def stop_when_orphaned(stop: threading.Event, parent: int) -> None:
    """Set ``stop`` once this process's parent is no longer ``parent`` (it died and the process was
    handed to another one), or once ``stop`` is set."""
    while not stop.wait(PARENT_CHECK_S):
        if os.getppid() != parent:
            stop.set()


def main(argv: list[str] | None = None) -> int:
    """Parse the settings, start the server, write its address, wait for a stop signal or the
    parent's death (the parent is read first thing: a parent gone before then goes unnoticed)."""
    parent = os.getppid()
    parser = argparse.ArgumentParser(prog="python -m fcbench.local.serve")
    parser.add_argument("--model", required=True, help="path of the GGUF file")
    parser.add_argument("--alias", required=True, help="model name the server reports")
    parser.add_argument("--address-file", required=True, type=Path)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--slots", type=int, default=1)
    parser.add_argument(
        "--chat-template-file", type=Path, help="Jinja chat template (default: the model's own)"
    )
    args = parser.parse_args(argv)
    try:
        import xllamacpp
    except ImportError:
        print("xllamacpp is not installed", file=sys.stderr)
        return MISSING_EXTRA_EXIT
    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {args.alias}
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.n_ctx = args.ctx
    params.n_parallel = args.slots
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.use_jinja = True
    if args.chat_template_file is not None:
        params.chat_template = args.chat_template_file.read_text(encoding="utf-8")
    params.ui = False
    stop = threading.Event()
    for sig in STOP_SIGNALS:
        signal.signal(sig, lambda *_: stop.set())
    watch = threading.Thread(target=stop_when_orphaned, args=(stop, parent), daemon=True)
    watch.start()
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as exc:  # a file that is no GGUF model, too little memory, ...
        print(f"llama.cpp could not start with {args.model}: {exc}", file=sys.stderr)
        return 1
    write_replacing(args.address_file, str(server.listening_address))
    stop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
