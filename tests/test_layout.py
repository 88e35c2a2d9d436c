"""The package layout is the architecture: no import cycles between packages, layers point down.

The graph has one node per top-level package or module of ``fcbench`` (``run``, ``grading``,
``contract``, ...) and an edge A -> B when any module of A imports anything of B, at module level
or inside a function alike.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "fcbench"

TOP_LEVEL_MODULES = {
    "__init__",
    "__main__",
    "errors",
    "files",
    "config",
    "endpoints",
    "pricing",
    "redact",
    "suggest",
}
"""The vocabulary and the edges: the only modules allowed beside the pipeline's packages (the
contract, the vocabulary itself, is a package: its models and the reading of calls written as text)."""

LAYERS: list[set[str]] = [
    {"cli", "pytest_plugin"},
    {"run", "compat", "report", "bfcl", "logs", "view", "history"},
    {"metrics", "config"},
    {"store"},
    {"grading"},
    {"adapters", "transport", "fake_tools", "suite", "mock"},
    {"local"},
    {"schema", "endpoints", "pricing", "redact"},
    {"contract", "errors", "files", "suggest"},
]
"""Dependencies point down this list (or stay inside one layer without forming a cycle)."""


def node_of(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def imported_names(path: Path) -> Iterator[str]:
    """Every dotted name a module imports, at module level or inside a function alike: ``import a.b``
    gives ``a.b``; ``from a import b`` gives ``a`` and ``a.b`` (``b`` may be a module or a name)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def imported_nodes(path: Path) -> Iterator[str]:
    for name in imported_names(path):
        parts = name.split(".")
        if parts[0] == "fcbench" and len(parts) > 1:
            yield parts[1]


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in SRC.rglob("*.py"):
        source = node_of(path)
        edges = graph.setdefault(source, set())
        edges.update(target for target in imported_nodes(path) if target != source)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path ``[a, b, ..., a]``, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_package_level_import_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle between packages: " + " -> ".join(cycle or [])


def test_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_top_level_holds_only_the_vocabulary_and_the_edges() -> None:
    modules = {p.stem for p in SRC.glob("*.py")}
    assert modules == TOP_LEVEL_MODULES, sorted(modules ^ TOP_LEVEL_MODULES)


@pytest.mark.parametrize("source", sorted(import_graph()))
def test_dependencies_point_down_the_layers(source: str) -> None:
    rank = {name: i for i, layer in enumerate(LAYERS) for name in layer}
    if source.startswith("__"):
        return
    assert source in rank, f"{source} is in no layer of the architecture"
    upward = sorted(t for t in import_graph()[source] if rank.get(t, len(LAYERS)) < rank[source])
    assert not upward, f"{source} imports {upward}, which sit above it"


TESTS = Path(__file__).resolve().parent
NOT_TEST_FOLDERS = {"support", "fixtures", "__pycache__"}
"""Folders under ``tests/`` that hold helpers or data, not tests of one package (with all below them)."""


def stray_test_folders(tests: Path, src: Path) -> list[str]:
    """Folders under ``tests`` (relative, POSIX) that name no package or top-level module of ``src``.

    ``tests/run`` names the package ``src/run/``, ``tests/mock/sim`` the package ``src/mock/sim/``,
    ``tests/transport`` the top-level module ``src/transport.py``. ``support``, every ``fixtures``
    and ``__pycache__`` folder, hidden folders (tool caches) and everything below them are skipped.
    """
    stray = []
    for folder in sorted(p for p in tests.rglob("*") if p.is_dir()):
        parts = folder.relative_to(tests).parts
        if any(part in NOT_TEST_FOLDERS or part.startswith(".") for part in parts):
            continue
        package = src.joinpath(*parts)
        is_package = (package / "__init__.py").is_file()
        is_module = len(parts) == 1 and package.with_suffix(".py").is_file()
        if not (is_package or is_module):
            stray.append("/".join(parts))
    return stray


def test_every_test_folder_names_a_package_or_top_level_module() -> None:
    stray = stray_test_folders(TESTS, SRC)
    assert not stray, "test folders naming no package or top-level module of src/fcbench: " + ", ".join(
        f"tests/{name}" for name in stray
    )


def test_stray_folder_finder_names_each_stray_folder(tmp_path: Path) -> None:
    src, tests = tmp_path / "src", tmp_path / "tests"
    for package in ("run", "store", "mock", "mock/sim"):
        (src / package).mkdir(parents=True)
        (src / package / "__init__.py").touch()
    (src / "transport.py").touch()
    (src / "mock" / "faults.py").touch()
    (src / "grading").mkdir()  # a folder without __init__.py is no package
    for folder in (
        "run",
        "run/__pycache__",
        "store/fixtures/run-record-v1",
        "mock/sim",
        "transport",
        "support/corpus",
        "fixtures/wire",
        ".hypothesis",
        "runner",
        "recovery/extra",
        "mock/faults",
        "mock/sim/deeper",
        "grading",
    ):
        (tests / folder).mkdir(parents=True)
    assert stray_test_folders(tests, src) == [
        "grading",
        "mock/faults",
        "mock/sim/deeper",
        "recovery",
        "recovery/extra",
        "runner",
    ]


def test_support_holds_helpers_not_tests() -> None:
    support = TESTS / "support"
    found = [p for p in support.rglob("*.py") if p.name.startswith("test_") or p.name == "conftest.py"]
    names = sorted(p.relative_to(TESTS).as_posix() for p in found)
    assert not names, f"test modules or a conftest in tests/support (move them to a test folder): {names}"


def module_name(path: Path) -> str:
    """``fcbench.suite.loader`` for ``.../suite/loader.py`` (an ``__init__`` names its package)."""
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_graph() -> dict[str, set[str]]:
    """Module -> the fcbench modules it imports, at module level or inside a function alike (a
    module importing its own package's ``__init__`` is not an edge: the package holds it)."""
    modules = {module_name(p): p for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = graph.setdefault(name, set())
        edges.update(
            m for m in imported_names(path) if m in modules and m != name and not name.startswith(m + ".")
        )
    return graph


def test_no_module_import_cycle() -> None:
    """No two modules import each other, directly or around a circle: a circle broken by an import
    inside a function is still a circle (the folder suite loader and the one-file loader were one)."""
    assert find_cycle(module_graph()) is None, " -> ".join(find_cycle(module_graph()) or [])


def test_module_graph_sees_imports_inside_functions() -> None:
    graph = module_graph()
    assert "fcbench.config" in graph["fcbench.cli.run"]  # imported inside run_command
    assert "fcbench.suite" not in graph["fcbench.suite.loader"]  # its own package: not an edge
