"""Intent coverage: what share of logged traffic a suite's cases cover (``fcbench coverage``).

**Intent.** Every logged exchange whose response is a model answer has one intent, three parts:

* the **tool** called in the logged response (several calls: their names, sorted, joined by ``+``,
  as ``import logs`` strata them; no call: ``(no call)``);
* the **argument keys** present, sorted (several calls: every key of any call); arguments that are
  not a JSON object count as the one key ``(unparsed)``, which no case accepts;
* the **language** of the request's last user message (:func:`fcbench.grading.language.detect_language`;
  ``und`` when there is none).

Logged provider errors are no model answer: they are counted apart and are not traffic.

**Covers.** A case covers an intent when all three match: its expected tool(s) are the intent's
tool (a ``text`` or ``clarification`` case expects no call); the intent's keys are a key set the
case accepts (an exact arguments object: exactly its keys; an assertion: every ``requiredEquals``
and ``oneOf`` key present, no key outside those, ``optional`` and ``constraints``, none
``forbidden``; ``arguments: null``: any keys); and the case's prompt is in the intent's language
(the same detector). Pending cases count too.

**Sample to import next.** ``import logs --sample N --seed S`` draws a stratified sample by tool
called (:func:`fcbench.logs.cases.stratified_pick`). The suggestion tries seeds ``0`` to
``SEED_TRIES - 1`` on the exchanges ``import logs`` would take and keeps the one whose sample holds
the most uncovered intents (then the most uncovered exchanges; then the lowest seed), so the
command printed imports exactly the sample described.

Unreadable lines are skipped, counted and named (``file:line: reason``), never raised.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench.contract import ToolCallsOutcome, UserMessage
from fcbench.grading.language import UNDETERMINED, detect_language
from fcbench.logs.cases import NO_CALL, Skipped, case_candidate, stratified_pick
from fcbench.logs.entries import LogEntry
from fcbench.logs.formats import read_log_files
from fcbench.logs.traces import ReadOptions
from fcbench.suite.models import Case, ExpectedCall, ExpectTool, ExpectTools, is_assertion
from fcbench.suite.parts import Suite

UNPARSED = "(unparsed)"
"""The key of arguments that are not a JSON object (no case accepts it)."""

SEED_TRIES = 100
"""Seeds tried for the suggested sample."""

EXAMPLES_KEPT = 3
"""Example lines (``file:line``) kept per intent."""


@dataclass(frozen=True, order=True)
class Intent:
    """What one logged request asked for, as coverage groups it."""

    tool: str
    """The tool(s) called, ``+``-joined, or ``(no call)``."""
    keys: tuple[str, ...]
    """The argument keys present, sorted."""
    language: str
    """The language of the last user message (:data:`fcbench.grading.language.LANGUAGES`)."""

    @property
    def label(self) -> str:
        """``refund_order(order_id,reason) [zh]``."""
        return f"{self.tool}({','.join(self.keys)}) [{self.language}]"


@dataclass(frozen=True)
class CaseShape:
    """The intents one case covers: its tool, the key sets it accepts, its prompt's language."""

    case_id: str
    tool: str
    """The expected tool(s), ``+``-joined, or ``(no call)``."""
    required: frozenset[str]
    """Keys that must be present."""
    allowed: frozenset[str] | None
    """Keys that may be present (the required ones included); None: any key."""
    language: str

    def covers(self, intent: Intent) -> bool:
        """Whether this case covers ``intent`` (see the module)."""
        keys = set(intent.keys)
        return (
            intent.tool == self.tool
            and intent.language == self.language
            and self.required <= keys
            and (self.allowed is None or keys <= self.allowed)
        )


def _accepted_keys(arguments: dict[str, Any] | None) -> tuple[frozenset[str], frozenset[str] | None]:
    if arguments is None:
        return frozenset(), None
    if not is_assertion(arguments):
        return frozenset(arguments), frozenset(arguments)
    required = set(arguments.get("requiredEquals", {})) | set(arguments.get("oneOf", {}))
    allowed = required | set(arguments.get("optional", [])) | set(arguments.get("constraints", {}))
    return frozenset(required), frozenset(allowed - set(arguments.get("forbidden", [])))


