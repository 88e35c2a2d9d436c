"""Start-up stays light: registering the verbs and printing ``fcbench --help`` import none of the
heavy modules a verb needs only to run (the speed itself is measured in ``benchmarks/startup.py``).

Each check runs a fresh interpreter, so what was imported is exactly what start-up imports.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import typer.main

from fcbench.cli.app import build_app

HEAVY = (
    "pydantic",
    "pydantic_core",
    "jsonschema",
    "httpx",
    "aiohttp",
    "fastapi",
    "uvicorn",
    "plotly",
    "jinja2",
    "yaml",
    "fcbench.contract",
    "fcbench.grading",
    "fcbench.mock",
    "fcbench.report",
    "fcbench.run",
)
"""Modules (with everything below them) that a verb imports inside its command, never at start-up."""


def heavy_among(modules: list[str]) -> list[str]:
    """The modules of ``modules`` that are, or sit below, one of :data:`HEAVY`."""
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def modules_after(code: str) -> list[str]:
    """``sys.modules`` of a fresh interpreter after running ``code``."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    modules: list[str] = json.loads(proc.stdout.splitlines()[-1])
    return modules


def test_importing_the_app_and_registering_every_verb_imports_nothing_heavy() -> None:
    modules = modules_after("import fcbench.cli.app\nfcbench.cli.app.build_app()")
    assert "fcbench.cli.run" in modules and "fcbench.cli.targets" in modules
    assert heavy_among(modules) == []


def test_the_check_sees_a_heavy_import() -> None:
    # The shared helpers of run and compat import the pipeline: what the test above must catch.
    modules = modules_after("import fcbench.cli.app, fcbench.cli.common")
    assert {"pydantic", "aiohttp", "fcbench.run"} <= set(heavy_among(modules))


def test_the_run_verb_does_not_load_the_markdown_renderer() -> None:
    # fcbench run prints tables, not markdown: rich's markdown renderer (markdown-it, pygments) takes
    # 30-40 ms to import
    modules = modules_after("import fcbench.cli.run, fcbench.cli.common, fcbench.report.terminal")
    assert "fcbench.report.fit" in modules
    assert not {"rich.markdown", "markdown_it", "pygments"} & set(modules)


def test_help_lists_every_verb_and_imports_nothing_heavy() -> None:
    verbs = sorted(typer.main.get_command(build_app()).commands)  # type: ignore[attr-defined]
    assert len(verbs) >= 10
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "fcbench", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "200", "PATH": ""},
    )
    assert proc.returncode == 0, proc.stderr
    listed = {m.group(1) for m in re.finditer(r"^\W*([a-z]+)\s{2,}\S", proc.stdout, re.MULTILINE)}
    missing = [verb for verb in verbs if verb not in listed]
    assert not missing, f"fcbench --help does not list {missing}:\n{proc.stdout}"
    imported = [line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if "|" in line]
    assert "typer" in imported
    assert heavy_among(imported) == []


def test_the_public_api_loads_on_first_use() -> None:
    script = (
        "import sys\n"
        "import fcbench\n"
        "assert 'pydantic' not in sys.modules and 'fcbench.grading' not in sys.modules, 'eager'\n"
        "from fcbench import grade, Tool, FcbenchError, __version__\n"
        "from fcbench import *\n"
        "assert fcbench.grade is grade and fcbench.adapters.get\n"
        "assert all(hasattr(fcbench, name) for name in fcbench.__all__)\n"
        "assert fcbench.__all__ == sorted(fcbench.__all__)\n"
        "assert set(fcbench.__all__) <= set(dir(fcbench))\n"
        "print(__version__, grade.__module__, Tool.__module__, FcbenchError.__module__)"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    version, *modules = proc.stdout.split()
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", version)
    assert modules == ["fcbench.grading", "fcbench.contract", "fcbench.errors"]


def test_an_unknown_public_name_is_an_attribute_error() -> None:
    import fcbench

    for name in ("no_such_name", "__no_such_dunder__"):
        assert not hasattr(fcbench, name)
