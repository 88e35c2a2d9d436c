"""Help texts say what the code does: counts come from the registries, no markup shows literally."""

from __future__ import annotations

from cli_run import fcbench

from fcbench.mock.dialect import DIALECTS


def flat(text: str) -> str:
    return " ".join(text.replace("│", " ").split())


def test_mock_serve_help_counts_and_names_the_mock_dialects() -> None:
    shown = flat(fcbench("mock", "serve", "--help", env={"COLUMNS": "400"}).stdout)
    assert (
        f"Serve the mock provider ({len(DIALECTS)} dialects: {', '.join(DIALECTS)}) until interrupted."
        in shown
    )
    assert "{mock_dialects}" not in flat(fcbench("mock", "--help").stdout)


def test_no_help_shows_literal_backticks() -> None:
    for args in (("--help",), ("merge", "--help"), ("mock", "serve", "--help")):
        assert "``" not in fcbench(*args).stdout, args
