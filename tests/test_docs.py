"""The docs site builds strictly, lists every page, and says what the code does.

``mkdocs build --strict`` runs in a subprocess into a temporary folder: a broken link or anchor, a
missing page or a page left out of the nav fails it. The rest checks the pages' facts against the
code: the Architecture page against ``tests/test_layout.py``'s layers and ``src/fcbench/``, the
Python example against ``fcbench.grade``, the anomaly table against ``ANOMALY_CODES``, every quoted
``fcbench.`` name, repository path and command line against what exists.
"""

from __future__ import annotations

import ast
import importlib
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SRC = ROOT / "src" / "fcbench"
README = ROOT / "README.md"
PACKAGES = frozenset(p.parent.name for p in SRC.glob("*/__init__.py"))
"""The packages of ``src/fcbench/``."""
MAX_README_LINES = 400
"""The README is the front door: what fcbench is, the two commands, a tour and links."""

PAGES = sorted(DOCS.glob("*.md"))
WRITTEN = [README, *PAGES, ROOT / "benchmarks" / "README.md"]
"""Every Markdown file the docs site shows (the last one through an include)."""


def load_config() -> dict[str, Any]:
    """``mkdocs.yml`` as data (it uses no YAML tags)."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert isinstance(config, dict)
    return config


def nav_pages(nav: list[Any]) -> list[str]:
    """Every page file named in a mkdocs ``nav`` (nested sections included)."""
    pages: list[str] = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages.extend(nav_pages(value) if isinstance(value, list) else [value])
    return pages


def mkdocs_build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    done = mkdocs_build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    site = tmp_path / "site"
    built = {p.parent.name for p in site.glob("*/index.html")}
    assert built == {p.stem for p in PAGES if p.stem != "index"}
    included = {  # text each page takes from a file outside docs/ (README sections, SECURITY.md, ...)
        "index.html": ["run the whole test suite", "correct_clarification"],
        "security/index.html": ["What fcbench trusts"],
        "benchmarks/index.html": ["harness_overhead.py", "Changelog"],
    }
    for page, texts in included.items():
        html = (site / page).read_text(encoding="utf-8")
        assert "--8&lt;--" not in html and "--8<--" not in html, page
        assert all(text in html for text in texts), page


def test_the_strict_build_fails_on_a_broken_anchor_and_an_unlisted_page(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [the page](page.md#no-such-heading).\n", encoding="utf-8")
    (docs / "page.md").write_text("# Page\n\n## A heading\n", encoding="utf-8")
    (docs / "stray.md").write_text("# Stray\n", encoding="utf-8")
    config = {**load_config(), "docs_dir": str(docs), "nav": [{"Home": "index.md"}, {"Page": "page.md"}]}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    done = mkdocs_build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert "no-such-heading" in done.stderr
    assert "stray.md" in done.stderr


def test_every_page_is_in_the_nav_and_every_nav_entry_is_a_page() -> None:
    config = load_config()
    assert config["strict"] is True
    listed = nav_pages(config["nav"])
    assert len(listed) == len(set(listed)), "a page is listed twice"
    assert sorted(listed) == [p.name for p in PAGES]


def test_the_readme_stays_a_front_door() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines; move text to docs/"


def test_the_readme_links_every_page() -> None:
    text = README.read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(docs/([\w.-]+\.md)\)", text))
    assert linked == {p.name for p in PAGES if p.name != "index.md"}


def layout_value(name: str) -> Any:
    """A literal assigned at the top of ``tests/test_layout.py`` (read, not imported: importing it
    would build the import graph)."""
    tree = ast.parse((ROOT / "tests" / "test_layout.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == name:
            return ast.literal_eval(value)
    raise AssertionError(f"{name} is not assigned in tests/test_layout.py")


def section(text: str, heading: str) -> str:
    """The body of the ``## heading`` section of a page."""
    found = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert found is not None, f"no section '## {heading}'"
    return found.group(1)


def test_the_architecture_page_lists_the_layers_of_test_layout() -> None:
    layers = section((DOCS / "architecture.md").read_text(encoding="utf-8"), "Layers")
    items = re.findall(r"^\d+\. (.+)$", layers, re.M)
    documented = [set(re.findall(r"`(\w+)`", item)) for item in items]
    assert documented == layout_value("LAYERS")


