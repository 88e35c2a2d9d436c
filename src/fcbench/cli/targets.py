"""``fcbench targets``: list endpoints, their dialects and whether a key is present (never the key)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def targets_command(
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="Config defining extra endpoints.")
    ] = None,
) -> None:
    """List built-in and configured endpoints.

    Examples: fcbench targets; fcbench targets -c fcbench.yaml
    """
    from rich.console import Console

    from fcbench.config import load_config
    from fcbench.endpoints import DEFAULT_TARGETS, all_endpoints
    from fcbench.report.fit import fitted

    cfg = load_config(config)
    columns = ("endpoint", "dialect", "base url", "key variable", "key")
    rows = [
        (
            name,
            endpoint.dialect,
            ", ".join(endpoint.base_urls),
            endpoint.api_key_env or "-",
            endpoint.key_status(),
        )
        for name, endpoint in sorted(all_endpoints(cfg.user_endpoints()).items())
    ]
    console = Console(highlight=False, emoji=False)
    console.print(fitted(columns, rows, width=console.width, title="endpoints (targets are ENDPOINT:MODEL)"))
    console.print("default targets: " + " ".join(DEFAULT_TARGETS), highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    """Add ``targets`` to the app."""
    app.command("targets")(targets_command)
