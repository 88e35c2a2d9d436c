"""Production logs -> a suite folder of pending cases (``fcbench import logs``).

Every logged exchange whose response is a model answer becomes a candidate case:

* ``prompt`` is the request's last message, which must be a user message; every earlier message
  is the ``history`` (canonical, tool calls and results included);
* ``expected`` is prefilled from the logged response: one call -> ``tool``, several -> ``tools``
  (order ``any``), both with the exact logged arguments; a text answer or a refusal -> ``text``;
* ``label`` is ``pending`` (a person confirms it with ``fcbench cases review``), ``category``
  ``normal``, tags ``from-logs`` plus any review tags.

Skipped, each counted by reason in the report: logged provider errors, requests offering no
tool, requests not ending in a user message, and cases the suite checks reject (a logged call to a
tool not offered, logged arguments the tool's own schema rejects: anomalies kept in the report).

``--sample N --seed S`` keeps N candidates drawn per stratum, the tool(s) called in the logged
response (names joined by ``+``) or ``(no call)``, in proportion to its size (largest remainders;
every stratum at least once when N allows), the same for the same seed, in log order.

Written: ``suite.json``; ``system.txt`` holding the most common system prompt (the cases whose
logged prompt differs are listed as warnings, with a ``note``; when no request had one, a neutral
line, also warned); ``tools.core.json`` with the most common tool set and ``tools.logs-2.json``,
``tools.logs-3.json``, ... with the others, named from the cases; ``cases.jsonl``; and
:data:`REPORT_FILE`. Secrets found anywhere in what is written (every kind of
:data:`fcbench.redact.SECRET_PATTERNS`, string values under secret names) are redacted, in the
report too (tag ``needs-review:secret``); e-mail addresses and phone numbers in a case are kept
and flagged (tag ``needs-review:pii``); both are listed in the report. A logged request never says
which tool writes: every imported tool is a read tool, and each whose name or description looks like
a write (:func:`fcbench.suite.lint.write_hint`) is named in a warning, and asked about again by
``fcbench cases review`` (list the ones that write under ``writes`` in ``suite.json``).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from fcbench.contract import RefusalOutcome, TextOutcome, Tool, ToolCallsOutcome, UserMessage, canonical_json
from fcbench.errors import InputError
from fcbench.logs.entries import LogEntry
from fcbench.logs.formats import read_log_files
from fcbench.logs.scan import Findings, scan_json
from fcbench.logs.traces import ReadOptions
from fcbench.redact import Redactor
from fcbench.suite.checks import ToolContext, case_findings
from fcbench.suite.lint import write_suspects
from fcbench.suite.loader import CASES_FILE, SUITE_FILE, SYSTEM_FILE, load_suite
from fcbench.suite.models import Case
from fcbench.suite.tools import tool_findings
from fcbench.suite.writing import prepare_suite_folder, write_json

REPORT_FILE = "import_report.json"
"""The import's report, beside the suite files."""

NO_CALL = "(no call)"
"""The stratum of logged responses that called no tool."""

FALLBACK_SYSTEM = "You are a helpful assistant."
"""``system.txt`` when no logged request had a system prompt (the loader needs one)."""

SKIP_REASONS: dict[str, str] = {
    "provider_error": "the logged response is a provider error, not a model answer",
    "no_tools": "the logged request offered no function tool (a trace that records none: pass --tools FILE)",
    "not_user_last": "the logged request does not end with a user message (a case's prompt is one)",
    "invalid_case": "the suite checks reject the case (see detail)",
}
"""Skip reason code -> meaning."""

T = TypeVar("T")


@dataclass(frozen=True)
class Skipped:
    """One logged exchange that did not become a case."""

    where: str
    """``file:line``."""
    reason: str
    """A code of :data:`SKIP_REASONS`."""
    detail: str = ""


@dataclass
class LogImportReport:
    """What an import did, as written to :data:`REPORT_FILE`."""

    files: list[str]
    dialect: str
    """The dialect of wire logs, or the trace format (``otel``, ``langfuse``)."""
    suite: str
    dataset_version: str
    lines: int = 0
    """Non-blank log lines read."""
    bad_lines: list[str] = field(default_factory=list)
    """``file:line: reason`` of each line skipped by ``--skip-bad``."""
    candidates: int = 0
    """Exchanges that could become a case."""
    imported: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    skipped_by_reason: dict[str, int] = field(default_factory=dict)
    sample: dict[str, Any] | None = None
    """``{"size", "seed", "strata": {stratum: {"available", "chosen"}}}`` when sampled."""
    by_kind: dict[str, int] = field(default_factory=dict)
    tool_sets: dict[str, int] = field(default_factory=dict)
    """Tool set name -> cases using it."""
    system_prompt: dict[str, Any] = field(default_factory=dict)
    """``{"cases_matching", "differs": [case ids]}``."""
    flagged: dict[str, str] = field(default_factory=dict)
    """Case id (or ``system.txt``/``tools.<set>.json``) -> what the scan found."""
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON-ready dict (with the meaning of each skip reason)."""
        data = asdict(self)
        data["reasons"] = {code: SKIP_REASONS[code] for code in self.skipped_by_reason}
        return data


@dataclass(frozen=True)
class CaseCandidate:
    """A logged exchange that can become a case."""

    entry: LogEntry
    """The logged exchange."""
    expected: dict[str, Any]
    """The case's ``expected``, prefilled from the logged answer."""
    stratum: str
    """The tools the answer called (``+``-joined), or ``NO_CALL``: what sampling stratifies by."""
    tags: tuple[str, ...]
    """Tags the case gets (e.g. ``needs-review:arguments``)."""


