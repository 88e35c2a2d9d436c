"""Measure fcbench as an installed tool is: with its bytecode cache written.

An installed package's modules are read from ``__pycache__``; a source checkout whose cache was
never written (a fresh clone, or an environment with ``PYTHONDONTWRITEBYTECODE`` set) compiles
every module of fcbench at each start, about 0.1-0.3 s of CPU that no user pays. Benchmarks that
start fcbench in child processes call :func:`compile_fcbench` first so they measure the former.
"""

from __future__ import annotations

import compileall
import importlib.util
from pathlib import Path


def compile_fcbench() -> None:
    """Write the bytecode cache of every fcbench module, as pip does on install."""
    spec = importlib.util.find_spec("fcbench")
    if spec is None or spec.origin is None:
        raise SystemExit("fcbench is not importable from this interpreter")
    package = Path(spec.origin).parent
    if not compileall.compile_dir(package, quiet=1):
        raise SystemExit(f"compiling {package} failed")