def test_the_architecture_page_lists_every_package_in_layer_order() -> None:
    packages = section((DOCS / "architecture.md").read_text(encoding="utf-8"), "Packages")
    block = re.search(r"```\nsrc/fcbench/\n(.*?)```", packages, re.S)
    assert block is not None
    names = [re.sub(r"(/|\.py)$", "", line.split()[0]) for line in block.group(1).splitlines()]
    on_disk = PACKAGES | {m for m in layout_value("TOP_LEVEL_MODULES") if not m.startswith("__")}
    assert sorted(names) == sorted(on_disk)
    rank = {name: i for i, layer in enumerate(layout_value("LAYERS")) for name in layer}
    ranks = [rank[name] for name in names]
    assert ranks == sorted(ranks), "the package list is not in layer order"


def test_the_python_api_example_matches_its_comments() -> None:
    text = (DOCS / "python-api.md").read_text(encoding="utf-8")
    block = re.search(r"^# Python API\n\n```python\n(.*?)```", text, re.S | re.M)
    assert block is not None
    code = block.group(1)
    namespace: dict[str, object] = {}
    lines = [
        line.split("#")[0].rstrip() if line.startswith("verdict.") else line for line in code.splitlines()
    ]
    exec(compile("\n".join(lines), "python-api.md", "exec"), namespace)  # noqa: S102 - our own docs
    verdict = namespace["verdict"]
    assert verdict.decision == "correct_call"  # type: ignore[attr-defined]
    assert verdict.schema_valid is False  # type: ignore[attr-defined]
    assert verdict.passed is False  # type: ignore[attr-defined]
    commented = [line for line in code.splitlines() if line.startswith("verdict.") and "#" in line]
    assert len(commented) >= 4
    for line in commented:
        expression, comment = line.split("#", 1)
        assert repr(eval(expression.strip(), namespace)) == comment.strip()  # noqa: S307


def table_codes(text: str, first_header: str) -> list[str]:
    """The backticked codes in the first column of the table whose header starts with ``first_header``."""
    table = re.search(rf"^\| {re.escape(first_header)} \|.*\n\|[-|]+\|\n((?:\|.*\n?)+)", text, re.M)
    assert table is not None, f"no table starting with '| {first_header} |'"
    cells = re.findall(r"^\| ([^|]*) \|", table.group(1), re.M)
    return [code for cell in cells for code in re.findall(r"`([\w-]+)`", cell)]


def test_the_anomaly_table_names_every_anomaly_code() -> None:
    from fcbench.contract import ANOMALY_CODES

    assert table_codes((DOCS / "dialects.md").read_text(encoding="utf-8"), "code") == list(ANOMALY_CODES)


def test_the_fault_taxonomy_names_every_mock_fault() -> None:
    from fcbench.mock.faults import FAULT_NAMES

    listed = table_codes((DOCS / "dialects.md").read_text(encoding="utf-8"), "mock fault")
    assert sorted(listed) == sorted(FAULT_NAMES)


