"""Load a suite folder (or a built-in suite by name), checking everything, with file:line errors.

A suite is a folder::

    suite.json                 {"name", "dataset_version", "description"}
    system.txt                 the system prompt (must not be empty)
    tools.<set>.json           {"tools": [...]} one file per tool set: tools.core.json is set "core",
                               tools.compatibility.json is set "compatibility", and so on
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
changes with any content change and not with line-ending conversion.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fcbench.contract import Tool
from fcbench.errors import CaseError
from fcbench.suite.checks import ToolContext, case_findings
from fcbench.suite.fakes import FakeScripts, ToolScript
from fcbench.suite.models import Case, ClaimRules, SuiteInfo
from fcbench.suite.reading import (
    ProblemList,
    array_spans,
    decode_lines,
    decode_text,
    json_error_message,
    locate,
    strict_json_loads,
)
from fcbench.suite.tools import Finding, pydantic_findings, tool_findings

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


@dataclass(frozen=True)
class Suite:
    """A loaded, fully checked suite."""

    path: Path
    """The suite folder."""
    info: SuiteInfo
    """Name, dataset version and description from ``suite.json``."""
    system: str
    """The system prompt (``system.txt`` with line endings normalised and trailing newlines removed)."""
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
    """The folder of a suite given by built-in name or by path.

    A :class:`~pathlib.Path`, a string containing a path separator, or a string naming something
    that exists is a path; any other string is a built-in suite name. A path to a file inside a
    suite folder (for example its ``cases.jsonl``) means that folder.
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
        raise CaseError(
            f"is a file; a suite is a folder holding {SUITE_FILE}, {SYSTEM_FILE}, "
            f"{CORE_TOOLS_FILE} and {CASES_FILE}",
            path=str(path),
        )
    return path


