"""``--help`` of every verb speaks plain words: type names such as TEXT and PATH, never ``<list[str]>``."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import typer

from fcbench.cli.app import build_app, plain_type

PYTHON_TYPE = re.compile(r"<(?:list\[\w+\]|str|int|float|bool|path|Path)>")
"""How typer shows a Python type by default."""


def verbs() -> list[list[str]]:
    """Every command path of the app: ``[run]``, ``[cases, validate]``, ..."""
    group = typer.main.get_command(build_app())
    paths: list[list[str]] = []
    for name, command in sorted(group.commands.items()):  # type: ignore[attr-defined]
        paths.append([name])
        for sub in sorted(getattr(command, "commands", {})):
            paths.append([name, sub])
    return paths


def help_of(path: list[str]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "fcbench", *path, "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("path", verbs(), ids=lambda p: " ".join(p))
def test_every_verb_shows_plain_type_names(path: list[str]) -> None:
    text = help_of(path)
    assert "Usage:" in text and "fcbench" in text
    assert PYTHON_TYPE.search(text) is None, text


def test_repeatable_options_and_paths_have_plain_names() -> None:
    text = help_of(["run"])
    assert re.search(r"--target\s.*TEXT\.\.\.", text), text
    assert re.search(r"--out\s.*PATH", text), text
    assert re.search(r"--progress / --no-progress\s+Show progress", text), text


@pytest.mark.parametrize(
    ("shown", "plain"),
    [("<list[str]>", "TEXT..."), ("<int>", "INTEGER"), ("<bool>", ""), ("<path>", "PATH"), ("A|B", "A|B")],
)
def test_plain_type_words(shown: str, plain: str) -> None:
    assert plain_type(shown) == plain


def test_version_prints_the_installed_version() -> None:
    from importlib.metadata import version

    done = subprocess.run(
        [sys.executable, "-m", "fcbench", "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"fcbench {version('fcbench')}"


def leaf_verbs() -> list[list[str]]:
    """Command paths that do something (not the groups that only hold subcommands)."""
    paths = verbs()
    return [p for p in paths if not any(q[: len(p)] == p and len(q) > len(p) for q in paths)]


@pytest.mark.parametrize("path", leaf_verbs(), ids=lambda p: " ".join(p))
def test_every_verb_shows_an_example(path: list[str]) -> None:
    text = help_of(path)
    assert re.search(r"Examples?: fcbench " + re.escape(path[0]), text), text
