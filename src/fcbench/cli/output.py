"""What a command prints: data printed to a terminal (:func:`print_data`), which never receives a
control character, markup or an emoji code (an output file is written whole or not at all by
:func:`fcbench.files.replaced_file`).

Every string that comes from data (case ids, tags, target labels, model ids, catalogue titles,
provider and MCP server messages, log text) is printed through :func:`print_data` or, inside
rich markup, :func:`fcbench.report.terminal.terminal_text`; both clean it with the one
:func:`fcbench.redact.sanitize`. Error messages also lose every secret of a documented kind
(:func:`error_text`).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


def print_data(console: Console, text: object, *, style: str | None = None, redact: bool = False) -> None:
    """Print ``text`` as it is: sanitised (:func:`~fcbench.redact.sanitize`), never read as rich
    markup or emoji codes (``a:b:m`` stays ``a:b:m``), not highlighted; with ``redact``, every
    secret of a documented kind replaced first (text read from logs or a provider)."""
    from fcbench.redact import Redactor, sanitize

    shown = Redactor(patterns=True).text(str(text)) if redact else str(text)
    console.print(sanitize(shown), style=style, markup=False, emoji=False, highlight=False, soft_wrap=True)


def error_text(text: str) -> str:
    """An error message safe to print: every secret of a documented kind replaced, sanitised."""
    from fcbench.redact import Redactor, sanitize

    return sanitize(Redactor(patterns=True).text(text))


PROGRAM = "fcbench"
"""The console script's name."""


def program_name(argv: list[str] | None = None, orig_argv: list[str] | None = None) -> str:
    """fcbench as the user invoked it, for the commands a hint prints: ``fcbench`` when that name
    on ``PATH`` is the program that runs, the path typed otherwise (``.venv/bin/fcbench``), and
    ``PYTHON -m fcbench`` for ``python -m fcbench``."""
    argv = sys.argv if argv is None else argv
    orig_argv = sys.orig_argv if orig_argv is None else orig_argv
    typed = argv[0] if argv else PROGRAM
    if Path(typed).name == "__main__.py":
        return f"{shlex.quote(orig_argv[0] if orig_argv else 'python')} -m {PROGRAM}"
    if Path(typed).name != PROGRAM:
        return PROGRAM  # fcbench's main() called from another program (a test, a script)
    found = shutil.which(PROGRAM)
    try:
        same = found is not None and os.path.samefile(found, typed)
    except OSError:
        same = False
    return PROGRAM if same else shlex.quote(typed)


def command_line(*args: str) -> str:
    """A command to suggest: :func:`program_name` and ``args``, quoted for a POSIX shell."""
    return " ".join([program_name(), *(shlex.quote(arg) for arg in args)])
