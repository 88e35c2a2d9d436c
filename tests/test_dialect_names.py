"""No dialect is named in code outside its adapter package, the registries and the mock.

Adding a dialect is its adapter package, one registry line and one mock module: everything else
asks the adapter registry or reads a capability the adapter declares. A dialect is "named" when a
string in code (not a docstring) holds its registry name as a word, or an import names its
adapter package. Docstrings and comments may speak of dialects; code may not.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from fcbench.adapters import BUILTIN_ADAPTERS

SRC = Path(__file__).resolve().parents[1] / "src" / "fcbench"

ALLOWED: dict[str, str] = {
    "adapters": "the adapter packages and the adapter registry",
    "mock": "the mock provider's own dialect modules and its registry (it never imports the adapters)",
    "endpoints.py": "the endpoint tables: configuration naming each endpoint's dialect",
    "cli/init.py": "the starter configuration's text, which names endpoints (one is called as its dialect)",
    "schema/gemini.py": "Gemini's schema spelling, for its adapter and its mock (neither imports the other)",
}
"""Paths under ``src/fcbench`` (a folder covers everything below it) that may name dialects, and why."""

DIALECTS = sorted(BUILTIN_ADAPTERS)
PACKAGES = sorted(spec.partition(":")[0].rsplit(".", 1)[1] for spec in BUILTIN_ADAPTERS.values())
NAME = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, DIALECTS + PACKAGES)) + r")(?![\w-])")


def allowed(path: Path, root: Path = SRC) -> bool:
    rel = path.relative_to(root).as_posix()
    return any(rel == key or rel.startswith(key + "/") for key in ALLOWED)


def docstrings(tree: ast.AST) -> set[int]:
    """Ids of the string constants that stand alone as statements (docstrings, attribute docs)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def named_dialects(source: str) -> Iterator[tuple[int, str]]:
    """``(line, name)`` of each dialect named in the code of ``source``."""
    tree = ast.parse(source)
    skip = docstrings(tree)
    for node in ast.walk(tree):
        texts: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            texts = [node.value]
        elif isinstance(node, ast.Import):
            texts = [alias.name.replace(".", " ") for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            texts = [node.module.replace(".", " "), *(alias.name for alias in node.names)]
        for text in texts:
            for match in NAME.finditer(text):
                yield node.lineno, match.group(1)


def test_no_dialect_is_named_outside_its_adapter_the_registries_and_the_mock() -> None:
    found = [
        f"{path.relative_to(SRC).as_posix()}:{line}: {name}"
        for path in sorted(SRC.rglob("*.py"))
        if not allowed(path)
        for line, name in named_dialects(path.read_text(encoding="utf-8"))
    ]
    assert not found, "dialects named outside their adapters (ask the adapter registry):\n" + "\n".join(found)


def test_the_finder_sees_strings_and_imports_but_not_docstrings() -> None:
    source = '''"""Speaks openai-chat."""
from fcbench.adapters.bedrock_converse import request
import fcbench.adapters.gemini_interactions.stream
HELP = f"one of: {x}, gemini"
NOTE = "sim-gemini-2 and gemini_like are other words"


def f() -> None:
    """Reads anthropic-messages."""
    mode = {"openai-responses": 1}
'''
    assert sorted(named_dialects(source)) == [
        (2, "bedrock_converse"),
        (3, "gemini_interactions"),
        (4, "gemini"),
        (10, "openai-responses"),
    ]


def test_every_allowed_path_exists() -> None:
    assert all((SRC / key).exists() for key in ALLOWED), sorted(k for k in ALLOWED if not (SRC / k).exists())