def case_shape(case: Case) -> CaseShape:
    """The :class:`CaseShape` of ``case``."""
    expected = case.expected
    calls: list[ExpectedCall] = [expected] if isinstance(expected, ExpectTool) else []
    calls += expected.calls if isinstance(expected, ExpectTools) else []
    required: set[str] = set()
    allowed: set[str] | None = set()
    for call in calls:
        need, may = _accepted_keys(call.arguments)
        required |= need
        allowed = None if allowed is None or may is None else allowed | may
    tool = "+".join(sorted({call.name for call in calls})) or NO_CALL
    language = detect_language(case.prompt)
    return CaseShape(
        case.id, tool, frozenset(required), None if allowed is None else frozenset(allowed), language
    )


def entry_intent(entry: LogEntry) -> Intent | None:
    """The intent of one logged exchange; None when its response is no model answer."""
    outcome = entry.turn.outcome
    users = [m for m in entry.request.messages if isinstance(m, UserMessage)]
    language = detect_language(users[-1].content) if users else UNDETERMINED
    if isinstance(outcome, ToolCallsOutcome):
        keys: set[str] = set()
        for call in outcome.calls:
            keys |= set(call.arguments) if isinstance(call.arguments, dict) else {UNPARSED}
        tool = "+".join(sorted({call.name for call in outcome.calls}))
        return Intent(tool, tuple(sorted(keys)), language)
    if outcome.kind in ("text", "refusal"):
        return Intent(NO_CALL, (), language)
    return None


@dataclass
class IntentCount:
    """One intent of the logs, how often it was logged and which cases cover it."""

    intent: Intent
    requests: int = 0
    """Logged requests with this intent."""
    examples: list[str] = field(default_factory=list)
    """The first :data:`EXAMPLES_KEPT` of them, ``file:line``."""
    covered_by: list[str] = field(default_factory=list)
    """Ids of the cases that cover it, in suite order."""

    def to_json(self, traffic: int) -> dict[str, Any]:
        """The intent as JSON: its parts, count, share of traffic, examples and covering cases."""
        return {
            "intent": self.intent.label,
            "tool": self.intent.tool,
            "keys": list(self.intent.keys),
            "language": self.intent.language,
            "requests": self.requests,
            "share": round(self.requests / traffic, 6) if traffic else 0.0,
            "examples": self.examples,
            "covered_by": self.covered_by,
        }


@dataclass(frozen=True)
class Suggestion:
    """The sample ``import logs`` should draw next, and what it holds."""

    command: str
    """The command line."""
    size: int
    seed: int
    uncovered_intents: int
    """Uncovered intents the sample holds an exchange of."""
    uncovered_requests: int
    """Exchanges of uncovered intents in the sample."""


@dataclass
class CoverageReport:
    """Coverage of logged traffic by a suite's cases."""

    suite: str
    cases: int
    files: list[str]
    source: str
    """The dialect of wire logs, or the trace format."""
    lines: int = 0
    """Non-blank lines (or trace items) read."""
    bad_lines: list[str] = field(default_factory=list)
    """``file:line: reason`` of each line that could not be read."""
    not_answers: int = 0
    """Logged exchanges whose response is a provider error (not traffic)."""
    intents: list[IntentCount] = field(default_factory=list)
    """Every intent, most requests first (then by label)."""
    suggestion: Suggestion | None = None

    @property
    def traffic(self) -> int:
        """Logged model answers."""
        return sum(i.requests for i in self.intents)

    @property
    def covered_traffic(self) -> int:
        """Logged model answers whose intent some case covers."""
        return sum(i.requests for i in self.intents if i.covered_by)

    @property
    def uncovered(self) -> list[IntentCount]:
        """The intents no case covers, most requests first."""
        return [i for i in self.intents if not i.covered_by]

    def to_json(self, top: int) -> dict[str, Any]:
        """The report as JSON; ``top``: uncovered intents listed under ``largest_uncovered``."""
        traffic = self.traffic
        return {
            "suite": self.suite,
            "cases": self.cases,
            "files": self.files,
            "source": self.source,
            "lines": self.lines,
            "bad_lines": self.bad_lines,
            "provider_errors": self.not_answers,
            "traffic": {"n": self.covered_traffic, "d": traffic},
            "intents_covered": {"n": len(self.intents) - len(self.uncovered), "d": len(self.intents)},
            "largest_uncovered": [i.to_json(traffic) for i in self.uncovered[:top]],
            "intents": [i.to_json(traffic) for i in self.intents],
            "suggestion": None if self.suggestion is None else vars(self.suggestion),
        }


