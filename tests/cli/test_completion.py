"""Shell completion and "did you mean" for verbs, as a user's shell sees them (real subprocesses)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import fcbench, keyless_env

SCRIPT_DIR = Path(sys.executable).parent
"""Where the ``fcbench`` console script of this environment is."""


def complete(words: str) -> list[str]:
    """What bash offers after ``words`` (the last one being completed), through the script that
    ``fcbench --show-completion bash`` prints, sourced into a real bash."""
    script = (
        "source <(fcbench --show-completion bash)\n"
        f"COMP_WORDS=({words}); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))\n"
        '_fcbench_completion fcbench; printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    env = keyless_env({"PATH": f"{SCRIPT_DIR}:{keyless_env()['PATH']}"})
    done = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, env=env, timeout=60, check=True
    )
    return [line for line in done.stdout.splitlines() if line]


pytestmark = pytest.mark.skipif(
    shutil.which("bash") is None or not (SCRIPT_DIR / "fcbench").exists(),
    reason="needs bash and the fcbench script",
)


def test_the_bash_completion_script_is_printed() -> None:
    shown = subprocess.run(
        [str(SCRIPT_DIR / "fcbench"), "--show-completion", "bash"], capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0, shown.stderr
    assert "complete -o default -F _fcbench_completion fcbench" in shown.stdout


def test_bash_completes_verbs_options_and_schema_names() -> None:
    assert complete("fcbench sch") == ["schema"]
    assert complete("fcbench schema c") == ["config"]
    assert "--exclude-tag" in complete("fcbench run --exclude")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("rn",), "No such command 'rn' (did you mean 'run'?)"),
        (("local", "srve"), "No such command 'srve' (did you mean 'serve'?)"),
        (("frobnicate",), "No such command 'frobnicate'; known: run, targets"),
    ],
)
def test_an_unknown_verb_names_the_closest(args: tuple[str, ...], said: str) -> None:
    done = fcbench(*args)
    assert done.returncode == 2
    assert said in done.stderr
    assert "Traceback" not in done.stderr
