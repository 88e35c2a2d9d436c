"""What a command writes: an output file written whole or not at all, and data printed to a
terminal (:func:`print_data`), which never receives a control character, markup or an emoji code.

Every string that comes from data (case ids, tags, target labels, model ids, catalogue titles,
provider and MCP server messages, log text) is printed through :func:`print_data` or, inside
rich markup, :func:`fcbench.report.terminal.terminal_text`; both clean it with the one
:func:`fcbench.redact.sanitize`. Error messages also lose every secret of a documented kind
(:func:`error_text`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from fcbench.redact import Redactor, sanitize

if TYPE_CHECKING:
    from rich.console import Console


@contextmanager
def replaced_file(path: Path) -> Iterator[BinaryIO]:
    """A binary file that becomes ``path`` once the block ends without an error: it is written
    beside it as ``NAME.partial`` and renamed, so a failed or interrupted write leaves no half file
    (and an older ``path`` stays as it was)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    try:
        with partial.open("wb") as fh:
            yield fh
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def print_data(console: Console, text: object, *, style: str | None = None, redact: bool = False) -> None:
    """Print ``text`` as it is: sanitised (:func:`~fcbench.redact.sanitize`), never read as rich
    markup or emoji codes (``a:b:m`` stays ``a:b:m``), not highlighted; with ``redact``, every
    secret of a documented kind replaced first (text read from logs or a provider)."""
    shown = Redactor(patterns=True).text(str(text)) if redact else str(text)
    console.print(sanitize(shown), style=style, markup=False, emoji=False, highlight=False, soft_wrap=True)


def error_text(text: str) -> str:
    """An error message safe to print: every secret of a documented kind replaced, sanitised."""
    return sanitize(Redactor(patterns=True).text(text))
