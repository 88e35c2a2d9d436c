"""Top-level typer application. Each verb lives in its own module exposing ``register(app)``.

Start-up stays light: registering a verb needs only its command signatures, so a verb module
imports typer and the standard library at module level and everything its command needs to run
(rich, pydantic models, jsonschema, httpx, the mock, the report stack) inside the command function.
A verb's click command (its signature read, its options made) is built only when that verb runs or
shows its help (:class:`VerbGroup`), and help is click's plain layout (:mod:`fcbench.cli.helpformat`),
not typer's rich panels. ``fcbench --help`` then imports none of them (``tests/cli/test_startup.py``,
``tests/cli/test_startup_lazy.py``, ``benchmarks/startup.py``).

Exit codes: 0 ok, 1 regression or failed gate, 2 bad input or config. Any
:class:`~fcbench.errors.FcbenchError` is printed as one clear line, never a traceback.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import typer
from typer._click import exceptions as _click_exceptions
from typer.core import TyperGroup

from fcbench.cli.helpformat import HelpContext, summary
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


@dataclass(frozen=True)
class Verb:
    """A top-level command as registered, before its click command is built."""

    name: str
    """What the user types: ``run``, ``cases``."""
    line: str
    """Its line in ``fcbench --help``: the first paragraph of its help."""
    hidden: bool
    """Left out of ``fcbench --help``."""
    build: Callable[[], Any]
    """Builds its click command (a group for ``cases``, ``mock``, ...)."""


class VerbGroup(TyperGroup):
    """The top-level group: a verb's command is built when it is first looked up (to run it, to show
    its help, to complete it); the list in ``fcbench --help`` reads each verb's name and help only."""

    verbs: Mapping[str, Verb] = MappingProxyType({})
    """Every verb, in the order ``fcbench --help`` lists them (set by :func:`build_command`; none when
    typer built every command itself, ``typer.main.get_command(build_app())``)."""

    def list_commands(self, ctx: Any) -> list[str]:
        """Every verb's name, in registration order."""
        return list(self.verbs) or super().list_commands(ctx)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """The verb's command, built on first use (``None`` for an unknown name)."""
        verb = self.verbs.get(cmd_name)
        if verb is not None and cmd_name not in self.commands:
            self.commands[cmd_name] = plain_commands(verb.build())
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """List every verb shown with its whole line, without building any."""
        if not self.verbs:
            super().format_commands(ctx, formatter)
            return
        rows = [(verb.name, verb.line) for verb in self.verbs.values() if not verb.hidden]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def build_app() -> typer.Typer:
    """Create the typer app with every verb registered."""
    app = typer.Typer(
        name="fcbench",
        help="Measure how reliably LLMs call functions, the same way across providers.",
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        cls=VerbGroup,
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


def unset_flag_false(param: Any) -> Any:
    """``param``, when it is a flag no command receives (``--help``, ``--install-completion``),
    reading ``False`` rather than ``None`` when not given: typer coerces a ``None`` through a
    pydantic adapter, which would import pydantic (~0.1 s) for ``fcbench run --help``."""
    if getattr(param, "is_flag", False) and param.default is None and not param.expose_value:
        param.default = False
    return param


class CoercedWhenGiven:
    """A parameter's coercion that builds typer's (a pydantic adapter, ~2 ms each, 31 for ``fcbench
    run``) only for a value given: a value not given (``None``) stays ``None``, or ``()`` for a
    repeatable one, exactly as typer's own coercion returns it before using the adapter."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        """``value`` coerced as typer does; ``None`` without building anything."""
        if value is None:
            return () if param.multiple or param.nargs == -1 else None
        return self._build().coerce(value, param=param, ctx=ctx)


def coerced_when_given(param: Any) -> Any:
    """``param`` building its coercion only for a value given (:class:`CoercedWhenGiven`)."""
    build = getattr(param, "get_runtime_param", None)
    if build is not None and not isinstance(getattr(param, "coercion", None), CoercedWhenGiven):
        param.coercion = CoercedWhenGiven(build)
        param.get_runtime_param = lambda: param.coercion
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


def verbs_of(app: typer.Typer) -> dict[str, Verb]:
    """The verbs registered on ``app`` (commands first, then groups, as typer orders them), each
    built by typer's own functions when asked, with ``app``'s settings."""
    verbs: dict[str, Verb] = {}
    for command_info in app.registered_commands:
        callback = command_info.callback
        assert callback is not None, "a verb needs a function"
        name = command_info.name or typer.main.get_command_name(callback.__name__)
        text = command_info.short_help or command_info.help or inspect.getdoc(callback)

        def build_verb(info: Any = command_info) -> Any:
            return typer.main.get_command_from_info(
                info, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=None
            )

        verbs[name] = Verb(name, summary(text), command_info.hidden, build_verb)
    for group_info in app.registered_groups:
        solved = typer.main.solve_typer_info_defaults(group_info)

        def build_group(info: Any = group_info) -> Any:
            return typer.main.get_group_from_info(
                info,
                pretty_exceptions_short=app.pretty_exceptions_short,
                suggest_commands=app.suggest_commands,
                rich_markup_mode=None,
            )

        assert solved.name, "a verb group needs a name (add_typer(..., name=...))"
        line = summary(solved.short_help or solved.help)
        verbs[solved.name] = Verb(solved.name, line, solved.hidden, build_group)
    return verbs


def plain_commands(command: Any) -> Any:
    """``command`` and every command below it laid out plainly (:class:`HelpContext`), showing plain
    type names (``TEXT``, not ``<str>``), each group suggesting the closest verbs for an unknown one
    and listing its commands with their whole first paragraph."""
    stack = [command]
    while stack:
        current = stack.pop()
        current.context_class = HelpContext
        current.rich_markup_mode = None
        subcommands = getattr(current, "commands", {}).values()
        for sub in subcommands:
            if not sub.short_help:
                sub.short_help = summary(sub.help)
        stack.extend(subcommands)
        if hasattr(current, "resolve_command"):
            suggesting(current)
        for param in current.params:
            coerced_when_given(unset_flag_false(plain_param(param)))
            if getattr(param, "param_type_name", "") == "argument" and param.metavar is None and param.name:
                param.metavar = param.name.upper()  # RUN, not {run}
        help_option = getattr(current, "get_help_option", None)
        if help_option is not None:

            def plain_help_option(ctx: Any, made: Any = help_option) -> Any:
                option = made(ctx)
                return option if option is None else unset_flag_false(plain_param(option))

            current.get_help_option = plain_help_option
    return command


def build_command(app: typer.Typer) -> Any:
    """The click command of ``app``: its own options built now, each verb's command when first looked
    up (:class:`VerbGroup`), all laid out by :func:`plain_commands`."""
    shell = copy.copy(app)
    shell.registered_commands, shell.registered_groups = [], []
    command = plain_commands(typer.main.get_command(shell))
    command.verbs = MappingProxyType(verbs_of(app))
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
        from rich.console import Console
        from rich.markup import escape

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
        from rich.console import Console
        from rich.markup import escape

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
