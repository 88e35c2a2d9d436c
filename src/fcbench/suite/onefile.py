"""One-file suites: a whole suite in one YAML or JSON file.

::

    name: support-bot              # optional, default: the file name without its suffix
    dataset_version: "1"
    description: ...               # optional
    minimums: {normal: 50}         # optional: fewest cases per category (checked by cases validate)
    writes: [cancel_order]         # optional: tools that write, whatever their list's format says
    system: You are ...            # optional: absent or empty, no system prompt is sent
    tools:                         # a list (tool set "core") or {set: list}; any format of
      - name: get_weather          #   fcbench.suite.imports, detected per list
        ...
    cases:                         # case objects, exactly as the lines of cases.jsonl
      - id: weather-01
        ...
    fakes: {...}                   # optional, as fakes.json
    claims: {...}                  # optional, as claims.json

The checks are the folder form's (:mod:`fcbench.suite.loader`); every problem names the file and
the line of the failing key (YAML node marks, or the JSON text's positions). YAML is read safely:
duplicate keys, non-string keys (``on:`` is a boolean in YAML 1.1; quote it), recursive anchors,
control characters and alias bombs are errors. A date or time written without quotes
(``day: 2024-05-01``) is the string written, as JSON has no date type. The dataset hash covers the
file's decoded text, as for a folder's files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property, partial
from pathlib import Path
from typing import Any

import yaml

from fcbench.contract import Tool
from fcbench.suite.checks import ToolContext
from fcbench.suite.imports import ToolImport, canonical_json, read_tool_list
from fcbench.suite.mcp_tools import SourcedTools, hash_sources, with_sources
from fcbench.suite.models import ClaimRules
from fcbench.suite.parts import (
    TOOL_SET_FILE,
    Report,
    Suite,
    SuiteReader,
    apply_writes,
    check_case,
    check_case_ids,
    check_claims,
    check_fakes,
    check_info,
)
from fcbench.suite.reading import decode_text, json_error_message, json_key_lines, line_at, strict_json_loads
from fcbench.suite.tools import Finding, Key

TOP_KEYS = frozenset(
    {
        "name",
        "dataset_version",
        "description",
        "minimums",
        "writes",
        "system",
        "tools",
        "cases",
        "fakes",
        "claims",
    }
)
"""The keys a one-file suite may have."""
WRAPPER_KEYS = frozenset({"tools", "functionDeclarations", "jsonrpc"})
"""A ``tools`` mapping with one of these keys is one wrapped tool list (set ``core``), not named sets."""
MAX_YAML_VALUES = 1_000_000
"""Values a YAML suite may hold once its aliases are expanded (an alias bomb holds billions)."""

Lines = dict[tuple[Key, ...], int]

FAST_YAML_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML was built with it (three times faster on a large suite), else
the pure-Python one; both give the same nodes, marks and errors."""


class _SuiteYamlLoader(FAST_YAML_LOADER):  # type: ignore[valid-type,misc]
    """The fast safe loader, with a timestamp read as the text written (a suite holds JSON values)."""


_SuiteYamlLoader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_scalar)