def _count_intents(
    entries: Sequence[LogEntry], shapes: Sequence[CaseShape]
) -> tuple[dict[Intent, IntentCount], int]:
    counts: dict[Intent, IntentCount] = {}
    not_answers = 0
    for entry in entries:
        intent = entry_intent(entry)
        if intent is None:
            not_answers += 1
            continue
        found = counts.get(intent)
        if found is None:
            found = counts[intent] = IntentCount(
                intent, covered_by=[s.case_id for s in shapes if s.covers(intent)]
            )
        found.requests += 1
        if len(found.examples) < EXAMPLES_KEPT:
            found.examples.append(entry.where)
    return counts, not_answers


def _suggest(
    entries: Sequence[LogEntry], uncovered: set[Intent], size: int, command: list[str]
) -> Suggestion | None:
    """The seed whose ``import logs --sample size`` holds the most uncovered intents (see the module)."""
    found = (case_candidate(entry) for entry in entries)
    candidates = [(c, entry_intent(c.entry)) for c in found if not isinstance(c, Skipped)]
    if not uncovered or not any(intent in uncovered for _, intent in candidates):
        return None
    best: tuple[int, int, int] | None = None
    for seed in range(SEED_TRIES):
        chosen = stratified_pick(candidates, lambda pair: pair[0].stratum, size, seed)
        hits = [intent for _, intent in chosen if intent in uncovered]
        score = (len(set(hits)), len(hits), -seed)
        if best is None or score > best:
            best = score
    assert best is not None
    seed = -best[2]
    line = shlex.join([*command, "--sample", str(size), "--seed", str(seed)])
    return Suggestion(line, size, seed, best[0], best[1])


def import_command(paths: Sequence[Path], fmt: str, options: ReadOptions, tools: Path | None) -> list[str]:
    """The start of the ``fcbench import logs`` command line that reads these logs the same way."""
    command = ["fcbench", "import", "logs", *map(str, paths)]
    if fmt != "wire":
        command += ["--format", fmt]
    if options.dialect:
        command += ["--dialect", options.dialect]
    if tools is not None:
        command += ["--tools", str(tools)]
    return [*command, "--out", "next-cases"]


def measure_coverage(
    suite: Suite,
    paths: Sequence[Path],
    fmt: str,
    options: ReadOptions,
    *,
    sample: int = 20,
    tools_path: Path | None = None,
) -> CoverageReport:
    """Coverage of the logs ``paths`` (format ``fmt``, read with ``options``; unreadable lines are
    always skipped and named) by ``suite``'s cases; ``sample``: size of the suggested sample."""
    read, source = read_log_files(paths, fmt, ReadOptions(options.dialect, True, options.tools))
    shapes = [case_shape(case) for case in suite.cases]
    counts, not_answers = _count_intents(read.entries, shapes)
    intents = sorted(counts.values(), key=lambda i: (-i.requests, i.intent.label))
    report = CoverageReport(
        suite=suite.info.name,
        cases=len(suite.cases),
        files=[str(p) for p in paths],
        source=source,
        lines=read.lines,
        bad_lines=[f"{b.source}:{b.line}: {b.reason}" for b in read.bad],
        not_answers=not_answers,
        intents=intents,
    )
    uncovered = {i.intent for i in report.uncovered}
    report.suggestion = _suggest(
        read.entries, uncovered, sample, import_command(paths, fmt, options, tools_path)
    )
    return report


__all__ = [
    "EXAMPLES_KEPT",
    "SEED_TRIES",
    "UNPARSED",
    "CaseShape",
    "CoverageReport",
    "Intent",
    "IntentCount",
    "Suggestion",
    "case_shape",
    "entry_intent",
    "import_command",
    "measure_coverage",
]
