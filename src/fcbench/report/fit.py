"""Tables that fit the terminal: a table when it fits whole, else one block per row.

Rich squeezes a table that is wider than the terminal by cutting every cell to a few characters
(``sim-an…``), which turns target names and key variables into guesses. :func:`fitted` measures
the table first: when every cell fits on one line it is a table; otherwise each row becomes a
block, its first cell as a heading on a line of its own and the other cells below it as
``column: value`` pairs that wrap at the terminal's width and are never cut.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

PER_COLUMN_CHARS = 3
"""Characters a rich table adds per column: a border or separator and one space of padding either
side (plus one closing border for the whole table)."""


def natural_width(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> int:
    """Width of the table with no cell wrapped or cut."""
    widths = [len(name) for name in columns]
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], max((len(part) for part in cell.split("\n")), default=0))
    return sum(widths) + PER_COLUMN_CHARS * len(columns) + 1


def fitted(
    columns: Sequence[str], rows: Sequence[Sequence[str]], *, width: int, title: str | None = None
) -> RenderableType:
    """A table of ``rows`` if it fits in ``width`` columns, else one stacked block per row.

    Cells are plain text (not rich markup), printed as they are."""
    if natural_width(columns, rows) <= width:
        table = Table(title=title)
        for name in columns:
            table.add_column(name, no_wrap=True)
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        return table
    blocks: list[RenderableType] = [Text(title, style="italic")] if title else []
    label_width = max((len(name) for name in columns[1:]), default=0)
    for row in rows:
        blocks.append(Text(row[0], style="bold", overflow="fold"))
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True, width=label_width + 3)
        grid.add_column(overflow="fold")
        for name, cell in zip(columns[1:], row[1:], strict=True):
            grid.add_row(Text(f"  {name}:"), Text(cell, overflow="fold"))
        blocks.append(grid)
    return Group(*blocks)


CELL_SPLIT = re.compile(r"(?<!\\)\|")
"""A cell border of a markdown table row (an escaped ``\\|`` is text)."""
INLINE_MARKUP = re.compile(r"\*\*|`")
"""Bold markers and code quotes, dropped from table cells (the table shows the text)."""
DIVIDER = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
"""The line under a markdown table's header."""


def table_cells(line: str) -> list[str]:
    """The cells of one markdown table row, unescaped, markup dropped."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [
        INLINE_MARKUP.sub("", cell.strip()).replace("\\|", "|").replace("\\", "")
        for cell in CELL_SPLIT.split(inner)
    ]


def markdown_blocks(text: str) -> Iterator[tuple[str, list[str]]]:
    """``("table", lines)`` for each markdown table and ``("text", lines)`` for what is between."""
    lines = text.splitlines()
    index = 0
    chunk: list[str] = []
    while index < len(lines):
        is_table = (
            lines[index].lstrip().startswith("|")
            and index + 1 < len(lines)
            and DIVIDER.match(lines[index + 1].strip()) is not None
        )
        if not is_table:
            chunk.append(lines[index])
            index += 1
            continue
        if chunk:
            yield "text", chunk
            chunk = []
        end = index + 2
        while end < len(lines) and lines[end].lstrip().startswith("|"):
            end += 1
        yield "table", [lines[index], *lines[index + 2 : end]]
        index = end
    if chunk:
        yield "text", chunk


def print_markdown(console: Console, text: str) -> None:
    """Print a markdown report for a person: prose through rich's renderer, each table with
    :func:`fitted` (a table when it fits the terminal, one block per row when it does not)."""
    from rich.markdown import Markdown  # markdown-it and pygments: only for a report printed here

    for kind, lines in markdown_blocks(text):
        if kind == "text":
            if any(line.strip() for line in lines):
                console.print(Markdown("\n".join(lines)))
            continue
        header, *rows = (table_cells(line) for line in lines)
        width = len(header)
        body = [(row + [""] * width)[:width] for row in rows]
        console.print(fitted(header, body, width=console.width))
        console.print()


__all__ = ["fitted", "markdown_blocks", "natural_width", "print_markdown", "table_cells"]
