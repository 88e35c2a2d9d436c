"""``fcbench --help`` builds no verb and loads no help renderer; ``fcbench run`` sends its first request
before loading what only the end of a run needs (the speed itself: ``benchmarks/startup.py``).

Each check that counts imports runs a fresh interpreter, so what was imported is exactly what that
command imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from cli_run import fcbench

from fcbench.cli.app import build_app, build_command
from fcbench.cli.helpformat import summary

NOT_FOR_HELP = (
    "rich",
    "typer.rich_utils",
    "markdown_it",
    "pygments",
    "typer._adapters",
    "pydantic",
    "jsonschema",
    "aiohttp",
    "msgspec",
    "fcbench.redact",
    "fcbench.contract",
    "fcbench.grading",
    "fcbench.metrics",
    "fcbench.report",
)
"""Modules (with everything below them) ``fcbench --help`` must not import: typer's rich help
renderer (rich.markdown, rich.traceback), typer's pydantic coercion, fcbench's models and grader."""

NOT_BEFORE_FIRST_REQUEST = (
    "fcbench.metrics",
    "fcbench.report.render",
    "fcbench.report.markdown",
    "fcbench.report.html",
    "fcbench.view",
    "fcbench.history",
    "fcbench.bfcl",
    "jinja2",
    "plotly",
    "rich.markdown",
    "markdown_it",
    "typer.rich_utils",
)
"""What only the end of a run (summary, reports) or other verbs need: never loaded before the first
request leaves."""

MODULES_AT_EXIT = (
    "import atexit, json, sys\natexit.register(lambda: print(json.dumps(sorted(sys.modules))))\n"
)


def among(modules: list[str], watched: tuple[str, ...]) -> list[str]:
    """The modules of ``modules`` that are, or sit below, one of ``watched``."""
    return sorted(m for m in modules if any(m == w or m.startswith(w + ".") for w in watched))


def fcbench_modules(*args: str) -> tuple[str, list[str]]:
    """The output of ``fcbench ARGS`` in a fresh interpreter, and every module imported by its end."""
    script = f"{MODULES_AT_EXIT}import sys\nsys.argv = ['fcbench', *{list(args)!r}]\n"
    script += "from fcbench.cli.app import main\nmain()\n"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env={"COLUMNS": "200"}
    )
    assert done.returncode == 0, done.stderr
    *shown, modules = done.stdout.rstrip("\n").split("\n")
    return "\n".join(shown), json.loads(modules)


def flat(text: str) -> str:
    return " ".join(text.split())


def test_help_lists_every_verb_with_its_whole_line_and_imports_nothing_heavy() -> None:
    shown, modules = fcbench_modules("--help")
    assert "fcbench.cli.app" in modules and "typer" in modules
    assert among(modules, NOT_FOR_HELP) == []
    every = typer.main.get_command(build_app()).commands  # type: ignore[attr-defined]
    assert len(every) >= 15
    for name, command in every.items():
        line = summary(command.short_help or command.help)
        assert line and f"{name} {line}" in flat(shown), (name, shown)


def test_run_help_builds_no_pydantic_adapter_and_loads_no_help_renderer() -> None:
    shown, modules = fcbench_modules("run", "--help")
    assert "--max-unsafe-writes INTEGER" in shown and "--progress / --no-progress" in shown
    assert among(modules, ("typer._adapters", "typer.rich_utils", "rich", "markdown_it")) == []


def test_the_check_sees_the_help_renderer() -> None:
    # typer's rich layout (its default) is what the checks above must catch
    script = "import typer.rich_utils\n" + MODULES_AT_EXIT
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    modules = json.loads(done.stdout)
    assert {"rich.markdown", "markdown_it", "rich.traceback"} <= set(among(modules, NOT_FOR_HELP))


def test_a_verb_is_built_only_when_looked_up() -> None:
    command = build_command(build_app())
    with pytest.raises(SystemExit) as listed:
        command(args=["--help"], standalone_mode=True)
    assert listed.value.code == 0
    assert dict(command.commands) == {}
    with pytest.raises(SystemExit):
        command(args=["cases", "--help"], standalone_mode=True)
    assert list(command.commands) == ["cases"]
    assert set(command.commands["cases"].commands) >= {"validate", "list", "review"}


def test_a_given_value_is_still_coerced_and_checked(tmp_path: Path) -> None:
    # coercion is built only for a value given: a bad one is still the usage error it was
    for value, said in (("0", "greater than or equal to 1"), ("many", "valid integer")):
        done = fcbench("show", str(tmp_path), "--limit", value)
        assert done.returncode == 2, done.stderr
        assert said in done.stderr.lower() and "Traceback" not in done.stderr


FIRST_REQUEST_HOOK = """import json, sys
DUMP, RUNS = sys.argv[1], sys.argv[2]
def first_connect(event, args):
    if event == "socket.connect" and not getattr(first_connect, "seen", False):
        first_connect.seen = True
        with open(DUMP, "w") as out:
            json.dump(sorted(sys.modules), out)
sys.addaudithook(first_connect)
"""


def test_the_first_request_leaves_before_the_report_stack_loads(tmp_path: Path) -> None:
    dump = tmp_path / "modules.json"
    script = FIRST_REQUEST_HOOK + (
        "sys.argv = ['fcbench', 'run', '-t', 'sim:sim-careful', '--mode', 'selection', '--repeats', '1',"
        " '--sample', '3', '--out', RUNS, '--no-progress']\n"
        "from fcbench.cli.app import main\nmain()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(dump), str(tmp_path / "runs")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode in (0, 1), done.stderr  # 1: the sampled run missed its gate
    before = json.loads(dump.read_text())
    assert "fcbench.run" in before and "aiohttp" in before
    assert among(before, NOT_BEFORE_FIRST_REQUEST) == []
    assert "recorded now" in done.stdout  # the summary, loaded after the requests, was printed


def test_the_lexicon_patterns_are_compiled_when_a_text_is_first_read() -> None:
    # the asking and pleasantry patterns run to thousands of characters: compiled at import, they
    # would delay every run's first request
    script = (
        "import fcbench.run, fcbench.cli.run\n"
        "from fcbench.grading import text\n"
        "before = (text._asking.cache_info().currsize, text._more_pleasantries.cache_info().currsize)\n"
        "asked = text.asks_question('Bitte nennen Sie Ihre Bestellnummer.')\n"
        "after = (text._asking.cache_info().currsize, text._more_pleasantries.cache_info().currsize)\n"
        "print(before, asked, after)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["(0,", "0)", "True", "(1,", "1)"]
