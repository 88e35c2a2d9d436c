"""``fcbench merge``: combine shard run directories into one run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def merge_command(
    runs: Annotated[list[Path], typer.Argument(help="Shard run directories (all of 1..N).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory of the merged run.")],
) -> None:
    """Merge the shards of one run (fcbench run --shard I/N) into one run that reports like it.

    Example: fcbench merge shards/1 shards/2 shards/3 -o runs/merged
    """
    from rich.console import Console

    from fcbench.store.merge import merge_runs

    merged = merge_runs(runs, out)
    console = Console()
    for shard, count in merged.damaged.items():
        console.print(f"warning: {count} damaged record lines skipped in {shard}", highlight=False)
    console.print(
        f"merged {len(runs)} shards, {merged.manifest.planned} planned observations -> {out}", highlight=False
    )


def register(app: typer.Typer) -> None:
    """Add ``merge`` to the app."""
    app.command("merge")(merge_command)