def stratified_pick(items: Sequence[T], key: Callable[[T], Hashable], size: int, seed: int) -> list[T]:
    """``size`` of ``items``, drawn per stratum (``key``) in proportion to its share (largest
    remainders, ties by stratum order; when ``size`` allows, every stratum gets at least one,
    taken from the largest), the same for the same seed, kept in input order."""
    if size >= len(items):
        return list(items)
    strata: dict[Hashable, list[int]] = {}
    for position, item in enumerate(items):
        strata.setdefault(key(item), []).append(position)
    order = sorted(strata, key=str)
    quotas = {k: size * len(strata[k]) / len(items) for k in order}
    counts = {k: int(quotas[k]) for k in order}
    for k in sorted(order, key=lambda k: counts[k] - quotas[k])[: size - sum(counts.values())]:
        counts[k] += 1
    if size >= len(order):  # every stratum is seen at least once, taken from the largest
        for k in [k for k in order if counts[k] == 0]:
            counts[max(order, key=lambda o: (counts[o], -order.index(o)))] -= 1
            counts[k] = 1
    rng = random.Random(seed)
    chosen = {p for k in order for p in rng.sample(strata[k], counts[k])}
    return [item for position, item in enumerate(items) if position in chosen]


def _expected(entry: LogEntry) -> tuple[dict[str, Any], str, list[str]] | Skipped:
    outcome = entry.turn.outcome
    if isinstance(outcome, ToolCallsOutcome):
        calls: list[dict[str, Any]] = [
            {"name": c.name, "arguments": c.arguments if isinstance(c.arguments, dict) else None}
            for c in outcome.calls
        ]
        tags = ["needs-review:arguments"] if any(c["arguments"] is None for c in calls) else []
        stratum = "+".join(sorted({c.name for c in outcome.calls}))
        if len(calls) == 1:
            return {"kind": "tool", **calls[0]}, stratum, tags
        return {"kind": "tools", "calls": calls, "order": "any"}, stratum, tags
    if isinstance(outcome, TextOutcome | RefusalOutcome):
        return {"kind": "text"}, NO_CALL, ["logged-refusal"] if isinstance(outcome, RefusalOutcome) else []
    message = Redactor(patterns=True).text(outcome.message)  # before the cut, which could halve a key
    return Skipped(entry.where, "provider_error", f"{outcome.code}: {message[:200]}")


def case_candidate(entry: LogEntry) -> CaseCandidate | Skipped:
    """The case a logged exchange would become (its expected outcome from the logged answer), or why
    it is skipped; ``import logs`` and ``coverage`` share it, so both count the same exchanges."""
    expected = _expected(entry)
    if isinstance(expected, Skipped):
        return expected
    if not entry.request.tools:
        return Skipped(entry.where, "no_tools")
    messages = entry.request.messages
    if not messages or not isinstance(messages[-1], UserMessage):
        last = messages[-1].role if messages else "nothing"
        return Skipped(entry.where, "not_user_last", f"the last message is {last}")
    body, stratum, tags = expected
    return CaseCandidate(entry, body, stratum, tuple(tags))


def _most_common(values: Sequence[str]) -> str:
    counts = Counter(values)
    return max(counts, key=lambda v: (counts[v], -values.index(v)))


def _tool_set_names(chosen: Sequence[CaseCandidate]) -> dict[str, str]:
    """Canonical tool list -> set name: the most common is ``core``, the others ``logs-2``, ..."""
    keys = [canonical_json([t.model_dump() for t in c.entry.request.tools]) for c in chosen]
    counts = Counter(keys)
    ranked = sorted(counts, key=lambda k: (-counts[k], keys.index(k)))
    return {key: "core" if i == 0 else f"logs-{i + 1}" for i, key in enumerate(ranked)}


