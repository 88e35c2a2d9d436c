"""``fcbench.schema`` holds dialect-free primitives only: it imports nothing from ``fcbench.adapters``.

Adapters build on the schema package (each dialect's rules live in its adapter), never the reverse.
"""

from __future__ import annotations

import ast
from pathlib import Path

import fcbench.schema

SCHEMA_DIR = Path(fcbench.schema.__file__).resolve().parent
FORBIDDEN = "fcbench.adapters"


def _imported_modules(source: str, package: str) -> list[str]:
    """Every module an ``import``/``from ... import`` in ``source`` names, relative ones resolved.

    ``from X import name`` counts as both ``X`` and ``X.name`` (``name`` may be a submodule).
    """
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.append(module)
            found += [f"{module}.{alias.name}" for alias in node.names]
    return found


def _forbidden(modules: list[str]) -> list[str]:
    return [m for m in modules if m == FORBIDDEN or m.startswith(FORBIDDEN + ".")]


def test_the_check_catches_every_import_form() -> None:
    package = "fcbench.schema"
    for line in (
        "import fcbench.adapters",
        "import fcbench.adapters.base as base",
        "from fcbench.adapters.base import Adapter",
        "from fcbench import adapters",
        "from ..adapters import get",
        "from .. import adapters",
        "def f():\n    from fcbench.adapters import get",
    ):
        assert _forbidden(_imported_modules(line, package)), line
    assert not _forbidden(_imported_modules("from fcbench.contract import Tool\nimport json", package))


def test_schema_package_imports_nothing_from_adapters() -> None:
    files = sorted(SCHEMA_DIR.rglob("*.py"))
    assert {p.name for p in files} >= {"__init__.py", "transform.py", "validate.py"}
    offenders = {}
    for path in files:
        relative = path.relative_to(SCHEMA_DIR)
        package = ".".join(["fcbench", "schema", *relative.parent.parts])  # a module's own package
        bad = _forbidden(_imported_modules(path.read_text(encoding="utf-8"), package))
        if bad:
            offenders[str(relative)] = bad
    assert not offenders
