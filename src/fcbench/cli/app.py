"""Top-level typer application. Each verb lives in its own module exposing ``register(app)``.

Start-up stays light: registering a verb needs only its command signatures, so a verb module
imports typer, rich and the standard library at module level and everything its command needs to
run (pydantic models, jsonschema, httpx, the mock, the report stack) inside the command function.
``fcbench --help`` then imports none of them (``tests/cli/test_startup.py``,
``benchmarks/startup.py``).

Exit codes: 0 ok, 1 regression or failed gate, 2 bad input or config. Any
:class:`~fcbench.errors.FcbenchError` is printed as one clear line, never a traceback.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from typer._click import exceptions as _click_exceptions

from fcbench.errors import FcbenchError

VERB_MODULES: tuple[str, ...] = (
    "fcbench.cli.cases",
    "fcbench.cli.run",
    "fcbench.cli.targets",
    "fcbench.cli.merge",
    "fcbench.cli.mock",
    "fcbench.cli.local",
    "fcbench.cli.importer",
    "fcbench.cli.report",
    "fcbench.cli.compare",
    "fcbench.cli.compat",
    "fcbench.cli.init",
    "fcbench.cli.show",
    "fcbench.cli.export",
    "fcbench.cli.replay",
    "fcbench.cli.view",
    "fcbench.cli.history",
    "fcbench.cli.schema",
    "fcbench.cli.coverage",
)


PLAIN_TYPE_NAMES: dict[str, str] = {
    "str": "TEXT",
    "int": "INTEGER",
    "float": "NUMBER",
    "path": "PATH",
    "Path": "PATH",
}
"""Python type names as ``--help`` would show them -> the plain words shown instead."""


def show_version(value: bool) -> None:
    """``--version``: print the installed version and stop."""
    if value:
        from fcbench import __version__

        typer.echo(f"fcbench {__version__}")
        raise typer.Exit()


def build_app() -> typer.Typer:
    """Create the typer app with every verb registered."""
    app = typer.Typer(
        name="fcbench",
        help="Measure how reliably LLMs call functions, the same way across providers.",
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
    )

    @app.callback()
    def _top(
        version: bool = typer.Option(
            False, "--version", help="Print the version and exit.", callback=show_version, is_eager=True
        ),
    ) -> None:
        """Measure how reliably LLMs call functions, the same way across providers."""

    for module_name in VERB_MODULES:
        importlib.import_module(module_name).register(app)
    return app


def plain_type(shown: str | None) -> str | None:
    """The plain words for a type as typer shows it: ``<list[str]>`` -> ``TEXT...``, ``<bool>`` -> none."""
    if shown is None or not (shown.startswith("<") and shown.endswith(">")):
        return shown
    name = shown[1:-1]
    repeated = name.startswith("list[") and name.endswith("]")
    inner = name[5:-1] if repeated else name
    if inner == "bool":
        return ""
    word = PLAIN_TYPE_NAMES.get(inner, inner.upper())
    return f"{word}..." if repeated else word


def plain_param(param: Any) -> Any:
    """``param`` showing plain type names in ``--help`` (its own display wrapped, once)."""
    shown = getattr(param, "display_type_rich", None)
    if shown is not None and not getattr(shown, "plain", False):

        def display_type_rich(ctx: Any) -> str | None:
            return plain_type(shown(ctx))

        display_type_rich.plain = True  # type: ignore[attr-defined]
        param.display_type_rich = display_type_rich
    return param


def suggesting(group: Any) -> None:
    """Make an unknown verb of ``group`` a usage error that names the closest verbs (``fcbench rn``:
    did you mean 'run'?)."""
    resolve = group.resolve_command

    def resolve_command(ctx: Any, args: list[str]) -> Any:
        name = args[0] if args else ""
        if name and not name.startswith("-") and group.get_command(ctx, name) is None:
            from fcbench.suggest import did_you_mean

            known = group.list_commands(ctx)
            ctx.fail(f"No such command {name!r}{did_you_mean(name, known) or '; known: ' + ', '.join(known)}")
        return resolve(ctx, args)

    group.resolve_command = resolve_command


def build_command(app: typer.Typer) -> Any:
    """The click command of ``app``, every parameter showing a plain type name (``TEXT``, not
    ``<str>``), every group suggesting the closest verbs for an unknown one."""
    command = typer.main.get_command(app)
    stack = [command]
    while stack:
        current = stack.pop()
        stack.extend(getattr(current, "commands", {}).values())
        if hasattr(current, "resolve_command"):
            suggesting(current)
        for param in current.params:
            plain_param(param)
            if getattr(param, "param_type_name", "") == "argument" and param.metavar is None and param.name:
                param.metavar = param.name.upper()  # RUN, not {run}
        help_option = getattr(current, "get_help_option", None)
        if help_option is not None:

            def plain_help_option(ctx: Any, made: Any = help_option) -> Any:
                option = made(ctx)
                return option if option is None else plain_param(option)

            current.get_help_option = plain_help_option  # type: ignore[method-assign]
    return command


def usage_errors() -> tuple[type[Exception], ...]:
    """Bad flags or unknown commands, from click or the copy of click bundled with typer: exit code 2.

    click itself counts only once something has imported it (httpx, uvicorn): no click exception
    exists before, and importing click for this alone would slow every start."""
    click = sys.modules.get("click")
    if click is None:
        return (_click_exceptions.ClickException,)
    return (click.exceptions.ClickException, _click_exceptions.ClickException)


MAX_ERROR_CHARS = 4000
"""Longest error message printed (a huge value in a user's file is not echoed in full)."""

WIDE_OUTPUT_COLUMNS = "200"
"""Table width when output is not a terminal, so piped tables are not truncated."""


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run the app and turn FcbenchError into exit code 2."""
    if not sys.stdout.isatty():
        os.environ["COLUMNS"] = WIDE_OUTPUT_COLUMNS
    command = build_command(build_app())
    try:
        code = command(args=argv, standalone_mode=False)
    except FcbenchError as exc:
        from fcbench.cli.output import error_text

        text = error_text(str(exc))  # data in a message (an MCP server's stderr, a log line) is cleaned
        if len(text) > MAX_ERROR_CHARS:
            text = text[:MAX_ERROR_CHARS] + f"... ({len(text) - MAX_ERROR_CHARS} more characters)"
        message = f"[bold red]error:[/] {escape(text)}"
        Console(stderr=True, emoji=False).print(message, markup=True, highlight=False, soft_wrap=True)
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except OSError as exc:  # --out is a file, -o is a folder, the disk is full, ...
        from fcbench.cli.output import error_text

        where = f"{exc.filename}: " if exc.filename else ""
        Console(stderr=True, emoji=False).print(
            f"[bold red]error:[/] {escape(error_text(where + (exc.strerror or str(exc))))}",
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(2)
    except typer.Abort:
        sys.exit(130)
    except Exception as exc:
        if not isinstance(exc, usage_errors()):
            raise
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        sys.exit(2)
    if isinstance(code, int) and code:
        sys.exit(code)