def _case_dict(candidate: CaseCandidate, tool_set: str, note: list[str]) -> dict[str, Any]:
    entry = candidate.entry
    *history, last = entry.request.messages
    assert isinstance(last, UserMessage)
    return {
        "id": f"log-{entry.index + 1:04d}",
        "prompt": last.content,
        "history": [m.model_dump(mode="json") for m in history],
        "tools": tool_set,
        "expected": candidate.expected,
        "category": "normal",
        "tags": ["from-logs", *candidate.tags],
        "note": "; ".join([f"imported from {entry.where}", *note]),
        "label": "pending",
    }


def _flag(case: dict[str, Any], findings: Findings, redactor: Redactor) -> dict[str, Any]:
    flagged = redactor.json(case)
    flagged["tags"] = [*flagged["tags"], *findings.tags]
    if findings.describe():
        flagged["note"] = f"{flagged['note']}; needs review: {findings.describe()}"
    return flagged


def _dataset_version(paths: Sequence[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes() + b"\0")
    return f"logs+{digest.hexdigest()[:8]}"


def _select(
    entries: Sequence[LogEntry], report: LogImportReport, sample: int | None, seed: int
) -> list[CaseCandidate]:
    candidates: list[CaseCandidate] = []
    for entry in entries:
        found = case_candidate(entry)
        if isinstance(found, Skipped):
            report.skipped.append(found)
        else:
            candidates.append(found)
    report.candidates = len(candidates)
    if sample is None:
        return candidates
    chosen = stratified_pick(candidates, lambda c: c.stratum, sample, seed)
    available = Counter(c.stratum for c in candidates)
    picked = Counter(c.stratum for c in chosen)
    report.sample = {
        "size": sample,
        "seed": seed,
        "strata": {s: {"available": available[s], "chosen": picked[s]} for s in sorted(available)},
    }
    return chosen


def import_logs(
    paths: Sequence[Path],
    dialect: str | None,
    out: Path,
    *,
    sample: int | None = None,
    seed: int = 0,
    skip_bad: bool = False,
    force: bool = False,
    name: str | None = None,
    fmt: str = "wire",
    tools: Sequence[Tool] = (),
) -> LogImportReport:
    """Turn logs (``fmt``, see :mod:`fcbench.logs.formats`; wire logs of ``dialect``) into a suite
    folder at ``out``; return the report. ``tools`` are offered where a trace records none.

    Raises :class:`~fcbench.errors.InputError` for unreadable log lines (file and line; unless
    ``skip_bad``), a non-empty ``out`` without ``force``, and when no exchange can become a case.
    """
    if sample is not None and sample < 1:
        raise InputError(f"--sample must be at least 1, not {sample}")
    read, source = read_log_files(paths, fmt, ReadOptions(dialect, skip_bad, tuple(tools)))
    report = LogImportReport(
        files=[str(p) for p in paths],
        dialect=source,
        suite=name or f"logs-{source}",
        dataset_version=_dataset_version(paths),
        lines=read.lines,
        bad_lines=[f"{b.source}:{b.line}: {b.reason}" for b in read.bad],
    )
    chosen = _select(read.entries, report, sample, seed)
    if not chosen:
        raise InputError(
            f"no logged exchange could become a case ({_reasons(report) or 'no lines'})",
            path=", ".join(report.files),
        )
    system = _most_common([c.entry.request.system or "" for c in chosen])
    if not system:
        report.warnings.append(
            f"most cases had no logged system prompt; {SYSTEM_FILE} holds {FALLBACK_SYSTEM!r}"
        )
    set_names, tool_sets, context = _tool_context(chosen, report)
    cases, differs, secrets = _build_cases(chosen, system, set_names, context, report)
    if not cases:
        raise InputError(
            f"no logged exchange could become a case ({_reasons(report)})", path=", ".join(report.files)
        )
    used = _summarise(report, cases, differs)
    written = {n: tool_sets[n] for n in tool_sets if n in used or n == "core"}
    report.warnings += write_suspects(written)  # a logged request never says which tool writes
    _write_suite(out, report, system or FALLBACK_SYSTEM, written, cases, force, secrets)
    return report


def _tool_context(
    chosen: Sequence[CaseCandidate], report: LogImportReport
) -> tuple[dict[str, str], dict[str, list[Tool]], ToolContext]:
    """The chosen exchanges' tool sets: set names by canonical tool list, the sets by name, and the
    context cases are checked in (a set the suite checks reject is warned about and left out)."""
    set_names = _tool_set_names(chosen)
    tool_sets = {
        set_names[canonical_json([t.model_dump() for t in c.entry.request.tools])]: c.entry.request.tools
        for c in chosen
    }
    broken = {n for n, tools in tool_sets.items() if tool_findings(tools)}
    for set_name in sorted(broken):
        problems = "; ".join(str(f) for f in tool_findings(tool_sets[set_name]))
        report.warnings.append(f"tool set {set_name} is rejected by the suite checks: {problems}")
    if "core" in broken:
        raise InputError(f"the most common logged tool set is not valid: {report.warnings[-1]}")
    context = ToolContext({n: t for n, t in tool_sets.items() if n not in broken}, frozenset(broken))
    return set_names, tool_sets, context


def _build_cases(
    chosen: Sequence[CaseCandidate],
    system: str,
    set_names: dict[str, str],
    context: ToolContext,
    report: LogImportReport,
) -> tuple[list[dict[str, Any]], list[str], set[str]]:
    """The cases of the chosen exchanges (redacted, flagged for review), the ids of those whose system
    prompt differs from the suite's, and the secret values found; invalid ones are skipped."""
    cases: list[dict[str, Any]] = []
    differs: list[str] = []
    secrets: set[str] = set()
    for candidate in chosen:
        set_name = set_names[canonical_json([t.model_dump() for t in candidate.entry.request.tools])]
        own = candidate.entry.request.system or ""
        note = [] if own == system else ["its logged system prompt differs from system.txt"]
        note += [f"left out of the logged request: {left}" for left in candidate.entry.request.notes]
        case = _case_dict(candidate, set_name, note)
        findings = scan_json(case)
        secrets.update(findings.secret_values)
        case = _flag(case, findings, Redactor(findings.secret_values, patterns=True))
        if findings.describe():
            report.flagged[case["id"]] = findings.describe()
        broken = set_name in context.broken_sets
        rejected = [] if broken else case_findings(Case.model_validate(case), context)
        if broken or rejected:
            detail = "; ".join(str(p) for p in rejected) or f"tool set {set_name} is not valid"
            report.skipped.append(Skipped(candidate.entry.where, "invalid_case", detail))
            continue
        if own != system:
            differs.append(case["id"])
        cases.append(case)
    return cases, differs, secrets


def _summarise(report: LogImportReport, cases: list[dict[str, Any]], differs: list[str]) -> Counter[str]:
    """Fill the report's counts for the imported ``cases``; return how many cases use each tool set."""
    used = Counter(c["tools"] for c in cases)
    report.tool_sets = {n: used[n] for n in sorted(used, key=lambda n: (n != "core", n))}
    report.system_prompt = {"cases_matching": len(cases) - len(differs), "differs": differs}
    if differs:
        report.warnings.append(
            f"{len(differs)} cases had another system prompt than {SYSTEM_FILE}: {', '.join(differs)}"
        )
    report.imported = len(cases)
    report.skipped_by_reason = dict(sorted(Counter(s.reason for s in report.skipped).items()))
    report.by_kind = dict(sorted(Counter(c["expected"]["kind"] for c in cases).items()))
    return used


def _reasons(report: LogImportReport) -> str:
    counts = Counter(s.reason for s in report.skipped)
    return ", ".join(f"{code} {count}" for code, count in sorted(counts.items()))


def _write_suite(
    out: Path,
    report: LogImportReport,
    system: str,
    tool_sets: dict[str, list[Tool]],
    cases: list[dict[str, Any]],
    force: bool,
    secrets: set[str],
) -> None:
    prepare_suite_folder(out, force)
    files = ", ".join(Path(f).name for f in report.files)
    description = f"Imported from {report.dialect} logs ({files}): {report.imported} pending cases."
    shared: dict[str, Any] = {SYSTEM_FILE: system}
    shared.update(
        {f"tools.{n}.json": {"tools": [t.model_dump(mode="json") for t in v]} for n, v in tool_sets.items()}
    )
    for label, value in shared.items():
        findings = scan_json(value)
        if findings.secrets:
            report.flagged[label] = findings.describe()
            shared[label] = Redactor(findings.secret_values, patterns=True).json(value)
            secrets.update(findings.secret_values)
    write_json(
        out / SUITE_FILE,
        {"name": report.suite, "dataset_version": report.dataset_version, "description": description},
    )
    for label, value in shared.items():
        if label == SYSTEM_FILE:
            (out / label).write_text(value + "\n", encoding="utf-8")
        else:
            write_json(out / label, value)
    lines = [json.dumps(case, ensure_ascii=False, separators=(",", ":")) for case in cases]
    (out / CASES_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    # skip details and bad lines quote logged text: every secret found and every documented kind go
    write_json(out / REPORT_FILE, Redactor(secrets, patterns=True).json(report.to_json()))
    load_suite(out)


__all__ = [
    "FALLBACK_SYSTEM",
    "NO_CALL",
    "REPORT_FILE",
    "SKIP_REASONS",
    "LogImportReport",
    "Skipped",
    "import_logs",
    "stratified_pick",
]