class _YamlProblem(ValueError):
    """A YAML document that is not a plain tree of JSON-like values (with the line)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def _yaml_lines(node: yaml.Node) -> Lines:
    """Line of every value by path (a mapping member: its key's line); checks keys and alias size."""
    lines: Lines = {}
    sizes: dict[int, int] = {}

    def size(item: yaml.Node) -> int:
        if sizes.get(id(item)) == 0:
            raise _YamlProblem(item.start_mark.line + 1, "a recursive anchor: this value holds itself")
        if id(item) not in sizes:
            sizes[id(item)] = 0  # being counted
            children: list[yaml.Node] = []
            if isinstance(item, yaml.MappingNode):
                children = [value for _, value in item.value]
            elif isinstance(item, yaml.SequenceNode):
                children = list(item.value)
            sizes[id(item)] = 1 + sum(size(child) for child in children)
        return sizes[id(item)]

    if size(node) > MAX_YAML_VALUES:
        raise _YamlProblem(1, f"holds more than {MAX_YAML_VALUES} values once its aliases are expanded")
    stack: list[tuple[yaml.Node, tuple[Key, ...], int]] = [(node, (), node.start_mark.line + 1)]
    seen: set[int] = set()
    while stack:
        item, path, line = stack.pop()
        lines[path] = line
        if id(item) in seen:
            continue  # an alias: its insides were walked where it was anchored
        seen.add(id(item))
        if isinstance(item, yaml.MappingNode):
            names: set[str] = set()
            for key, value in item.value:
                key_line = key.start_mark.line + 1
                if not isinstance(key, yaml.ScalarNode) or key.tag != "tag:yaml.org,2002:str":
                    raise _YamlProblem(key_line, f"key {key.value!r} is not a string (quote it)")
                if key.value in names:
                    raise _YamlProblem(key_line, f"duplicate key {key.value!r}")
                names.add(key.value)
                stack.append((value, (*path, key.value), key_line))
        elif isinstance(item, yaml.SequenceNode):
            stack.extend((value, (*path, i), value.start_mark.line + 1) for i, value in enumerate(item.value))
    return lines


def _parse(text: str, is_json: bool) -> tuple[Any, Callable[[], Lines]]:
    """The document and what gives the line of each of its values; raises ``ValueError`` (with
    ``.line``). A JSON document's lines are found only when a problem needs one (a walk of the
    text takes a third of a clean load)."""
    if is_json:
        return strict_json_loads(text), partial(json_key_lines, text)
    try:
        loader = _SuiteYamlLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None, dict
            lines = _yaml_lines(node)
            return loader.construct_document(node), partial(dict, lines)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise _YamlProblem(mark.line + 1 if mark else 1, f"invalid YAML: {exc.problem or exc}") from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow, e.g. a raw control character
        line = text.count("\n", 0, exc.position) + 1
        raise _YamlProblem(line, f"invalid YAML: character {exc.character!r} ({exc.reason})") from None
    except yaml.YAMLError as exc:
        raise _YamlProblem(1, f"invalid YAML: {exc}") from None
    except RecursionError:
        raise _YamlProblem(1, "nested too deeply to read") from None


class _OneFile:
    """One load of a one-file suite: where problems go, and the report of each part."""

    def __init__(self, reader: SuiteReader, name: str, lines: Callable[[], Lines]) -> None:
        self.reader = reader
        self.name = name
        self._lines_of = lines

    @cached_property
    def lines(self) -> Lines:
        """The line of each value of the document, by its path."""
        return self._lines_of()

    def report(self, *prefix: Key) -> Report:
        def report(findings: Sequence[Finding]) -> None:
            for finding in findings:
                placed = finding.under(*prefix)
                line = line_at(self.lines, placed.keys)
                self.reader.problems.add(self.reader.display(self.name), line, str(placed))

        return report

    def line(self, *keys: Key) -> int | None:
        return line_at(self.lines, keys)

    def case_where(self, index: int) -> str:
        """Where case ``index`` is shown in a problem: its place in the list, and its line."""
        return f"cases[{index}] (line {self.line('cases', index)})"


def _tool_sets(doc: _OneFile, value: Any, given: Sequence[str]) -> tuple[ToolContext, list[ToolImport]]:
    if value is None:
        if "core" not in given:
            doc.report()([Finding(("tools",), "required key is missing (or pass --tools-from-mcp)")])
        return ToolContext({}, frozenset() if "core" in given else frozenset({"core"})), []
    named = isinstance(value, dict) and not WRAPPER_KEYS & set(value)
    groups: dict[str, tuple[Any, tuple[Key, ...]]] = (
        {name: (v, ("tools", name)) for name, v in value.items()} if named else {"core": (value, ("tools",))}
    )
    sets: dict[str, list[Tool]] = {}
    broken: set[str] = set()
    imports: list[ToolImport] = []
    for set_name, (tools_value, prefix) in groups.items():
        if not TOOL_SET_FILE.match(f"tools.{set_name}.json"):
            doc.report(*prefix)([Finding((), "a tool set name is lowercase letters, digits, '_' and '-'")])
            broken.add(set_name)
            continue
        if set_name in given:
            continue  # replaced by a tool source
        source = f"{doc.name}#{'.'.join(map(str, prefix))}"
        original = canonical_json(tools_value)
        tools, findings, record = read_tool_list(
            tools_value, original=original, source=source, tool_set=set_name
        )
        doc.report(*prefix)(findings)
        if record is not None:
            imports.append(record)
        if tools is None:
            broken.add(set_name)
        else:
            sets[set_name] = tools
    return ToolContext(sets, frozenset(broken)), imports


def _cases(doc: _OneFile, value: Any, context: ToolContext) -> list[Any]:
    if not isinstance(value, list) or not value:
        message = "required key is missing" if value is None else "must be a non-empty list of cases"
        doc.report()([Finding(("cases",), message)])
        return []
    parsed = []
    for index, item in enumerate(value):
        report = doc.report("cases", index)
        case = check_case(item, context, report)
        if case is not None:
            parsed.append((report, partial(doc.case_where, index), case))
    check_case_ids(parsed)
    return [case for _, _, case in parsed]


def load_one_file(path: Path, sourced: Sequence[SourcedTools] = ()) -> Suite:
    """Load and check the one-file suite at ``path`` (YAML, or JSON for a ``.json`` file)."""
    reader = SuiteReader(path.parent)
    name = path.name
    data = reader.read(name)
    text = decode_text(data, reader.display(name), reader.problems) if data is not None else None
    if text is None:
        reader.problems.raise_if_any()
        raise AssertionError("unreachable")  # pragma: no cover
    try:
        document, lines = _parse(text, path.suffix.lower() == ".json")
    except ValueError as exc:
        line = getattr(exc, "line", None) or getattr(exc, "lineno", None)
        reader.problems.add(
            reader.display(name), line, str(exc) if isinstance(exc, _YamlProblem) else json_error_message(exc)
        )
        reader.problems.raise_if_any()
    if not isinstance(document, dict):
        reader.problems.add(
            reader.display(name), 1, "a one-file suite must be a mapping of keys (name, tools, cases, ...)"
        )
        reader.problems.raise_if_any()
    reader.texts[name] = text
    doc = _OneFile(reader, name, lines)
    doc.report()([Finding((key,), "unknown key") for key in document if key not in TOP_KEYS])
    info_keys = ("name", "dataset_version", "description", "minimums", "writes")
    info = check_info(
        {"name": path.stem, **{k: document[k] for k in info_keys if k in document}}, doc.report()
    )
    system = document.get("system") or ""
    if not isinstance(system, str):
        doc.report()([Finding(("system",), "must be a string")])
    given = [s.tool_set for s in sourced]
    context, imports = _tool_sets(doc, document.get("tools"), given)
    context = apply_writes(with_sources(context, sourced), info, doc.report())
    cases = _cases(doc, document.get("cases"), context)
    claims = check_claims(document["claims"], doc.report("claims")) if "claims" in document else ClaimRules()
    fakes = check_fakes(document["fakes"], context, doc.report("fakes")) if "fakes" in document else {}
    hash_sources(reader.texts, sourced)
    reader.problems.raise_if_any()
    assert info is not None
    return Suite(
        path=path,
        info=info,
        system=system.rstrip("\n") if isinstance(system, str) and system.strip() else "",
        tool_sets={set_name: list(tools) for set_name, tools in context.tool_sets.items()},
        cases=cases,
        dataset_hash=reader.dataset_hash(),
        claims=claims,
        fakes=fakes,
        tool_imports=[*imports, *(s.record for s in sourced)],
    )


__all__ = ["MAX_YAML_VALUES", "TOP_KEYS", "load_one_file"]