class _Reader:
    """State of one suite load: the folder, the problems found and the texts read for the hash."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.problems = ProblemList()
        self.texts: dict[str, str] = {}

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

    def read_text(self, name: str) -> str | None:
        data = self.read(name)
        if data is None:
            return None
        text = decode_text(data, self.display(name), self.problems)
        if text is None:
            return None
        if not text.strip():
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

    def dataset_hash(self) -> str:
        digest = hashlib.sha256()
        for name in sorted(self.texts):
            digest.update(name.encode("utf-8") + b"\0" + self.texts[name].encode("utf-8") + b"\0")
        return digest.hexdigest()


def _load_info(reader: _Reader) -> SuiteInfo | None:
    loaded = reader.read_json(SUITE_FILE)
    if loaded is None:
        return None
    text, data = loaded
    if not isinstance(data, dict):
        reader.problems.add(reader.display(SUITE_FILE), 1, "must be a JSON object")
        return None
    try:
        info = SuiteInfo.model_validate(data)
    except ValidationError as exc:
        reader.add_findings(SUITE_FILE, text, (0, len(text)), pydantic_findings(exc, data))
        return None
    for key in ("name", "dataset_version"):
        if not getattr(info, key).strip():
            reader.add_findings(SUITE_FILE, text, (0, len(text)), [Finding((key,), "must not be empty")])
    return info


def _load_claims(reader: _Reader) -> ClaimRules:
    if not (reader.folder / CLAIMS_FILE).is_file():
        return ClaimRules()
    loaded = reader.read_json(CLAIMS_FILE)
    if loaded is None:
        return ClaimRules()
    text, data = loaded
    try:
        return ClaimRules.model_validate(data)
    except ValidationError as exc:
        reader.add_findings(CLAIMS_FILE, text, (0, len(text)), pydantic_findings(exc, data))
        return ClaimRules()


def _load_fakes(reader: _Reader, context: ToolContext) -> dict[str, ToolScript]:
    if not (reader.folder / FAKES_FILE).is_file():
        return {}
    loaded = reader.read_json(FAKES_FILE)
    if loaded is None:
        return {}
    text, data = loaded
    whole = (0, len(text))
    try:
        scripts = FakeScripts.model_validate(data).root
    except ValidationError as exc:
        reader.add_findings(FAKES_FILE, text, whole, pydantic_findings(exc, data))
        return {}
    known = {tool.name for tools in context.tool_sets.values() for tool in tools}
    unknown = [
        Finding((name,), "no tool of this name in any tool set") for name in scripts if name not in known
    ]
    if unknown and not context.broken_sets:
        reader.add_findings(FAKES_FILE, text, whole, unknown)
    return scripts


def _load_tool_set(reader: _Reader, name: str) -> list[Tool] | None:
    loaded = reader.read_json(name)
    if loaded is None:
        return None
    text, data = loaded
    whole = (0, len(text))
    if not isinstance(data, dict) or not isinstance(data.get("tools"), list):
        reader.add_findings(name, text, whole, [Finding(("tools",), 'must be {"tools": [ ... ]}')])
        return None
    extra = [Finding((key,), "unknown key") for key in data if key != "tools"]
    reader.add_findings(name, text, whole, extra)
    if not data["tools"]:
        reader.add_findings(name, text, whole, [Finding(("tools",), "the tool list is empty")])
        return None
    spans = array_spans(text, "tools")
    tools: list[Tool] = []
    failed = bool(extra)
    for index, raw in enumerate(data["tools"]):
        span = spans[index] if index < len(spans) else whole
        try:
            tools.append(Tool.model_validate(raw))
        except ValidationError as exc:
            failed = True
            reader.add_findings(name, text, span, pydantic_findings(exc, raw), prefix=("tools", index))
    if failed:
        return None
    findings = tool_findings(tools)
    for finding in findings:
        position = finding.keys[0]
        span = spans[position] if isinstance(position, int) and position < len(spans) else whole
        reader.add_findings(
            name, text, span, [Finding(finding.keys[1:], finding.message)], ("tools", position)
        )
    return None if findings else tools


def _load_tool_sets(reader: _Reader) -> ToolContext:
    sets: dict[str, list[Tool]] = {}
    broken: set[str] = set()
    names = sorted(p.name for p in reader.folder.iterdir() if TOOL_SET_FILE.match(p.name))
    if CORE_TOOLS_FILE not in names:
        reader.problems.add(reader.display(CORE_TOOLS_FILE), None, "file is missing")
        broken.add("core")
    for file_name in names:
        match = TOOL_SET_FILE.match(file_name)
        assert match is not None
        tools = _load_tool_set(reader, file_name)
        if tools is None:
            broken.add(match.group(1))
        else:
            sets[match.group(1)] = tools
    return ToolContext(tool_sets=sets, broken_sets=frozenset(broken))


def _parse_case_line(
    reader: _Reader, file_name: str, number: int, line: str, context: ToolContext
) -> Case | None:
    where = reader.display(file_name)
    try:
        data = strict_json_loads(line)
    except ValueError as exc:
        reader.problems.add(where, number, json_error_message(exc))
        return None
    if not isinstance(data, dict):
        reader.problems.add(where, number, f"a case must be a JSON object, not {type(data).__name__}")
        return None
    try:
        case = Case.model_validate(data)
    except ValidationError as exc:
        for finding in pydantic_findings(exc, data):
            reader.problems.add(where, number, str(finding))
        return None
    for finding in case_findings(case, context):
        reader.problems.add(where, number, str(finding))
    return case


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
    first_seen: dict[str, str] = {}
    for file_name, number, case in parsed:
        if case.id in first_seen:
            reader.problems.add(
                reader.display(file_name),
                number,
                f"id: duplicate id {case.id!r} (first used on {first_seen[case.id]})",
            )
        else:
            first_seen[case.id] = (
                f"line {number}" if file_name == CASES_FILE else f"{file_name} line {number}"
            )
    for file_name, number, case in parsed:
        target = case.paraphrase_of
        if target is not None and (target == case.id or target not in first_seen):
            reason = "is the case itself" if target == case.id else "is not the id of any case in this suite"
            reader.problems.add(reader.display(file_name), number, f"paraphrase_of: {target!r} {reason}")
    return [case for _, _, case in parsed]


def load_suite(name_or_path: str | Path) -> Suite:
    """Load and check a suite by built-in name (``core``) or folder path.

    Raises :class:`~fcbench.errors.CaseError` (a :class:`~fcbench.suite.reading.SuiteError`
    listing every problem, each as ``file:line: field: message``) when anything is wrong.
    """
    folder = resolve_suite(name_or_path)
    reader = _Reader(folder)
    info = _load_info(reader)
    system = reader.read_text(SYSTEM_FILE)
    context = _load_tool_sets(reader)
    cases = _load_cases(reader, context)
    if (folder / STORE_FILE).is_file():
        reader.read_json(STORE_FILE)  # the fake tools' data is part of what a recovery run measures
    claims = _load_claims(reader)
    fakes = _load_fakes(reader, context)
    reader.problems.raise_if_any()
    assert info is not None and system is not None
    return Suite(
        path=folder,
        info=info,
        system=system.rstrip("\n"),
        tool_sets={name: list(tools) for name, tools in context.tool_sets.items()},
        cases=cases,
        dataset_hash=reader.dataset_hash(),
        claims=claims,
        fakes=fakes,
    )


__all__ = ["BUILTIN_DIR", "Suite", "builtin_suites", "load_suite", "resolve_suite"]
