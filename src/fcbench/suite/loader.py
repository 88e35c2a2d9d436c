"""Load a suite folder (or a built-in suite by name), checking everything, with file:line errors.

A suite is a folder, or one YAML or JSON file holding the same parts (:mod:`fcbench.suite.onefile`)::

    suite.json                 {"name", "dataset_version", "description", "minimums", "writes"}
    system.txt                 optional: the system prompt (absent or empty: no system prompt is sent)
    tools.<set>.json           {"tools": [...]} one file per tool set: tools.core.json is set "core",
                               tools.compatibility.json is set "compatibility", and so on; the list
                               may be in any format of :mod:`fcbench.suite.imports`
    cases.jsonl                one case per line; blank lines are allowed
    recovery.jsonl             optional: multi-turn recovery scenarios (cases with ``recovery`` set)
    store.json                 optional: the fake tools' data set for this suite's recovery scenarios
                               (its ``authorization`` rules: :mod:`fcbench.suite.access`)
    fakes.json                 optional: scripted fake tools by tool name (:mod:`fcbench.suite.fakes`)

Every problem in every file is collected and raised together as one
:class:`~fcbench.suite.reading.SuiteError` (a :class:`~fcbench.errors.CaseError`) whose message
lists them one per line as ``file:line: field: what is wrong``. Text rules (UTF-8, BOM, CRLF)
are described in :mod:`fcbench.suite.reading`.

The dataset hash is a SHA-256 over the files the loader reads, in name order, each as its name,
a NUL byte, its decoded text (BOM removed, CRLF read as LF) encoded as UTF-8, and a NUL byte: it
changes with any content change and not with line-ending conversion. Tool sets taken from MCP
servers (``tool_sources``) add their ``tools/list`` result under the name ``mcp:<set>``.

A large folder suite found valid once is read from the suite cache on later loads of the same
bytes (:mod:`fcbench.suite.cache`), its cases built from their lines as a run asks for them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from fcbench.contract import Tool
from fcbench.errors import CaseError
from fcbench.suite.access import check_store
from fcbench.suite.cache import SuiteCache
from fcbench.suite.caselist import CaseList, head_of
from fcbench.suite.checks import ToolContext
from fcbench.suite.imports import read_tool_list
from fcbench.suite.mcp_tools import SourcedTools, fetch_sources, hash_sources, with_sources
from fcbench.suite.models import Case, ClaimRules, SuiteInfo
from fcbench.suite.onefile import load_one_file
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
from fcbench.suite.reading import (
    UTF8_BOM,
    decode_lines,
    json_error_message,
    strict_json_loads,
)
from fcbench.suite.tools import Finding

SUITE_FILE = "suite.json"
SYSTEM_FILE = "system.txt"
CASES_FILE = "cases.jsonl"
RECOVERY_FILE = "recovery.jsonl"
STORE_FILE = "store.json"
CLAIMS_FILE = "claims.json"
FAKES_FILE = "fakes.json"
CORE_TOOLS_FILE = "tools.core.json"
READ_FILES = frozenset(
    {SUITE_FILE, SYSTEM_FILE, CASES_FILE, RECOVERY_FILE, STORE_FILE, CLAIMS_FILE, FAKES_FILE}
)
"""The files of a suite folder the loader reads besides its tool sets (``tools.<set>.json``)."""

BUILTIN_DIR = Path(__file__).resolve().parent / "builtin"
"""Folder holding the built-in suites, one subfolder each."""
ONE_FILE_SUFFIXES = frozenset({".yaml", ".yml", ".json"})
"""Suffixes of a one-file suite."""
ONE_FILE_NAMES = ("suite.yaml", "suite.yml")
"""A folder without ``suite.json`` holding one of these (``fcbench init``'s layout) means that file."""


def builtin_suites() -> list[str]:
    """Names of the built-in suites, sorted."""
    if not BUILTIN_DIR.is_dir():
        return []
    return sorted(p.name for p in BUILTIN_DIR.iterdir() if (p / SUITE_FILE).is_file())


def resolve_suite(name_or_path: str | Path) -> Path:
    """The folder (or one-file suite) of a suite given by built-in name or by path.

    A :class:`~pathlib.Path`, a string containing a path separator, or a string naming something
    that exists is a path; any other string is a built-in suite name. A path to a file inside a
    suite folder (for example its ``cases.jsonl``) means that folder; any other ``.yaml``, ``.yml``
    or ``.json`` file is a one-file suite, and so is a folder's ``suite.yaml`` (or ``suite.yml``)
    when the folder has no ``suite.json``.
    """
    if isinstance(name_or_path, str):
        if not name_or_path.strip():
            raise CaseError("no suite given: pass a built-in suite name or a suite folder")
        separators = {"/", os.sep, os.altsep or "/"}
        if not any(sep in name_or_path for sep in separators) and not Path(name_or_path).exists():
            folder = BUILTIN_DIR / name_or_path
            if (folder / SUITE_FILE).is_file():
                return folder
            known = ", ".join(builtin_suites()) or "none"
            raise CaseError(
                f"unknown suite {name_or_path!r}: not a built-in suite ({known}) and no such folder"
            )
    path = Path(name_or_path)
    if not path.exists():
        raise CaseError("no such suite folder", path=str(path))
    if path.is_file():
        if (path.parent / SUITE_FILE).is_file():
            return path.parent
        if path.suffix.lower() in ONE_FILE_SUFFIXES:
            return path
        raise CaseError(
            f"is a file; a suite is a folder holding {SUITE_FILE}, {CORE_TOOLS_FILE} and {CASES_FILE}, "
            "or one .yaml, .yml or .json file",
            path=str(path),
        )
    if not (path / SUITE_FILE).is_file():
        one_file = [path / name for name in ONE_FILE_NAMES if (path / name).is_file()]
        if len(one_file) == 1:
            return one_file[0]
    return path


@dataclass(frozen=True)
class ParsedCase:
    """A case read from a case file, and where it was."""

    file: str
    """The case file's name."""
    line: int
    """Its 1-based line number."""
    case: Case
    """The case, checked on its own."""
    span: tuple[int, int]
    """Byte offsets of its line in the file."""


def _whole(reader: SuiteReader, name: str, text: str) -> Report:
    return lambda findings: reader.add_findings(name, text, (0, len(text)), findings)


def _load_info(reader: SuiteReader) -> tuple[SuiteInfo | None, Report]:
    """The suite's identity, and where problems of ``suite.json``'s keys go."""
    loaded = reader.read_json(SUITE_FILE)
    if loaded is None:
        return None, _whole(reader, SUITE_FILE, "")
    text, data = loaded
    report = _whole(reader, SUITE_FILE, text)
    if not isinstance(data, dict):
        reader.problems.add(reader.display(SUITE_FILE), 1, "must be a JSON object")
        return None, report
    return check_info(data, report), report


def _load_optional(reader: SuiteReader, name: str) -> tuple[str, Any] | None:
    return reader.read_json(name) if (reader.folder / name).is_file() else None


def _load_tool_set(reader: SuiteReader, name: str, set_name: str) -> list[Tool] | None:
    loaded = reader.read_json(name)
    if loaded is None:
        return None
    text, data = loaded
    tools, findings, record = read_tool_list(data, original=text, source=name, tool_set=set_name)
    reader.reporter(name, text)(findings)
    if record is not None:
        reader.imports.append(record)
    return tools


def _load_tool_sets(reader: SuiteReader, given: Sequence[str]) -> ToolContext:
    sets: dict[str, list[Tool]] = {}
    broken: set[str] = set()
    names = sorted(p.name for p in reader.folder.iterdir() if TOOL_SET_FILE.match(p.name))
    if CORE_TOOLS_FILE not in names and "core" not in given:
        reader.problems.add(reader.display(CORE_TOOLS_FILE), None, "file is missing")
        broken.add("core")
    for file_name in names:
        match = TOOL_SET_FILE.match(file_name)
        assert match is not None
        if match.group(1) in given:
            continue  # replaced by a tool source
        tools = _load_tool_set(reader, file_name, match.group(1))
        if tools is None:
            broken.add(match.group(1))
        else:
            sets[match.group(1)] = tools
    return ToolContext(tool_sets=sets, broken_sets=frozenset(broken))


def _line_reporter(reader: SuiteReader, file_name: str, number: int) -> Report:
    def report(findings: Sequence[Finding]) -> None:
        for finding in findings:
            reader.problems.add(reader.display(file_name), number, str(finding))

    return report


def _parse_case_line(
    reader: SuiteReader, file_name: str, number: int, line: str, context: ToolContext
) -> Case | None:
    try:
        data = strict_json_loads(line)
    except ValueError as exc:
        reader.problems.add(reader.display(file_name), number, json_error_message(exc))
        return None
    return check_case(data, context, _line_reporter(reader, file_name, number))


def _line_spans(data: bytes) -> Iterator[tuple[int, int]]:
    """Byte spans of the lines of ``data`` split on LF (a leading BOM left out), LF excluded."""
    start = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    while (end := data.find(b"\n", start)) != -1:
        yield start, end
        start = end + 1
    yield start, len(data)


def _load_case_file(reader: SuiteReader, file_name: str, context: ToolContext) -> list[ParsedCase]:
    data = reader.read(file_name)
    if data is None:
        return []
    where = reader.display(file_name)
    lines = decode_lines(data, where, reader.problems)
    parsed: list[ParsedCase] = []
    for number, (line, span) in enumerate(zip(lines, _line_spans(data), strict=True), start=1):
        if line is None or not line.strip():
            continue
        case = _parse_case_line(reader, file_name, number, line, context)
        if case is not None:
            parsed.append(ParsedCase(file_name, number, case, span))
    if all(line is not None for line in lines):
        reader.texts[file_name] = "\n".join(line for line in lines if line is not None)
    if all(line is not None and not line.strip() for line in lines):
        reader.problems.add(where, 1, "file is empty: a suite needs at least one case")
        return []
    return parsed


def _case_files(folder: Path) -> list[str]:
    """The case files of a suite folder, in the order their cases come."""
    return [CASES_FILE, *([RECOVERY_FILE] if (folder / RECOVERY_FILE).is_file() else [])]


def _load_cases(reader: SuiteReader, context: ToolContext) -> CaseList:
    files = _case_files(reader.folder)
    parsed = [found for name in files for found in _load_case_file(reader, name, context)]
    check_case_ids(
        [
            (
                _line_reporter(reader, p.file, p.line),
                partial(str, f"line {p.line}" if p.file == CASES_FILE else f"{p.file} line {p.line}"),
                p.case,
            )
            for p in parsed
        ]
    )
    heads = [head_of(p.case, files.index(p.file), p.span, p.line) for p in parsed]
    return CaseList(heads, kept=[p.case for p in parsed])


def _suite_files(folder: Path) -> list[tuple[str, bytes]] | None:
    """Name and bytes of every file the loader reads from ``folder``; None when one of them is
    not a regular file or cannot be read (the checked load reports it)."""
    try:
        entries = {entry.name: entry for entry in os.scandir(folder)}
        names = [n for n in entries if n in READ_FILES or TOOL_SET_FILE.match(n)]
        if any(not entries[name].is_file() for name in names):
            return None
        return [(name, (folder / name).read_bytes()) for name in names]
    except OSError:
        return None


def _cached(folder: Path, cache: SuiteCache) -> tuple[str, Suite | None, dict[str, bytes]] | None:
    """The key, the cached suite (None: not cached yet) and the files read, for a folder suite
    large enough to cache; None when it is not cached at all."""
    files = _suite_files(folder)
    if files is None:
        return None
    by_name = dict(files)
    if not cache.worth_it(sum(len(by_name.get(name, b"")) for name in _case_files(folder))):
        return None
    key = cache.key(files)
    return key, cache.read(key, folder, by_name), by_name


def load_suite(
    name_or_path: str | Path, tool_sources: Sequence[str] = (), cache: SuiteCache | bool = True
) -> Suite:
    """Load and check a suite by built-in name (``core``), folder path or one-file suite path.

    ``tool_sources`` are MCP server commands (``[SET=]COMMAND ARGS``, set ``core`` by default) whose
    ``tools/list`` result becomes that tool set. Raises :class:`~fcbench.errors.CaseError` (a
    :class:`~fcbench.suite.reading.SuiteError` listing every problem, each as
    ``file:line: field: message``) when anything is wrong. A large folder suite already found valid
    is read from the suite cache (:mod:`fcbench.suite.cache`; ``cache``: True for the user's cache
    unless the environment turns it off, False for none, or the cache to use).
    """
    path = resolve_suite(name_or_path)
    sourced = fetch_sources(tool_sources)  # before reading: cases are checked against these tools
    if path.is_file():
        return load_one_file(path, sourced)
    chosen = SuiteCache.from_environment() if cache is True else cache or None
    cached = _cached(path, chosen) if chosen is not None and not sourced else None
    if cached is not None and cached[1] is not None:
        return cached[1]
    suite = _checked_folder(SuiteReader(path, given=cached[2] if cached else None), sourced)
    if chosen is not None and cached is not None:
        chosen.write(cached[0], suite, _case_files(path))
    return suite


def _checked_folder(reader: SuiteReader, sourced: Sequence[SourcedTools]) -> Suite:
    """Read and check every file of a suite folder (see :func:`load_suite`)."""
    path = reader.folder
    info, info_report = _load_info(reader)
    system = reader.read_text(SYSTEM_FILE, may_be_empty=True) if (path / SYSTEM_FILE).exists() else ""
    context = with_sources(_load_tool_sets(reader, [s.tool_set for s in sourced]), sourced)
    context = apply_writes(context, info, info_report)
    cases = _load_cases(reader, context)
    store_file = _load_optional(reader, STORE_FILE)  # the fake tools' data: part of what is measured
    if store_file:
        check_store(store_file[1], _whole(reader, STORE_FILE, store_file[0]))
    claims_file = _load_optional(reader, CLAIMS_FILE)
    claims = (
        check_claims(claims_file[1], _whole(reader, CLAIMS_FILE, claims_file[0]))
        if claims_file
        else ClaimRules()
    )
    fakes_file = _load_optional(reader, FAKES_FILE)
    fakes = (
        check_fakes(fakes_file[1], context, _whole(reader, FAKES_FILE, fakes_file[0])) if fakes_file else {}
    )
    hash_sources(reader.texts, sourced)
    reader.problems.raise_if_any()
    assert info is not None and system is not None
    return Suite(
        path=path,
        info=info,
        system=system.rstrip("\n") if system.strip() else "",
        tool_sets={name: list(tools) for name, tools in context.tool_sets.items()},
        cases=cases,
        dataset_hash=reader.dataset_hash(),
        claims=claims,
        fakes=fakes,
        tool_imports=[*reader.imports, *(s.record for s in sourced)],
    )


__all__ = ["BUILTIN_DIR", "Suite", "builtin_suites", "load_suite", "resolve_suite"]
