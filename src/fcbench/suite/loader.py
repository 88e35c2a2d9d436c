"""Load a suite folder (or a built-in suite by name), checking everything, with file:line errors.

A suite is a folder, or one YAML or JSON file holding the same parts (:mod:`fcbench.suite.onefile`)::

    suite.json                 {"name", "dataset_version", "description", "minimums"}
    system.txt                 optional: the system prompt (absent or empty: no system prompt is sent)
    tools.<set>.json           {"tools": [...]} one file per tool set: tools.core.json is set "core",
                               tools.compatibility.json is set "compatibility", and so on; the list
                               may be in any format of :mod:`fcbench.suite.imports`
    cases.jsonl                one case per line; blank lines are allowed
    recovery.jsonl             optional: multi-turn recovery scenarios (cases with ``recovery`` set)
    store.json                 optional: the fake tools' data set for this suite's recovery scenarios
    fakes.json                 optional: scripted fake tools by tool name (:mod:`fcbench.suite.fakes`)

Every problem in every file is collected and raised together as one
:class:`~fcbench.suite.reading.SuiteError` (a :class:`~fcbench.errors.CaseError`) whose message
lists them one per line as ``file:line: field: what is wrong``. Text rules (UTF-8, BOM, CRLF)
are described in :mod:`fcbench.suite.reading`.

The dataset hash is a SHA-256 over the files the loader reads, in name order, each as its name,
a NUL byte, its decoded text (BOM removed, CRLF read as LF) encoded as UTF-8, and a NUL byte: it
changes with any content change and not with line-ending conversion. Tool sets taken from MCP
servers (``tool_sources``) add their ``tools/list`` result under the name ``mcp:<set>``.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fcbench.contract import Tool
from fcbench.errors import CaseError
from fcbench.suite.checks import ToolContext, case_findings
from fcbench.suite.fakes import FakeScripts, ToolScript
from fcbench.suite.imports import ToolImport, read_tool_list
from fcbench.suite.mcp_tools import fetch_sources, hash_sources, with_sources
from fcbench.suite.models import Case, ClaimRules, SuiteInfo
from fcbench.suite.reading import (
    ProblemList,
    decode_lines,
    decode_text,
    json_error_message,
    json_key_lines,
    line_at,
    locate,
    strict_json_loads,
)
from fcbench.suite.tools import Finding, pydantic_findings

SUITE_FILE = "suite.json"
SYSTEM_FILE = "system.txt"
CASES_FILE = "cases.jsonl"
RECOVERY_FILE = "recovery.jsonl"
STORE_FILE = "store.json"
CLAIMS_FILE = "claims.json"
FAKES_FILE = "fakes.json"
CORE_TOOLS_FILE = "tools.core.json"
TOOL_SET_FILE = re.compile(r"^tools\.([a-z0-9][a-z0-9_-]*)\.json$")
"""``tools.<set>.json``: the file of tool set ``<set>``."""

BUILTIN_DIR = Path(__file__).resolve().parent / "builtin"
"""Folder holding the built-in suites, one subfolder each."""
ONE_FILE_SUFFIXES = frozenset({".yaml", ".yml", ".json"})
"""Suffixes of a one-file suite."""
ONE_FILE_NAMES = ("suite.yaml", "suite.yml")
"""A folder without ``suite.json`` holding one of these (``fcbench init``'s layout) means that file."""

Report = Callable[[Sequence[Finding]], None]
"""Where a check sends its findings (paths inside the value checked); the caller adds file and line."""


@dataclass(frozen=True)
class Suite:
    """A loaded, fully checked suite."""

    path: Path
    """The suite folder, or the file of a one-file suite."""
    info: SuiteInfo
    """Name, dataset version and description from ``suite.json``."""
    system: str
    """The system prompt (line endings normalised, trailing newlines removed); empty: none is sent."""
    tool_sets: dict[str, list[Tool]]
    """Tool sets by name (``core`` from ``tools.core.json`` and so on)."""
    cases: list[Case]
    """Cases in file order."""
    dataset_hash: str
    """SHA-256 (hex) over the suite's files, stable across line-ending conversion."""
    claims: ClaimRules = field(default_factory=ClaimRules)
    """What counts as claiming a result in a recovery answer (``claims.json``; none when absent)."""
    fakes: dict[str, ToolScript] = field(default_factory=dict)
    """Scripted fake tools by tool name (``fakes.json``; none when absent)."""
    tool_imports: list[ToolImport] = field(default_factory=list)
    """Tool sets that were converted from another format or taken from an MCP server."""

    @property
    def name(self) -> str:
        """The suite's name from ``suite.json``."""
        return self.info.name

    @property
    def dataset_version(self) -> str:
        """The suite's dataset version from ``suite.json``."""
        return self.info.dataset_version

    def tools_for(self, case: Case) -> list[Tool]:
        """The tools offered to the model for ``case`` (its named tool set or its inline list)."""
        if isinstance(case.tools, str):
            tools = self.tool_sets.get(case.tools)
            if tools is None:
                raise CaseError(f"case {case.id!r}: unknown tool set {case.tools!r}", path=str(self.path))
            return list(tools)
        return list(case.tools)

    def case(self, case_id: str) -> Case:
        """The case with id ``case_id``."""
        for case in self.cases:
            if case.id == case_id:
                return case
        raise CaseError(f"no case {case_id!r} in suite {self.info.name!r}", path=str(self.path))


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


class _Reader:
    """State of one suite load: the folder, the problems found and the texts read for the hash."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.problems = ProblemList()
        self.texts: dict[str, str] = {}
        self.imports: list[ToolImport] = []

    def display(self, name: str) -> str:
        return str(self.folder / name)

    def read(self, name: str) -> bytes | None:
        path = self.folder / name
        if not path.is_file():
            self.problems.add(self.display(name), None, "file is missing")
            return None
        try:
            return path.read_bytes()
        except OSError as exc:
            self.problems.add(self.display(name), None, f"cannot be read: {exc.strerror or exc}")
            return None

    def read_text(self, name: str, *, may_be_empty: bool = False) -> str | None:
        data = self.read(name)
        if data is None:
            return None
        text = decode_text(data, self.display(name), self.problems)
        if text is None:
            return None
        if not text.strip() and not may_be_empty:
            self.problems.add(self.display(name), 1, "file is empty")
            return None
        self.texts[name] = text
        return text

    def read_json(self, name: str) -> tuple[str, Any] | None:
        text = self.read_text(name)
        if text is None:
            return None
        try:
            return text, strict_json_loads(text)
        except ValueError as exc:
            line = getattr(exc, "lineno", None)
            self.problems.add(self.display(name), line, json_error_message(exc))
            return None

    def add_findings(
        self,
        name: str,
        text: str,
        span: tuple[int, int],
        findings: Sequence[Finding],
        prefix: tuple[str | int, ...] = (),
    ) -> None:
        for finding in findings:
            line = locate(text, span[0], span[1], finding.keys)
            self.problems.add(self.display(name), line, str(finding.under(*prefix)))

    def reporter(self, name: str, text: str) -> Report:
        """A :data:`Report` placing findings at their line in the JSON file ``name`` holding ``text``."""
        lines = json_key_lines(text)

        def report(findings: Sequence[Finding]) -> None:
            for finding in findings:
                self.problems.add(self.display(name), line_at(lines, finding.keys), str(finding))

        return report

    def dataset_hash(self) -> str:
        digest = hashlib.sha256()
        for name in sorted(self.texts):
            digest.update(name.encode("utf-8") + b"\0" + self.texts[name].encode("utf-8") + b"\0")
        return digest.hexdigest()


def check_info(data: Any, report: Report) -> SuiteInfo | None:
    """The suite's identity (``suite.json``, or the top level of a one-file suite)."""
    try:
        info = SuiteInfo.model_validate(data)
    except ValidationError as exc:
        report(pydantic_findings(exc, data))
        return None
    empty = [
        Finding((key,), "must not be empty")
        for key in ("name", "dataset_version")
        if not getattr(info, key).strip()
    ]
    report(empty)
    return info


def check_claims(data: Any, report: Report) -> ClaimRules:
    """What counts as claiming a result (``claims.json`` or ``claims:``); none when invalid."""
    try:
        return ClaimRules.model_validate(data)
    except ValidationError as exc:
        report(pydantic_findings(exc, data))
        return ClaimRules()


def check_fakes(data: Any, context: ToolContext, report: Report) -> dict[str, ToolScript]:
    """Scripted fake tools (``fakes.json`` or ``fakes:``), each naming a tool of some tool set."""
    try:
        scripts = FakeScripts.model_validate(data).root
    except ValidationError as exc:
        report(pydantic_findings(exc, data))
        return {}
    known = {tool.name for tools in context.tool_sets.values() for tool in tools}
    unknown = [
        Finding((name,), "no tool of this name in any tool set") for name in scripts if name not in known
    ]
    if unknown and not context.broken_sets:
        report(unknown)
    return scripts


def check_case(data: Any, context: ToolContext, report: Report) -> Case | None:
    """One case object, checked against the tools it is offered."""
    if not isinstance(data, dict):
        report([Finding((), f"a case must be a JSON object, not {type(data).__name__}")])
        return None
    try:
        case = Case.model_validate(data)
    except ValidationError as exc:
        report(pydantic_findings(exc, data))
        return None
    report(case_findings(case, context))
    return case


def check_case_ids(parsed: Sequence[tuple[Report, Callable[[], str], Case]]) -> None:
    """Duplicate ids and dangling ``paraphrase_of`` among cases given as (report, where shown, case);
    where a case is shown is asked for only when a duplicate names it."""
    first_seen: dict[str, Callable[[], str]] = {}
    for report, where, case in parsed:
        if case.id in first_seen:
            report([Finding(("id",), f"duplicate id {case.id!r} (first used on {first_seen[case.id]()})")])
        else:
            first_seen[case.id] = where
    for report, _, case in parsed:
        target = case.paraphrase_of
        if target is not None and (target == case.id or target not in first_seen):
            reason = "is the case itself" if target == case.id else "is not the id of any case in this suite"
            report([Finding(("paraphrase_of",), f"{target!r} {reason}")])


def _whole(reader: _Reader, name: str, text: str) -> Report:
    return lambda findings: reader.add_findings(name, text, (0, len(text)), findings)


def _load_info(reader: _Reader) -> SuiteInfo | None:
    loaded = reader.read_json(SUITE_FILE)
    if loaded is None:
        return None
    text, data = loaded
    if not isinstance(data, dict):
        reader.problems.add(reader.display(SUITE_FILE), 1, "must be a JSON object")
        return None
    return check_info(data, _whole(reader, SUITE_FILE, text))


def _load_optional(reader: _Reader, name: str) -> tuple[str, Any] | None:
    return reader.read_json(name) if (reader.folder / name).is_file() else None


def _load_tool_set(reader: _Reader, name: str, set_name: str) -> list[Tool] | None:
    loaded = reader.read_json(name)
    if loaded is None:
        return None
    text, data = loaded
    tools, findings, record = read_tool_list(data, original=text, source=name, tool_set=set_name)
    reader.reporter(name, text)(findings)
    if record is not None:
        reader.imports.append(record)
    return tools


def _load_tool_sets(reader: _Reader, given: Sequence[str]) -> ToolContext:
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


def _line_reporter(reader: _Reader, file_name: str, number: int) -> Report:
    where = reader.display(file_name)

    def report(findings: Sequence[Finding]) -> None:
        for finding in findings:
            reader.problems.add(where, number, str(finding))

    return report


def _parse_case_line(
    reader: _Reader, file_name: str, number: int, line: str, context: ToolContext
) -> Case | None:
    try:
        data = strict_json_loads(line)
    except ValueError as exc:
        reader.problems.add(reader.display(file_name), number, json_error_message(exc))
        return None
    return check_case(data, context, _line_reporter(reader, file_name, number))


def _load_case_file(reader: _Reader, file_name: str, context: ToolContext) -> list[tuple[str, int, Case]]:
    data = reader.read(file_name)
    if data is None:
        return []
    where = reader.display(file_name)
    lines = decode_lines(data, where, reader.problems)
    parsed: list[tuple[str, int, Case]] = []
    for number, line in enumerate(lines, start=1):
        if line is None or not line.strip():
            continue
        case = _parse_case_line(reader, file_name, number, line, context)
        if case is not None:
            parsed.append((file_name, number, case))
    if all(line is not None for line in lines):
        reader.texts[file_name] = "\n".join(line for line in lines if line is not None)
    if all(line is not None and not line.strip() for line in lines):
        reader.problems.add(where, 1, "file is empty: a suite needs at least one case")
        return []
    return parsed


def _load_cases(reader: _Reader, context: ToolContext) -> list[Case]:
    parsed = _load_case_file(reader, CASES_FILE, context)
    if (reader.folder / RECOVERY_FILE).is_file():
        parsed += _load_case_file(reader, RECOVERY_FILE, context)
    check_case_ids(
        [
            (
                _line_reporter(reader, name, number),
                partial(str, f"line {number}" if name == CASES_FILE else f"{name} line {number}"),
                case,
            )
            for name, number, case in parsed
        ]
    )
    return [case for _, _, case in parsed]


def load_suite(name_or_path: str | Path, tool_sources: Sequence[str] = ()) -> Suite:
    """Load and check a suite by built-in name (``core``), folder path or one-file suite path.

    ``tool_sources`` are MCP server commands (``[SET=]COMMAND ARGS``, set ``core`` by default) whose
    ``tools/list`` result becomes that tool set. Raises :class:`~fcbench.errors.CaseError` (a
    :class:`~fcbench.suite.reading.SuiteError` listing every problem, each as
    ``file:line: field: message``) when anything is wrong.
    """
    path = resolve_suite(name_or_path)
    sourced = fetch_sources(tool_sources)  # before reading: cases are checked against these tools
    if path.is_file():
        from fcbench.suite.onefile import load_one_file  # the one-file form builds on this module

        return load_one_file(path, sourced)
    reader = _Reader(path)
    info = _load_info(reader)
    system = reader.read_text(SYSTEM_FILE, may_be_empty=True) if (path / SYSTEM_FILE).exists() else ""
    context = with_sources(_load_tool_sets(reader, [s.tool_set for s in sourced]), sourced)
    cases = _load_cases(reader, context)
    if (path / STORE_FILE).is_file():
        reader.read_json(STORE_FILE)  # the fake tools' data is part of what a recovery run measures
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


__all__ = [
    "BUILTIN_DIR",
    "Report",
    "Suite",
    "builtin_suites",
    "check_case",
    "check_case_ids",
    "check_claims",
    "check_fakes",
    "check_info",
    "load_suite",
    "resolve_suite",
]
