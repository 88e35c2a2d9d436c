"""``fcbench targets``: list endpoints, their dialects and whether a key is present (never the key)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table


def targets_command(
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="Config defining extra endpoints.")
    ] = None,
) -> None:
    """List built-in and configured endpoints."""
    from fcbench.config import load_config
    from fcbench.endpoints import DEFAULT_TARGETS, all_endpoints

    cfg = load_config(config)
    table = Table(title="endpoints (targets are ENDPOINT:MODEL)")
    for column in ("endpoint", "dialect", "base url", "key variable", "key"):
        table.add_column(column)
    for name, endpoint in sorted(all_endpoints(cfg.user_endpoints()).items()):
        urls = ", ".join(endpoint.base_urls)
        table.add_row(name, endpoint.dialect, urls, endpoint.api_key_env or "-", endpoint.key_status())
    console = Console()
    console.print(table)
    console.print("default targets: " + " ".join(DEFAULT_TARGETS), highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``targets`` to the app."""
    app.command("targets")(targets_command)
