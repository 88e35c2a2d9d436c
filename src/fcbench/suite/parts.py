"""One load of a suite, in either form: the loaded :class:`Suite` both forms give, the reader that
reads its files, collects its problems and hashes what it read, and the checks of the parts both
forms share (identity, claim rules, scripted fakes, each case, case ids).

The folder form is loaded by :mod:`fcbench.suite.loader`, the one-file form by
:mod:`fcbench.suite.onefile`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fcbench.contract import Tool
from fcbench.errors import CaseError
from fcbench.files import kind_of
from fcbench.suite.caselist import heads_of
from fcbench.suite.checks import ToolContext, case_findings
from fcbench.suite.fakes import FakeScripts, ToolScript
from fcbench.suite.imports import ToolImport
from fcbench.suite.models import Case, ClaimRules, SuiteInfo
from fcbench.suite.reading import (
    ProblemList,
    decode_text,
    json_error_message,
    json_key_lines,
    line_at,
    locate,
    strict_json_loads,
)
from fcbench.suite.tools import Finding, pydantic_findings

Report = Callable[[Sequence[Finding]], None]
"""Where a check sends its findings (paths inside the value checked); the caller adds file and line."""

TOOL_SET_FILE = re.compile(r"^tools\.([a-z0-9][a-z0-9_-]*)\.json$")
"""``tools.<set>.json``: the file of tool set ``<set>``."""


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
    cases: Sequence[Case]
    """Cases in file order (a :class:`~fcbench.suite.caselist.CaseList` from the loaders: a large
    suite read from the cache builds each case when it is first asked for)."""
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
        for index, known in enumerate(heads_of(self.cases)):
            if known.id == case_id:
                return self.cases[index]
        raise CaseError(f"no case {case_id!r} in suite {self.info.name!r}", path=str(self.path))


class SuiteReader:
    """State of one suite load: the folder, the problems found and the texts read for the hash."""

    def __init__(self, folder: Path, given: Mapping[str, bytes] | None = None) -> None:
        self.folder = folder
        """The folder the suite's files are read from (a one-file suite's own folder)."""
        self.given: Mapping[str, bytes] = given or {}
        """Bytes of files already read (each known to be a regular file), by name."""
        self.problems = ProblemList()
        """Every problem found so far, raised together at the end."""
        self.texts: dict[str, str] = {}
        """File name -> decoded text of every file read (what the dataset hash covers)."""
        self.imports: list[ToolImport] = []
        """Tool lists read in another format than fcbench's (how each was converted)."""

    def display(self, name: str) -> str:
        """How file ``name`` is named in a problem."""
        return str(self.folder / name)

    def read(self, name: str) -> bytes | None:
        """The bytes of file ``name``; None (and a problem) when it is missing or unreadable."""
        if name in self.given:
            return self.given[name]
        path = self.folder / name
        if not path.is_file():  # a FIFO or a device is never opened: reading one could hang
            kind = kind_of(path.stat().st_mode) if path.exists() else None
            what = f"{kind}, not a regular file" if kind else "file is missing"
            self.problems.add(self.display(name), None, what)
            return None
        try:
            return path.read_bytes()
        except OSError as exc:
            self.problems.add(self.display(name), None, f"cannot be read: {exc.strerror or exc}")
            return None

    def read_text(self, name: str, *, may_be_empty: bool = False) -> str | None:
        """The decoded text of file ``name``, kept for the hash; None (and a problem) when unusable."""
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
        """The text and JSON value of file ``name``; None (and a problem at its line) when invalid."""
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
        """Add ``findings`` about the JSON value at ``span`` of file ``name``, each at its line."""
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
        """The SHA-256 over the texts read (see :mod:`fcbench.suite.loader`)."""
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


def apply_writes(context: ToolContext, info: SuiteInfo | None, report: Report) -> ToolContext:
    """``context`` with every tool named in the suite's ``writes`` list made a ``write`` tool; a name
    no tool set holds is a finding at ``writes[i]`` (a misspelt name never leaves a write a read)."""
    if info is None or not info.writes:
        return context
    writes = set(info.writes)
    known = {tool.name for tools in context.tool_sets.values() for tool in tools}
    report(
        [
            Finding(("writes", index), f"no tool named {name!r} in any tool set")
            for index, name in enumerate(info.writes)
            if name not in known and not context.broken_sets
        ]
    )
    sets = {
        set_name: [
            tool.model_copy(update={"side_effect": "write"}) if tool.name in writes else tool
            for tool in tools
        ]
        for set_name, tools in context.tool_sets.items()
    }
    return ToolContext(sets, context.broken_sets)


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


__all__ = [
    "Report",
    "SuiteReader",
    "check_case",
    "check_case_ids",
    "check_claims",
    "check_fakes",
    "check_info",
]
