"""Import a BFCL category file as an fcbench suite folder.

:func:`import_bfcl` reads a BFCL question file (JSON Lines despite the ``.json`` suffix) and,
for categories that have one, its possible-answer file, and writes::

    suite.json          name "bfcl-<category>", dataset_version "bfcl-<v>+<sha256[:8]>"
    tools.core.json     one placeholder tool (the loader needs a non-empty core set; every case
                        offers its own inline tools, so it is never sent)
    cases.jsonl         one case per imported entry
    import_report.json  counts: entries, imported, skipped per reason (with each skipped id),
                        warnings per case, renamed tools

The dataset version's hash is the SHA-256 over the question file's bytes, a NUL byte and the
answer file's bytes (when one is used), so it changes whenever either input changes.

Category kinds are a registry (:data:`CATEGORY_KINDS`): ``irrelevance`` categories expect no call
(``text``), ``parallel`` categories several calls in any order (``tools``), the others exactly
one call (``tool``). No ``system.txt`` is written: BFCL sends no system prompt, so neither does a
run of an imported suite. Categories that cannot be reproduced are refused with the reason
(:data:`UNSUPPORTED_CATEGORIES`). Entries that cannot be converted are skipped and reported,
never silently dropped; a malformed line is an error.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from fcbench.bfcl.entries import SKIP_REASONS, Kind, SkipEntry, convert_entry
from fcbench.errors import ConfigError, InputError
from fcbench.suite.loader import CASES_FILE, CORE_TOOLS_FILE, SUITE_FILE, SYSTEM_FILE, load_suite
from fcbench.suite.writing import prepare_suite_folder, write_json

REPORT_FILE = "import_report.json"


PLACEHOLDER_TOOL: Mapping[str, Any] = {
    "name": "bfcl_unused",
    "description": "Placeholder: every case of this imported suite offers its own inline tools.",
    "parameters": {"type": "object", "properties": {}},
}

CATEGORY_KINDS: Mapping[str, Kind] = {
    "simple": "tool",
    "simple_python": "tool",
    "multiple": "tool",
    "live_simple": "tool",
    "live_multiple": "tool",
    "parallel": "tools",
    "parallel_multiple": "tools",
    "live_parallel": "tools",
    "live_parallel_multiple": "tools",
    "irrelevance": "text",
    "live_irrelevance": "text",
}
"""Supported BFCL categories -> what their entries expect."""

UNSUPPORTED_CATEGORIES: Mapping[str, str] = {
    "simple_java": "Java and JavaScript categories use language-specific types and string-encoded values",
    "java": "Java and JavaScript categories use language-specific types and string-encoded values",
    "javascript": "Java and JavaScript categories use language-specific types and string-encoded values",
    "live_relevance": "relevance entries pass on any call at all, which no fcbench expectation expresses",
    "multi_turn": "multi-turn entries need BFCL's stateful tool backend between turns",
    "memory": "memory entries need BFCL's stateful memory backend",
    "web_search": "web-search entries need BFCL's live search backend",
    "format_sensitivity": "format-sensitivity entries test prompt formats, not function-calling APIs",
}
"""Category name prefix -> why that category cannot be imported."""

_FILE_NAME = re.compile(r"^BFCL_(v\d+)_(.+)\.jsonl?$")


@dataclass(frozen=True)
class Skipped:
    """One entry that was not imported."""

    id: str | None
    line: int
    reason: str
    """A code of :data:`~fcbench.bfcl.entries.SKIP_REASONS`."""
    detail: str


@dataclass
class ImportReport:
    """What an import did, as written to ``import_report.json``."""

    questions: str
    answers: str | None
    category: str
    suite: str
    dataset_version: str
    entries: int = 0
    """Non-blank lines of the question file."""
    imported: int = 0
    skipped: int = 0
    skipped_by_reason: dict[str, int] = field(default_factory=dict)
    skipped_entries: list[Skipped] = field(default_factory=list)
    by_kind: dict[str, int] = field(default_factory=dict)
    renamed_tools: int = 0
    """Functions sent under a new (wire-legal) name, over all cases."""
    warnings: dict[str, list[str]] = field(default_factory=dict)
    """Case id -> what was dropped or changed (accepted values the schema rejects, schema keywords)."""
    unmatched_answers: list[str] = field(default_factory=list)
    """Ids in the answer file with no entry in the question file."""

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON-ready dict (with the meaning of each skip reason)."""
        data = asdict(self)
        data["reasons"] = {code: SKIP_REASONS[code] for code in self.skipped_by_reason}
        return data


def category_from_file(path: Path) -> tuple[str, str | None]:
    """``(category, version)`` from a ``BFCL_v4_<category>.json`` file name (version None if absent)."""
    match = _FILE_NAME.match(path.name)
    if match is None:
        raise ConfigError(
            f"cannot tell the category from the file name {path.name!r} "
            "(expected BFCL_v<N>_<category>.json); pass --category",
            key="--category",
        )
    return match.group(2), match.group(1)


def category_kind(category: str) -> Kind:
    """The expectation kind of a supported category; :class:`ConfigError` with the reason otherwise."""
    kind = CATEGORY_KINDS.get(category)
    if kind is not None:
        return kind
    for prefix, reason in UNSUPPORTED_CATEGORIES.items():
        if category.startswith(prefix):
            raise ConfigError(f"category {category!r} is not supported: {reason}", key="--category")
    known = ", ".join(sorted(CATEGORY_KINDS))
    raise ConfigError(f"unknown BFCL category {category!r} (supported: {known})", key="--category")


