"""The metrics' speed path sits behind one function: outside ``metrics/fast/``, code imports only
:func:`fcbench.metrics.fast.metrics_of`, never a module of the package."""

from __future__ import annotations

import ast
from pathlib import Path

import fcbench.metrics.fast as fast

SRC = Path(__file__).resolve().parents[2] / "src" / "fcbench"
PACKAGE = "fcbench.metrics.fast"
ENTRY = frozenset({"metrics_of"})


def crossings(source: str) -> list[str]:
    """Each import in ``source`` of a module of the package, or of a name it does not export."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith(PACKAGE)]
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module.startswith(PACKAGE + "."):
                found.append(node.module)
            elif node.module == PACKAGE:
                found += [f"{PACKAGE}.{a.name}" for a in node.names if a.name not in ENTRY]
            elif node.module == "fcbench.metrics":
                found += [f"{PACKAGE}" for a in node.names if a.name == "fast"]
    return found


def test_the_scan_finds_every_way_in() -> None:
    source = "import fcbench.metrics.fast.lines\nfrom fcbench.metrics.fast.partition import parts_for\n"
    source += "from fcbench.metrics.fast import metrics_of, parallel\nfrom fcbench.metrics import fast\n"
    source += "from fcbench.metrics import compute_metrics\n"
    assert crossings(source) == [
        "fcbench.metrics.fast.lines",
        "fcbench.metrics.fast.partition",
        "fcbench.metrics.fast.parallel",
        "fcbench.metrics.fast",
    ]


def test_the_package_exports_one_function() -> None:
    assert set(fast.__all__) == ENTRY and callable(fast.metrics_of)


def test_nothing_outside_the_package_imports_its_modules() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if not rel.startswith("metrics/fast/"):
            found += [f"{rel}: {name}" for name in crossings(path.read_text(encoding="utf-8"))]
    assert not found, "import fcbench.metrics.fast.metrics_of (or compute_metrics) instead:\n" + "\n".join(
        found
    )
