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


def test_run_summary_at_80_columns_names_the_four_default_targets_whole(tmp_path: Path) -> None:
    from fcbench.endpoints import DEFAULT_TARGETS

    shown = run_in_pty(["run", "--case", "types-01", "--repeats", "1", "--out", "runs"], cwd=tmp_path)
    assert shown.returncode == 0, shown.screen
    lines = shown.screen.splitlines()
    table = [line for line in lines if any(ch in line for ch in "┃│┏┗└┌")]
    assert all(len(line.rstrip()) <= 80 for line in table), shown.screen
    for target in DEFAULT_TARGETS:
        assert any(target in line for line in lines), (target, shown.screen)
    assert "…" not in shown.screen


def test_ctrl_c_at_a_terminal_stops_cleanly_with_the_resume_command(tmp_path: Path) -> None:
    def some_recorded(_: str) -> bool:
        found = list((tmp_path / "runs").glob("*/records.jsonl"))
        return bool(found) and found[0].read_bytes().count(b"\n") >= 8

    shown = run_in_pty(
        ["run", "--repeats", "1", "--mock-latency-ms", "300", "--out", "runs"],
        cwd=tmp_path,
        interrupt_when=some_recorded,
    )
    assert shown.returncode == 130, shown.screen
    assert "Traceback" not in shown.screen, shown.screen
    run_dir = next((tmp_path / "runs").iterdir())
    kept = run_dir.joinpath("records.jsonl").read_bytes().count(b"\n")
    flat = " ".join(shown.screen.split())
    from fcbench.endpoints import DEFAULT_TARGETS
    from fcbench.suite.loader import load_suite

    planned = sum(1 for case in load_suite("core").cases if case.recovery is None) * len(DEFAULT_TARGETS)
    assert f"stopped: {kept} of {planned} recorded" in flat, shown.screen
    assert "resume with: " in flat and f"fcbench run --resume runs/{run_dir.name}" in flat, shown.screen


def test_report_renders_tables_in_a_terminal_and_markdown_when_piped(tmp_path: Path) -> None:
    from cli_run import fcbench

    from fcbench.endpoints import DEFAULT_TARGETS

    made = fcbench(
        "run", "--case", "types-01", "--repeats", "1", "--out", "runs", "--no-progress", cwd=tmp_path
    )
    assert made.returncode == 0, made.stderr
    (run_dir,) = list((tmp_path / "runs").iterdir())
    shown = run_in_pty(["report", str(run_dir)], cwd=tmp_path, columns=80)
    assert shown.returncode == 0, shown.screen
    assert "|---" not in shown.screen and "| ---" not in shown.screen, shown.screen
    assert all(len(line.rstrip()) <= 80 for line in shown.screen.splitlines()), shown.screen
    for target in DEFAULT_TARGETS:
        assert any(line.strip() == target for line in shown.screen.splitlines()), (target, shown.screen)
    assert "Pass rate:" in shown.screen
    piped = fcbench("report", str(run_dir), cwd=tmp_path)
    assert piped.returncode == 0 and "| Target |" in piped.stdout, piped.stdout[:2000]


def test_markdown_tables_are_split_into_cells_with_escaped_pipes_kept() -> None:
    from fcbench.report.fit import markdown_blocks, table_cells

    text = "# Title\n\nprose\n\n| a | b |\n|---|---|\n| `x\\|y` | **2** |\n\nafter\n"
    blocks = list(markdown_blocks(text))
    assert [kind for kind, _ in blocks] == ["text", "table", "text"]
    assert table_cells(blocks[1][1][1]) == ["x|y", "2"]
