"""Tables fit an 80-column terminal: identifiers whole (never ``sim-an…``); Ctrl-C stops cleanly."""

from __future__ import annotations

from pathlib import Path

from pty_run import run_in_pty

from fcbench.endpoints import BUILTIN_ENDPOINTS
from fcbench.report.fit import fitted, natural_width


def test_targets_at_80_columns_shows_every_endpoint_and_key_variable_whole(tmp_path: Path) -> None:
    shown = run_in_pty(["targets"], cwd=tmp_path, columns=80)
    assert shown.returncode == 0, shown.screen
    lines = shown.screen.splitlines()
    assert all(len(line.rstrip()) <= 80 for line in lines), shown.screen
    for name, endpoint in BUILTIN_ENDPOINTS.items():
        assert any(line.strip() == name for line in lines), (name, shown.screen)
        if endpoint.api_key_env:
            assert endpoint.api_key_env in shown.screen
    assert "…" not in shown.screen


def test_a_wide_terminal_keeps_the_table(tmp_path: Path) -> None:
    shown = run_in_pty(["targets"], cwd=tmp_path, columns=200)
    assert shown.returncode == 0, shown.screen
    assert "┃ endpoint" in shown.screen and "…" not in shown.screen


def test_fitted_stacks_only_when_the_table_does_not_fit() -> None:
    from rich.console import Console

    columns, rows = ("target", "pass"), [("a" * 30, "50% (1/2)")]
    width = natural_width(columns, rows)
    narrow, wide = Console(width=width - 1, record=True), Console(width=width, record=True)
    narrow.print(fitted(columns, rows, width=narrow.width))
    wide.print(fitted(columns, rows, width=wide.width))
    table, stacked = wide.export_text(), narrow.export_text()
    assert "┃" in table and "a" * 30 in table
    assert "┃" not in stacked and "pass:" in stacked and "a" * 30 in stacked
