"""``fcbench show``: observations of a run in the terminal, to see why each passed or failed.

Per observation: a header (case, target, mode, repeat, passed or failed, decision), the prompt,
the expected call next to the actual one, one row per argument with the grader's mark (``ok``,
``wrong``, ``missing``, ``unexpected``, ``tolerated``: read from the verdict's ``missing``,
``wrong``, ``unexpected`` and ``schema_errors``, never graded again), the verdict's reasons and
anomalies, for multi-turn records the conversation turn by turn, and optionally the raw request
and response. Expected values come from the run's suite; where it cannot be loaded, from the
verdict alone.

Records are streamed: only the first ``limit`` matching observations are kept, and only the blobs
their raw exchanges need are read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from fcbench.contract import ToolCall
from fcbench.report.common import anomaly_meaning
from fcbench.report.terminal import terminal_text
from fcbench.store.blobs import expand_blobs, load_blob_closure
from fcbench.store.records import Record
from fcbench.suite.loader import Suite
from fcbench.suite.models import (
    Case,
    ExpectClarification,
    ExpectedCall,
    ExpectTool,
    ExpectTools,
    is_assertion,
)

SIDE_BY_SIDE_COLUMNS = 100
"""Narrower than this, expected is stacked over actual instead of beside it."""

MARK_STYLES: Mapping[str, str] = {
    "ok": "green",
    "wrong": "bold red",
    "missing": "bold yellow",
    "unexpected": "bold magenta",
    "tolerated": "yellow",
    "-": "dim",
}
"""Style of each per-argument mark (``-``: not compared by the grader)."""


def _plain(value: object, style: str = "") -> Text:
    """Untrusted text as a rich Text: control characters dropped, line breaks kept."""
    lines = str(value).split("\n")
    return Text.from_markup("\n".join(terminal_text(line) for line in lines), style=style, emoji=False)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class ArgRow:
    """One line of the expected-versus-actual comparison."""

    key: str
    """Argument name (``tool`` for the tool's name, a path for a nested finding)."""
    expected: str
    """What was expected, as display text."""
    actual: str
    """What the model produced, as display text."""
    mark: str
    """``ok``, ``wrong``, ``missing``, ``unexpected``, ``tolerated`` or ``-`` (not compared)."""


def _expected_args(call: ExpectedCall) -> dict[str, str]:
    """Each expected argument's display text, in the suite's order."""
    args = call.arguments
    if args is None:
        return {}
    if not is_assertion(args):
        return {key: _json(value) for key, value in args.items()}
    out = {key: _json(value) for key, value in args.get("requiredEquals", {}).items()}
    for key, values in args.get("oneOf", {}).items():
        out[key] = "one of " + " | ".join(_json(v) for v in values)
    optional = set(args.get("optional", []))
    for key, constraint in args.get("constraints", {}).items():
        text = ", ".join(f"{k} {_json(v)}" for k, v in constraint.items() if v is not None) or "any value"
        out[key] = ("optional, " if key in optional and key not in out else "") + text
    for key in args.get("optional", []):
        out.setdefault(key, "optional")
    for key in args.get("forbidden", []):
        out.setdefault(key, "must be absent")
    return out


def _top_key(path: str) -> str:
    """The argument a finding's path starts with (``room`` of ``room.beds`` and ``room[0]``)."""
    return re.split(r"[.\[]", path, maxsplit=1)[0]


_SCHEMA_CALL = re.compile(r"^call (\d+) \([^)]*\): (.*)$", re.DOTALL)
"""A schema error of one of several calls: its index and the error (``path: message``)."""


@dataclass(frozen=True)
class _Findings:
    """The verdict's findings of one graded call, by argument path (the ``calls[j].`` prefix removed)."""

    marks: dict[str, str]
    """Mark of each path with a finding."""
    wrong: dict[str, Any]
    """The verdict's :class:`~fcbench.grading.verdict.WrongValue` of each wrong path."""

    @classmethod
    def of(cls, record: Record, prefix: str) -> _Findings:
        marks: dict[str, str] = {}
        wrong: dict[str, Any] = {}
        verdict = record.verdict
        if verdict is None:
            return cls(marks, wrong)

        def own(key: str) -> str | None:
            return key[len(prefix) :] if key.startswith(prefix) else None

        for message in verdict.schema_errors:
            several = _SCHEMA_CALL.match(message)  # "call 1 (name): path: message" when several calls
            where = f"calls[{several[1]}].{several[2]}" if several else message
            path = own(where.split(": ", 1)[0])
            if path and path != "(root)":
                marks.setdefault(path, "wrong")
        for value in verdict.wrong:
            path = own(value.key)
            if path is not None:
                marks[path] = "tolerated" if value.note else "wrong"
                wrong[path] = value
        for kind, keys in (("missing", verdict.missing), ("unexpected", verdict.unexpected)):
            for key in keys:
                path = own(key)
                if path is not None:
                    marks[path] = kind
        return cls(marks, wrong)

    def mark(self, key: str) -> str:
        """The mark of argument ``key``: its own finding, else ``wrong`` when a path below it has
        one, else ``ok``."""
        if key in self.marks:
            return self.marks[key]
        return "wrong" if any(_top_key(path) == key for path in self.marks) else "ok"


def _name_mark(expected: str | None, actual: str | None) -> str:
    if expected is None:
        return "unexpected"
    if actual is None:
        return "missing"
    return "ok" if expected == actual else "wrong"


def comparison_rows(
    record: Record, expected: ExpectedCall | None, call: ToolCall | None, prefix: str, *, known: bool = True
) -> list[ArgRow]:
    """The rows comparing one expected call with the actual call it was graded against.

    ``known=False``: the suite is not available, so expected values come from the verdict alone."""
    verdict = record.verdict
    name = expected.name if expected is not None else None
    actual_name = call.name if call is not None else None
    compared = bool(verdict and verdict.calls_scored and call and (not known or name == actual_name))
    rows = [
        ArgRow(
            "tool",
            (name or "(no call)") if known else "?",
            actual_name or "(no call)",
            _name_mark(name, actual_name) if known else "-",
        )
    ]
    findings = _Findings.of(record, prefix)
    wanted = _expected_args(expected) if expected is not None else {}
    actual = call.arguments if call is not None and isinstance(call.arguments, dict) else {}
    if expected is not None and expected.arguments is None:
        rows.append(ArgRow("arguments", "any", "", "ok"))
    if call is not None and call.parse_error:
        rows.append(ArgRow("arguments", "", f"{call.raw_arguments} ({call.parse_error})", "wrong"))
    extra = [k for k in findings.marks if _top_key(k) == k and k not in wanted and k not in actual]
    for key in [*wanted, *(k for k in actual if k not in wanted), *extra]:
        if key in wanted:
            expected_text = wanted[key]
        elif key in findings.wrong:
            expected_text = _json(findings.wrong[key].expected)
        else:
            expected_text = "(not expected)" if known and findings.marks.get(key) == "unexpected" else "?"
        actual_text = _json(actual[key]) if key in actual else "(absent)"
        rows.append(ArgRow(key, expected_text, actual_text, findings.mark(key) if compared else "-"))
        for path, value in findings.wrong.items():
            if compared and path != key and _top_key(path) == key:
                rows.append(
                    ArgRow("  " + path, _json(value.expected), _json(value.actual), findings.marks[path])
                )
    return rows


def _closeness(spec: ExpectedCall, call: ToolCall) -> int:
    """How many of the exactly expected values a call holds (to pair calls of the same tool)."""
    args = spec.arguments or {}
    values = args.get("requiredEquals", {}) if is_assertion(args) else args
    actual = call.arguments if isinstance(call.arguments, dict) else {}
    return sum(1 for key, value in values.items() if key in actual and actual[key] == value)


def _pairs(
    expected: list[ExpectedCall], calls: list[ToolCall]
) -> list[tuple[ExpectedCall | None, int | None]]:
    """Expected calls paired with the index of an actual call: by name in order, then by position;
    leftovers of either side alone."""
    free = list(range(len(calls)))
    paired: list[tuple[ExpectedCall | None, int | None]] = []
    for spec in expected:
        same = [j for j in free if calls[j].name == spec.name]
        best = max(same, key=lambda j: _closeness(spec, calls[j]), default=None)
        if best is not None:
            free.remove(best)
        paired.append((spec, best))
    for index, (wanted, j) in enumerate(paired):
        if j is None and free:
            paired[index] = (wanted, free.pop(0))
    return paired + [(None, j) for j in free]


def expected_calls(case: Case | None) -> list[ExpectedCall]:
    """The calls a case expects (none for text and clarification cases)."""
    if case is None:
        return []
    if isinstance(case.expected, ExpectTool):
        return [case.expected]
    if isinstance(case.expected, ExpectTools):
        return list(case.expected.calls)
    return []


def expected_summary(case: Case | None, record: Record) -> str:
    """What the case expected, in words."""
    if case is None:
        return f"{record.case.expected_kind} (the suite is not available)"
    exp = case.expected
    if isinstance(exp, ExpectClarification):
        return "no call: a question asking for " + ", ".join(exp.missing)
    if isinstance(exp, ExpectTools):
        return f"{len(exp.calls)} calls (order {exp.order})"
    if isinstance(exp, ExpectTool):
        return f"a call of {exp.name}"
    return "no call: an answer in text"


def actual_summary(record: Record) -> str:
    """What the model did, in words."""
    out = record.outcome
    if out.kind == "tool_calls":
        text = f"; text: {out.text}" if out.text else ""
        return f"{len(out.calls)} call(s): " + ", ".join(c.name for c in out.calls) + text
    if out.kind == "provider_error":
        status = f" (HTTP {out.status})" if out.status is not None else ""
        return f"provider error {out.code}{status}: {out.message}"
    return f"{out.kind}: {out.text or ''}"


def _mark(mark: str) -> Text:
    return Text(mark, style=MARK_STYLES.get(mark, ""))


def _table(rows: list[ArgRow], width: int, title: str | None) -> RenderableType:
    """Expected beside actual when ``width`` allows, else each argument's expected over its actual."""
    if width >= SIDE_BY_SIDE_COLUMNS:
        table = Table(title=title, title_justify="left")
        for name in ("", "expected", "actual", "verdict"):
            table.add_column(name, overflow="fold")
        for row in rows:
            table.add_row(_plain(row.key, "bold"), _plain(row.expected), _plain(row.actual), _mark(row.mark))
        return table
    grid = Table.grid(padding=(0, 1))
    grid.add_column(overflow="fold", max_width=max(12, width // 4))
    grid.add_column(no_wrap=True)
    grid.add_column(no_wrap=True, style="dim")
    grid.add_column(overflow="fold")
    for row in rows:
        grid.add_row(_plain(row.key, "bold"), _mark(row.mark), "expected", _plain(row.expected))
        grid.add_row("", "", "actual", _plain(row.actual))
    return Group(Text(title, style="italic"), grid) if title else grid


def render_comparison(record: Record, case: Case | None, width: int) -> list[RenderableType]:
    """Expected next to actual (stacked below :data:`SIDE_BY_SIDE_COLUMNS`), one table per call."""
    parts: list[RenderableType] = [
        _plain(f"expected: {expected_summary(case, record)}"),
        _plain(f"actual:   {actual_summary(record)}"),
    ]
    calls = list(record.outcome.calls) if record.outcome.kind == "tool_calls" else []
    specs = expected_calls(case)
    keys = [w.key for w in record.verdict.wrong] + record.verdict.missing if record.verdict else []
    several = isinstance(case.expected, ExpectTools) if case else any(k.startswith("calls[") for k in keys)
    pairs: list[tuple[ExpectedCall | None, int | None]] = (
        _pairs(specs, calls) if case is not None else [(None, j) for j in range(len(calls))]
    )
    for number, (spec, j) in enumerate(pairs, 1):
        prefix = f"calls[{j}]." if several and j is not None else ""
        call = calls[j] if j is not None else None
        rows = comparison_rows(record, spec, call, prefix, known=case is not None)
        parts.append(_table(rows, width, f"call {number}" if len(pairs) > 1 else None))
    return parts


def _header(record: Record, name: str) -> Text:
    verdict = record.verdict
    if verdict is None or not verdict.scored:
        status, style = "NOT SCORED", "bold yellow"
    elif verdict.passed:
        status, style = "PASSED", "bold green"
    else:
        status, style = "FAILED", "bold red"
    header = Text()
    header.append(status, style=style)
    header.append("  ")
    header.append_text(_plain(record.case_id, "bold"))
    header.append_text(_plain(f"  {verdict.decision if verdict else 'no verdict'}"))
    target = record.target.label + (f" ({name})" if name != record.target.label else "")
    header.append_text(_plain(f"\ntarget {target} · mode {record.mode} · repeat {record.repeat}"))
    header.append_text(_plain(f" · seq {record.seq}", "dim"))
    return header


def _why(record: Record) -> list[RenderableType]:
    """The verdict's reasons, schema errors and anomalies, the recovery score, and errors."""
    lines: list[str] = []
    verdict = record.verdict
    if verdict is not None:
        lines += [f"reason: {r}" for r in verdict.reasons]
        lines += [f"schema: {e}" for e in verdict.schema_errors if f"schema: {e}" not in verdict.reasons]
        rec = verdict.recovery
        if rec is not None:
            lines.append(
                f"recovery: {rec.outcome} (success {'yes' if rec.success else 'no'}), {rec.turns} turn(s), "
                f"{rec.side_effects} side effect(s), {rec.errors} error result(s)"
            )
            lines += [f"recovery: {r}" for r in rec.reasons]
            if rec.failed_turns:
                lines.append("failed turns: " + ", ".join(map(str, rec.failed_turns)))
    details = {a.code: a.detail for a in record.anomalies}
    codes = list(dict.fromkeys([*(verdict.anomalies if verdict else []), *details]))
    for code in codes:
        detail = f" ({details[code]})" if details.get(code) else ""
        lines.append(f"anomaly: {code}: {anomaly_meaning(code)}{detail}")
    if record.error:
        lines.append(f"harness error: {record.error}")
    return [_plain(line) for line in lines]


def _call_text(call: ToolCall) -> str:
    if call.parse_error:
        return f"{call.name} {call.raw_arguments} (arguments do not parse: {call.parse_error})"
    return f"{call.name}({_json(call.arguments)})"


def render_transcript(record: Record) -> list[RenderableType]:
    """A multi-turn record as a conversation: each turn's calls, the results sent back, errors."""
    if not record.turns:
        return []
    parts: list[RenderableType] = [Text("conversation", style="italic")]
    for turn in record.turns:
        finish = f", finish {turn.finish_reason}" if turn.finish_reason else ""
        latency = f", {turn.latency_ms:.0f} ms" if turn.latency_ms is not None else ""
        parts.append(_plain(f"turn {turn.turn}{finish}{latency}", "bold"))
        out = turn.outcome
        lines: list[str] = []
        if out.kind == "tool_calls":
            lines += [f"  model calls {_call_text(c)}" for c in out.calls]
            if out.text:
                lines.append(f"  model says: {out.text}")
        elif out.kind == "provider_error":
            lines.append(f"  provider error {out.code}: {out.message}")
        else:
            lines.append(f"  model {'says' if out.kind == 'text' else 'refuses'}: {out.text or ''}")
        for result in turn.results:
            error = f" [error {result.get('error_code') or ''}]" if result.get("is_error") else ""
            source = " (injected)" if result.get("source") == "inject" else ""
            lines.append(f"  result of {result.get('name')}{error}{source}: {_json(result.get('content'))}")
        lines += [f"  anomaly: {a.code}" + (f" ({a.detail})" if a.detail else "") for a in turn.anomalies]
        parts += [_plain(line) for line in lines]
    return parts


def render_raw(raw: Mapping[str, Any]) -> list[RenderableType]:
    """The raw request and response bodies as pretty JSON (already expanded from the blob store)."""
    parts: list[RenderableType] = []
    exchanges = raw.get("exchanges")
    pieces = (
        [(f"turn {i} ", e) for i, e in enumerate(exchanges, 1) if isinstance(e, Mapping)]
        if isinstance(exchanges, list)
        else [("", raw)]
    )
    for label, exchange in pieces:
        for key in ("request", "response"):
            if key in exchange:
                parts.append(Text(f"raw {label}{key}", style="italic"))
                parts.append(_plain(json.dumps(exchange[key], ensure_ascii=False, indent=2)))
    return parts


def render_observation(
    record: Record, *, case: Case | None, name: str, width: int, raw: Mapping[str, Any] | None = None
) -> Group:
    """Everything ``fcbench show`` prints for one observation."""
    parts: list[RenderableType] = [Rule(style="dim"), _header(record, name)]
    if record.case.prompt:
        parts.append(_plain(f"prompt: {record.case.prompt}"))
    parts += render_comparison(record, case, width)
    parts += _why(record)
    parts += render_transcript(record)
    if raw is not None:
        parts += render_raw(raw)
    return Group(*parts)


def expanded_raws(run_dir: Path, records: list[Record]) -> list[dict[str, Any]]:
    """The raw exchanges of ``records`` expanded, reading only the blobs they reference."""
    blobs = load_blob_closure(run_dir, [r.raw for r in records])
    return [expand_blobs(r.raw, blobs) for r in records]


def suite_cases(suite: Suite | None) -> dict[str, Case]:
    """A suite's cases by id (none without a suite)."""
    return {c.id: c for c in suite.cases} if suite is not None else {}
