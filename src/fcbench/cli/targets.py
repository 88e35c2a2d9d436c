"""``fcbench targets``: list endpoints, their dialects and whether a key is present (never the key)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from fcbench.config import load_config
from fcbench.endpoints import DEFAULT_TARGETS, all_endpoints


def targets_command(
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="Config defining extra endpoints.")
    ] = None,
) -> None:
    """List built-in and configured endpoints."""
    cfg = load_config(config)
    table = Table(title="endpoints (targets are ENDPOINT:MODEL)")
    for column in ("endpoint", "dialect", "base url", "key variable", "key"):
        table.add_column(column)
    for name, endpoint in sorted(all_endpoints(cfg.user_endpoints()).items()):
        if endpoint.is_mock:
            key = "not needed (embedded mock)"
        elif not endpoint.key_required and not endpoint.api_key_env:
            key = "not needed"
        else:
            key = (
                "present" if endpoint.has_key() else ("optional" if not endpoint.key_required else "missing")
            )
        table.add_row(name, endpoint.dialect, ", ".join(endpoint.base_urls), endpoint.api_key_env or "-", key)
    console = Console()
    console.print(table)
    console.print("default targets: " + " ".join(DEFAULT_TARGETS), highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``targets`` to the app."""
    app.command("targets")(targets_command)
