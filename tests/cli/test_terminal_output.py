"""Data printed to a terminal cannot move the cursor, open links or turn into emoji."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

import pytest

from fcbench.report.terminal import terminal_text


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("case\x1b[2J\x1b[31mred", "case[2J[31mred"),
        ("\x1b]8;;https://evil.example\x07click\x1b]8;;\x07", "]8;;https://evil.example" + "click]8;;"),
        ("over\rwrite", "overwrite"),
        ("csi\x9b31m", "csi31m"),
        ("[bold]x[/bold]", "\\[bold]x\\[/bold]"),
    ],
)
def test_terminal_text_drops_controls_and_escapes_markup(text: str, printed: str) -> None:
    assert terminal_text(text) == printed


def test_cases_list_sends_no_escape_sequence_and_no_emoji(core_copy) -> None:  # type: ignore[no-untyped-def]
    core_copy.edit_case(
        "types-01", lambda case: case.update(tags=["types", "\x1b]8;;https://evil.example\x07x\x1b]8;;\x07"])
    )
    core_copy.edit_case("abstain-01", lambda case: case.update(tags=["a:b:m", "\x1b[2Jclear"]))
    proc = subprocess.run(
        [sys.executable, "-m", "fcbench", "cases", "list", str(core_copy.path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "200", "PATH": ""},
    )
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout
    assert "a:b:m" in proc.stdout and "🅱" not in proc.stdout


def test_target_labels_print_as_written(tmp_path) -> None:  # type: ignore[no-untyped-def]
    proc = subprocess.run(
        [sys.executable, "-m", "fcbench", "run", "-t", "sim:a:b:m", "--repeats", "1", "--case", "types-01"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={"COLUMNS": "200", "PATH": ""},
    )
    assert "sim:a:b:m" in proc.stdout and "🅱" not in proc.stdout, proc.stdout


def test_an_mcp_servers_stderr_in_an_error_prints_no_escape_no_emoji_no_key(tmp_path) -> None:  # type: ignore[no-untyped-def]
    key = "sk-proj-" + "Zq4" * 10
    script = (
        "import sys; sys.stderr.write('\\x1b[2J\\x1b]8;;https://evil.example\\x07boom a:b:m \\x9b31m"
        f"key {key} \\u202eend'); sys.exit(3)"
    )
    command = shlex.join([sys.executable, "-c", script])
    proc = subprocess.run(
        [sys.executable, "-m", "fcbench", "run", "-t", "sim:sim-careful", "--case", "types-01"]
        + ["--repeats", "1", "--tools-from-mcp", command],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert proc.returncode == 2, proc.stderr
    assert "could not list the server's tools" in proc.stderr and "boom a:b:m" in proc.stderr
    assert not {"\x1b", "\x07", "\x9b", "\u202e"} & set(proc.stderr + proc.stdout), proc.stderr
    assert "🅱" not in proc.stderr and key not in proc.stderr