def resolves(dotted: str) -> bool:
    """Whether ``fcbench.a.b.c`` names a module or an attribute reachable from one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            if not hasattr(value, attr):
                return False
            value = getattr(value, attr)
        return True
    return False


def quoted(pattern: str) -> list[tuple[str, str]]:
    """(file, match) for every backticked text matching ``pattern`` in the pages and the README."""
    return [
        (path.name, match)
        for path in WRITTEN
        for match in re.findall(rf"`{pattern}", path.read_text(encoding="utf-8"))
    ]


def test_every_quoted_fcbench_name_exists() -> None:
    names = quoted(r"(fcbench(?:\.[A-Za-z_]\w*)+)(?![\w/-])")
    names = [(page, name) for page, name in names if not name.endswith((".yaml", ".json", ".yml"))]
    assert len(names) > 10
    missing = [f"{page}: {name}" for page, name in names if not resolves(name)]
    assert not missing, missing


def test_every_quoted_repository_path_exists() -> None:
    roots = {"src", "tests", "benchmarks", "docs", "fcbench", *PACKAGES}
    paths = quoted(r"([\w.-]+(?:/[\w.-]+)+\.(?:py|json|jsonl|md|yml|yaml|txt))`")
    paths = [(page, path) for page, path in paths if path.split("/")[0] in roots]
    assert len(paths) > 10
    bases = (ROOT, ROOT / "src", SRC)
    missing = [f"{page}: {path}" for page, path in paths if not any((b / path).exists() for b in bases)]
    assert not missing, missing


COMMAND_SPLIT = re.compile(r"&&|\|\||[;|]")
COMMAND = re.compile(r"\s*(?:-\s+)?(?:run:\s+)?(?:\S*/)?fcbench\s+(.*)")
"""A command line: ``fcbench ...``, ``.venv/bin/fcbench ...``, or a CI step ``- run: fcbench ...``."""


def command_lines() -> list[tuple[str, list[str]]]:
    """(file, arguments after ``fcbench``) for every fcbench command in a fenced code block."""
    found = []
    for path in WRITTEN:
        text = path.read_text(encoding="utf-8")
        for block in re.findall(r"^```(?:bash|yaml)?\n(.*?)^```", text, re.S | re.M):
            for line in block.splitlines():
                for part in COMMAND_SPLIT.split(line.split(" #")[0]):
                    match = COMMAND.match(part)
                    if match:
                        found.append((path.name, shlex.split(match.group(1).replace("$", ""))))
    return found


def test_every_command_line_names_a_verb_and_its_options() -> None:
    import typer.main

    from fcbench.cli.app import build_app

    root = typer.main.get_command(build_app())
    lines = command_lines()
    assert len(lines) > 30
    problems = []
    for page, args in lines:
        command: Any = root
        rest = list(args)
        while getattr(command, "commands", None) and rest and rest[0] in command.commands:
            command = command.commands[rest.pop(0)]
        if getattr(command, "commands", None):
            problems.append(f"{page}: fcbench {' '.join(args)}: no such verb")
            continue
        options = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
        unknown = [a.split("=")[0] for a in rest if a.startswith("--") and a.split("=")[0] not in options]
        if unknown:
            problems.append(f"{page}: fcbench {' '.join(args)}: unknown {unknown}")
    assert not problems, problems


def test_the_endpoint_pages_name_every_built_in_endpoint_and_default_target() -> None:
    from fcbench.endpoints import BUILTIN_ENDPOINTS, DEFAULT_TARGETS

    config = (DOCS / "configuration.md").read_text(encoding="utf-8")
    builtins = re.search(r"^Built-in endpoints .*?(?=\n\n)", config, re.M | re.S)
    assert builtins is not None
    named = set(re.findall(r"`([\w-]+)`", builtins.group(0)))
    assert set(BUILTIN_ENDPOINTS) <= named, sorted(set(BUILTIN_ENDPOINTS) - named)
    running = (DOCS / "running.md").read_text(encoding="utf-8")
    defaults = re.search(r"^With no arguments, `fcbench run` .*?(?=\n\n)", running, re.M | re.S)
    assert defaults is not None
    assert re.findall(r"`([\w-]+:[\w-]+)`", defaults.group(0)) == list(DEFAULT_TARGETS)


def test_the_mock_page_describes_every_simulated_model() -> None:
    from fcbench.mock.scripted import SCRIPTED_MODEL
    from fcbench.mock.sim import REGISTRY

    mock = (DOCS / "mock.md").read_text(encoding="utf-8")
    described = re.findall(r"^- `(sim-[\w-]+)` ", mock, re.M)
    assert sorted(described) == sorted([*REGISTRY, SCRIPTED_MODEL])
    assert sorted(table_codes(mock, "model (dialect in the default run)")) == sorted(REGISTRY)


def test_the_dialects_page_names_every_dialect() -> None:
    from fcbench.adapters import dialects

    first = (DOCS / "dialects.md").read_text(encoding="utf-8").split("\n\n")[1]
    words = ("No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten")
    count = words[len(dialects())]
    assert first.startswith(f"{count} wire dialects"), first[:40]
    assert sorted(set(re.findall(r"`([a-z]+(?:-[a-z]+)*)`", first)) & set(dialects())) == dialects()
