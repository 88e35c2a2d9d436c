"""The commands fcbench suggests are spelt as the user invoked fcbench (real subprocesses)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cli_run import keyless_env

from fcbench.cli.output import command_line, program_name

SCRIPT = Path(sys.executable).parent / "fcbench"


def init_hints(command: list[str], cwd: Path, path: str | None = None) -> list[str]:
    env = keyless_env({"PATH": path} if path is not None else None)
    done = subprocess.run(
        [*command, "init", "tools"], cwd=cwd, capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return [line.strip() for line in done.stdout.splitlines() if line.startswith("  ")]


def test_a_script_run_by_its_path_is_shown_by_that_path(tmp_path: Path) -> None:
    typed = os.path.relpath(SCRIPT, tmp_path)
    hints = init_hints([typed], tmp_path, path="/usr/bin:/bin")
    assert hints[0] == f"{typed} cases validate tools/suite.yaml"


def test_a_script_found_on_path_is_shown_by_its_name(tmp_path: Path) -> None:
    hints = init_hints(["fcbench"], tmp_path, path=f"{SCRIPT.parent}:/usr/bin:/bin")
    assert hints[1] == "fcbench run --config tools/fcbench.yaml"


def test_python_dash_m_is_shown_as_typed(tmp_path: Path) -> None:
    hints = init_hints([sys.executable, "-m", "fcbench"], tmp_path)
    assert hints[2] == f"{sys.executable} -m fcbench report runs/RUN_ID"


def test_the_program_name_of_each_way_in() -> None:
    assert (
        program_name(["/opt/x/__main__.py"], [".venv/bin/python", "-m", "fcbench"])
        == ".venv/bin/python -m fcbench"
    )
    assert program_name(["my tools/bin/fcbench"], []) == "'my tools/bin/fcbench'"
    assert program_name(["pytest"], []) == "fcbench"
    assert command_line("view", "runs/a b").endswith(" view 'runs/a b'")


def test_a_finished_run_says_how_to_see_it_as_fcbench_was_invoked(tmp_path: Path) -> None:
    typed = os.path.relpath(SCRIPT, tmp_path)
    env = keyless_env({"PATH": "/usr/bin:/bin"})
    done = subprocess.run(
        [typed, "run", "-t", "sim:sim-careful", "--repeats", "1", "--case", "select-lookup-01"]
        + ["--out", "runs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    run_dir = next((tmp_path / "runs").iterdir()).relative_to(tmp_path)
    lines = [" ".join(line.split()) for line in done.stdout.splitlines()]
    assert f"next: {typed} report {run_dir} --format html --output {run_dir / 'report.html'}" in lines
    assert f"{typed} view {run_dir}" in lines
    shown = subprocess.run(
        [typed, "report", str(run_dir), "--format", "html", "--output", str(run_dir / "report.html")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    assert (tmp_path / run_dir / "report.html").read_text(encoding="utf-8").startswith("<!")
