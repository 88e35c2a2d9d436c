"""How ``--help`` is laid out: click's plain text layout (usage, help, ``Options:``, ``Commands:``),
without typer's rich panels, whose renderer imports rich's markdown and traceback modules on every
``--help`` (about half of its time).

Two things differ from click's defaults, so the text says as much as the panels did: lines use the
terminal's width (click stops at 80 columns), and a line breaks only between words, never inside
``--max-unsafe-writes`` or ``no-dry-run``. A verb's line in its group's list shows the whole first
paragraph of its help (click would cut it at 45 characters or at the first full stop, ``e.g.``
included): :func:`summary`.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence

import typer
from typer._click import HelpFormatter

UNBROKEN_HYPHEN = "\N{NON-BREAKING HYPHEN}"
"""Stands in for ``-`` while text is wrapped: the wrapper breaks lines after a hyphen, never here."""


def unbroken(text: str) -> str:
    """``text`` with every hyphen one the line wrapper keeps (see :data:`UNBROKEN_HYPHEN`)."""
    return text.replace("-", UNBROKEN_HYPHEN)


class TerminalWideFormatter(HelpFormatter):
    """Click's help formatter, as wide as the terminal, breaking lines between words only."""

    def __init__(self, indent_increment: int = 2, width: int | None = None, max_width: int | None = None):
        columns = shutil.get_terminal_size().columns
        super().__init__(indent_increment, width, max_width if max_width is not None else columns)

    def write_text(self, text: str) -> None:
        """Write ``text`` wrapped at spaces only."""
        super().write_text(unbroken(text))

    def write_dl(self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        """Write the definition list, its descriptions wrapped at spaces only."""
        super().write_dl([(term, unbroken(text)) for term, text in rows], col_max, col_spacing)

    def getvalue(self) -> str:
        """The help text, every hyphen as typed."""
        return super().getvalue().replace(UNBROKEN_HYPHEN, "-")


class HelpContext(typer.Context):
    """A command's context whose help is laid out by :class:`TerminalWideFormatter`."""

    formatter_class = TerminalWideFormatter


def summary(help_text: str | None) -> str:
    """A verb's line in its group's list: the first paragraph of its help, on one line."""
    return " ".join((help_text or "").partition("\n\n")[0].split())


__all__ = ["HelpContext", "TerminalWideFormatter", "summary"]