def _read_jsonl(path: Path) -> list[tuple[int, Any]]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise InputError(f"cannot be read: {exc.strerror or exc}", path=str(path)) from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"is not UTF-8: {exc.reason}", path=str(path)) from exc
    rows: list[tuple[int, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append((number, json.loads(line)))
        except ValueError as exc:
            raise InputError(f"not a JSON line: {exc}", path=str(path), line=number) from exc
    return rows


def _read_answers(path: Path) -> dict[str, Any]:
    answers: dict[str, Any] = {}
    for number, row in _read_jsonl(path):
        if not isinstance(row, Mapping) or "id" not in row or "ground_truth" not in row:
            raise InputError(
                'each line must be {"id": ..., "ground_truth": [...]}', path=str(path), line=number
            )
        answers.setdefault(str(row["id"]), row["ground_truth"])
    return answers


def default_answers(questions: Path) -> Path | None:
    """BFCL's own layout: ``possible_answer/<same file name>`` beside the question file, if present."""
    candidate = questions.parent / "possible_answer" / questions.name
    return candidate if candidate.is_file() else None


def _dataset_version(version: str | None, questions: Path, answers: Path | None) -> str:
    digest = hashlib.sha256(questions.read_bytes())
    if answers is not None:
        digest.update(b"\0" + answers.read_bytes())
    prefix = f"bfcl-{version}" if version else "bfcl"
    return f"{prefix}+{digest.hexdigest()[:8]}"


def import_bfcl(
    questions: Path,
    out: Path,
    *,
    answers: Path | None = None,
    category: str | None = None,
    force: bool = False,
) -> ImportReport:
    """Convert one BFCL category file into a suite folder at ``out``; return the report.

    ``answers`` defaults to BFCL's ``possible_answer/`` file beside ``questions`` when it exists;
    categories that expect calls need one. ``category`` defaults to the one in the file name.
    Raises :class:`~fcbench.errors.InputError` / :class:`~fcbench.errors.ConfigError` for bad
    input, and when no entry at all could be imported.
    """
    if not questions.is_file():
        raise InputError("no such file", path=str(questions))
    named = _FILE_NAME.match(questions.name)
    version = named.group(1) if named else None
    inferred = category if category is not None else category_from_file(questions)[0]
    kind = category_kind(inferred)
    if kind == "text":
        answers = None
    elif answers is None:
        answers = default_answers(questions)
        if answers is None:
            raise ConfigError(f"category {inferred!r} needs its possible-answer file", key="--answers")
    rows = _read_jsonl(questions)
    truth = _read_answers(answers) if answers is not None else {}
    report = ImportReport(
        questions=str(questions),
        answers=None if answers is None else str(answers),
        category=inferred,
        suite=f"bfcl-{inferred}",
        dataset_version=_dataset_version(version, questions, answers),
        entries=len(rows),
    )
    cases: list[dict[str, Any]] = []
    seen: set[str] = set()
    for number, row in rows:
        entry_id = str(row["id"]) if isinstance(row, Mapping) and "id" in row else None
        try:
            if entry_id is None:
                raise SkipEntry("not_an_object", "the line is not a JSON object with an id")
            if entry_id in seen:
                raise SkipEntry("duplicate_id", f"id {entry_id!r} appears more than once")
            seen.add(entry_id)
            if kind != "text" and entry_id not in truth:
                raise SkipEntry("no_answer", f"no possible answer for {entry_id!r}")
            assert isinstance(row, Mapping)
            converted = convert_entry(row, inferred, kind, truth.get(entry_id))
        except SkipEntry as skip:
            report.skipped_entries.append(Skipped(entry_id, number, skip.reason, skip.detail))
            continue
        cases.append(converted.case)
        report.renamed_tools += converted.renamed
        if converted.warnings:
            report.warnings[converted.case["id"]] = converted.warnings
    report.imported = len(cases)
    report.skipped = len(report.skipped_entries)
    report.skipped_by_reason = dict(sorted(Counter(s.reason for s in report.skipped_entries).items()))
    report.by_kind = dict(sorted(Counter(c["expected"]["kind"] for c in cases).items()))
    report.unmatched_answers = sorted(set(truth) - seen)
    if not cases:
        reasons = ", ".join(f"{code} {count}" for code, count in report.skipped_by_reason.items())
        raise InputError(
            f"no entry could be imported ({reasons or 'the file has no entries'})", path=str(questions)
        )
    _write_suite(out, report, cases, force)
    return report


def _write_suite(out: Path, report: ImportReport, cases: list[dict[str, Any]], force: bool) -> None:
    prepare_suite_folder(out, force)
    source = Path(report.questions).name
    description = (
        f"Berkeley Function Calling Leaderboard, category {report.category}, imported from {source} "
        f"({report.imported} of {report.entries} entries; BFCL data is Apache-2.0)."
    )
    write_json(
        out / SUITE_FILE,
        {"name": report.suite, "dataset_version": report.dataset_version, "description": description},
    )
    (out / SYSTEM_FILE).unlink(missing_ok=True)  # an earlier import's system prompt: BFCL sends none
    write_json(out / CORE_TOOLS_FILE, {"tools": [dict(PLACEHOLDER_TOOL)]})
    lines = [json.dumps(case, ensure_ascii=False, separators=(",", ":")) for case in cases]
    (out / CASES_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    write_json(out / REPORT_FILE, report.to_json())
    load_suite(out)


__all__ = [
    "CATEGORY_KINDS",
    "PLACEHOLDER_TOOL",
    "REPORT_FILE",
    "UNSUPPORTED_CATEGORIES",
    "ImportReport",
    "Skipped",
    "category_from_file",
    "category_kind",
    "default_answers",
    "import_bfcl",
]
