"""Records of a compat run -> one status per target and keyword, and per target and capability.

Keyword statuses, decided in this order:

=====================  ==========================================================================
``rejected``           every answered request was refused by the provider (``schema_rejected`` or
                       ``bad_request``); the provider's messages are kept
``transformed``        fcbench's own dialect transform changed the probed keyword before sending
                       (the changes are named, from the records' ``schema_changes``: the
                       adapter's account of how the schema on the wire differs from the tool
                       as given; a derived probe counts only changes of its keyword at its
                       pointer, or at and beneath it for nested uses)
``untested``           no call was produced (text answers, provider failures such as rate limits),
                       or no call carried the probed value (a call that left it out tests nothing)
``accepted_violated``  accepted, and at least one call that carried the value broke the constraint
``accepted_enforced``  accepted, some call carried the value, and every such call honoured it
=====================  ==========================================================================

Capability statuses: ``honoured`` (every judged turn did what was asked), ``ignored`` (none did),
``partial``, ``rejected``, ``untested`` (nothing could be judged), and ``unsupported`` when the
dialect cannot express the request at all (the observed behaviour is still counted).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fcbench import adapters
from fcbench.adapters.base import Capabilities
from fcbench.compat.checks import KeywordValidator, calls_of, check_call, judge_turn
from fcbench.compat.matrix import (
    CapabilityCell,
    CapabilityRow,
    CapabilityStatus,
    CompatReport,
    KeywordCell,
    KeywordRow,
    KeywordStatus,
    SuiteProbes,
)
from fcbench.compat.probes import STREAM_SUFFIXES, CapabilityProbe, CompatPlan, KeywordProbe, build_plan
from fcbench.errors import ConfigError, TargetError
from fcbench.grading.key import turn_key
from fcbench.store.records import RECORDS_FILE, PinnedTarget, read_manifest
from fcbench.store.view import RecordView, iter_views

REJECTION_CODES = frozenset({"schema_rejected", "bad_request"})
"""Provider error codes that mean the provider refused the request itself."""
_KEEP = 5
"""Distinct messages kept per cell."""


_REQUEST_ID = re.compile(r"\b(request[_-]?id|req)[=:_]\s*[A-Za-z0-9_-]+", re.IGNORECASE)


def _same_message(text: str) -> str:
    """A message with request ids blanked, so repeats of one rejection are kept once."""
    return _REQUEST_ID.sub("", text)


def _keep(items: list[str], value: str) -> None:
    """Append ``value`` (verbatim) unless an equal message, request ids aside, is already kept."""
    key = _same_message(value)
    if len(items) < _KEEP and all(_same_message(item) != key for item in items):
        items.append(value)


def _inside(path: str, roots: Sequence[str]) -> bool:
    return any(path == root or path.startswith(root + "/") for root in roots)


def _derived_change(probe: KeywordProbe, change: Mapping[str, Any]) -> bool:
    """Whether a schema change touches the one keyword use a derived probe tests."""
    path = str(change.get("path", ""))
    if probe.scope == "keyword":
        return path == probe.pointer and change.get("keyword") == probe.keyword
    return _inside(path, probe.within or [probe.pointer or ""]) and change.get("keyword") != "parameters"


def _relevant_changes(probe: KeywordProbe, changes: Iterable[Mapping[str, Any]]) -> list[str]:
    if probe.pointer is not None:
        return [
            f"{c.get('keyword')} {c.get('action')} at {c.get('path') or '/'}"
            for c in changes
            if _derived_change(probe, c)
        ]
    keywords = probe.changes_keywords()
    prefixes = tuple(f"/properties/{name}" for name in probe.under)
    found = []
    for change in changes:
        path = str(change.get("path", ""))
        if prefixes and not path.startswith(prefixes):
            continue
        if keywords and change.get("keyword") not in keywords:
            continue
        if not keywords and not prefixes:
            continue
        found.append(f"{change.get('keyword')} {change.get('action')} at {path or '/'}")
    return found


def _provider_error(record: RecordView) -> tuple[str, str] | None:
    outcome = record.outcome.data()
    if outcome.get("kind") != "provider_error":
        return None
    return str(outcome.get("code")), str(outcome.get("message", ""))


def keyword_cell(
    probe: KeywordProbe, records: Sequence[RecordView], tools: Mapping[str, Any], v: KeywordValidator
) -> KeywordCell:
    """Classify one target's records of one keyword probe variant."""
    cell = KeywordCell(status="untested", observations=len(records))
    tool = tools[probe.tool]
    violating_carried = 0
    for record in records:
        for text in _relevant_changes(probe, record.schema_change_data()):
            _keep(cell.transforms, text)
        error = _provider_error(record)
        if error is not None:
            code, message = error
            if code in REJECTION_CODES:
                cell.rejected += 1
                _keep(cell.messages, message)
            else:
                cell.errors[code] = cell.errors.get(code, 0) + 1
            continue
        calls = [c for c in calls_of(record.outcome.data()) if c.get("name") == probe.tool]
        if not calls:
            cell.no_call += 1
        for call in calls:
            check = check_call(probe, tool, call, v)
            cell.calls += 1
            cell.omitted += check.omitted
            if not check.honoured:
                cell.violating_calls += 1
                violating_carried += not check.omitted
                for problem in check.violations:
                    _keep(cell.violations, problem)
    accepted = cell.observations - cell.rejected - sum(cell.errors.values())
    if cell.rejected and accepted == 0:
        cell.status = "rejected"
    elif cell.transforms:
        cell.status = "transformed"
    elif cell.calls - cell.omitted == 0:
        cell.status = "untested"  # no call, or no call carried the value: nothing was tested
    elif violating_carried:
        cell.status = "accepted_violated"
    else:
        cell.status = "accepted_enforced"
    return cell


def expressible(capabilities: Capabilities, requires: str | None) -> bool:
    """Whether a dialect with ``capabilities`` can express a probe's request."""
    if requires is None:
        return True
    kind, _, mode = requires.partition(":")
    checks = {
        "tool_choice": lambda: mode in capabilities.tool_choice,
        "parallel_control": lambda: capabilities.parallel_control,
        "strict_mode": lambda: capabilities.strict_mode,
        "streaming": lambda: capabilities.streaming,
    }
    check = checks.get(kind)
    return bool(check()) if check is not None else True


def _judgements(
    probe: CapabilityProbe,
    records: Sequence[RecordView],
    tools: Sequence[Any],
    cell: CapabilityCell,
    v: KeywordValidator,
) -> list[bool | None]:
    """One judgement per accepted turn, or per repeat for a stream-agreement pair."""
    accepted: list[RecordView] = []
    topic = probe.topic()
    for record in records:
        for note in record.note_data():
            if topic is not None and topic in note.lower():
                _keep(cell.notes, note)
        error = _provider_error(record)
        if error is None:
            accepted.append(record)
        elif error[0] in REJECTION_CODES:
            cell.rejected += 1
            _keep(cell.messages, error[1])
        else:
            cell.errors[error[0]] = cell.errors.get(error[0], 0) + 1
    if probe.expect != "stream_agrees":
        return [judge_turn(probe, r.outcome.data(), tools, v) for r in accepted]
    halves: dict[int, dict[str, str]] = {}
    for record in accepted:
        suffix = next(s for s in STREAM_SUFFIXES if record.case_id.endswith(s))
        halves.setdefault(record.repeat, {})[suffix] = turn_key(record.outcome.data())
    return [
        (pair[STREAM_SUFFIXES[0]] == pair[STREAM_SUFFIXES[1]]) if len(pair) == 2 else None
        for _, pair in sorted(halves.items())
    ]


def capability_cell(
    probe: CapabilityProbe,
    records: Sequence[RecordView],
    dialect: str,
    tools: Sequence[Any],
    v: KeywordValidator,
) -> CapabilityCell:
    """Classify one target's records of one capability probe."""
    try:
        can = expressible(adapters.get(dialect).capabilities, probe.requires)
    except TargetError:
        can = True
    cell = CapabilityCell(status="untested", expressible=can, observations=len(records))
    for judged in _judgements(probe, records, tools, cell, v):
        if judged is None:
            cell.inconclusive += 1
        elif judged:
            cell.honoured += 1
        else:
            cell.ignored += 1
    if not can:
        cell.status = "unsupported"
    elif cell.honoured + cell.ignored == 0:
        cell.status = "rejected" if cell.rejected else "untested"
    elif cell.ignored == 0:
        cell.status = "honoured"
    elif cell.honoured == 0:
        cell.status = "ignored"
    else:
        cell.status = "partial"
    return cell


def classify(
    plan: CompatPlan,
    records: Iterable[RecordView],
    targets: Sequence[PinnedTarget],
    *,
    run_id: str = "",
    run_dir: str = "",
    repeats: int = 1,
) -> CompatReport:
    """Build both matrices from the records of a compat run."""
    by_key: dict[tuple[str, str], list[RecordView]] = {}
    for record in records:
        if record.mode == "compat":
            by_key.setdefault((record.label, record.case_id), []).append(record)
    labels = [t.ident for t in targets]
    dialects = {t.ident: t.dialect for t in targets}
    v = KeywordValidator()
    keyword_rows = []
    capability_rows: dict[str, CapabilityRow] = {}
    for case_id, request in plan.requests.items():
        if request.keyword is not None:
            probe = request.keyword
            tools = {t.name: t for t in request.tools}
            cells = {
                label: keyword_cell(probe, by_key.get((label, case_id), []), tools, v) for label in labels
            }
            keyword_rows.append(
                KeywordRow(
                    case_id=case_id,
                    probe=probe.id,
                    keyword=probe.keyword,
                    strict=request.strict,
                    tool=probe.tool,
                    cells=cells,
                    derived=probe.pointer is not None,
                    property=probe.property,
                    pointer=probe.pointer,
                )
            )
        elif request.capability is not None and request.capability.id not in capability_rows:
            cap = request.capability
            ids = [cid for cid, r in plan.requests.items() if r.capability is cap]
            cells_c = {
                label: capability_cell(
                    cap,
                    [r for cid in ids for r in by_key.get((label, cid), [])],
                    dialects[label],
                    request.tools,
                    v,
                )
                for label in labels
            }
            capability_rows[cap.id] = CapabilityRow(probe=cap.id, capability=cap.capability, cells=cells_c)
    return CompatReport(
        run_id=run_id,
        run_dir=run_dir,
        repeats=repeats,
        targets=list(targets),
        keywords=keyword_rows,
        capabilities=list(capability_rows.values()),
        suite=_suite_probes(plan),
    )


def _suite_probes(plan: CompatPlan) -> SuiteProbes | None:
    mine = plan.derived
    if mine is None:
        return None
    info = mine.suite.info
    return SuiteProbes(
        name=info.name,
        dataset_version=info.dataset_version,
        dataset_hash=mine.suite.dataset_hash,
        probes=len(mine.probes),
        probes_hash=mine.digest,
    )


def report_from_run(run_dir: Path) -> CompatReport:
    """Re-derive both matrices from a compat run directory (its manifest and records).

    A run with probes derived from a suite loads that suite again; it must still derive the
    probe set the manifest pins (same hash), or the records would be judged by other probes."""
    manifest = read_manifest(run_dir)
    probes = manifest.filters.get("probes") or None
    strict = manifest.filters.get("strict", "both")
    pinned = manifest.filters.get("suite")
    suite = str(pinned["ref"]) if isinstance(pinned, dict) and "ref" in pinned else None
    only_suite = bool(manifest.filters.get("only_suite", False))
    plan = build_plan(probes, strict, suite=suite, only_suite=only_suite)
    if (
        plan.derived is not None
        and isinstance(pinned, dict)
        and plan.derived.digest != pinned.get("probes_hash")
    ):
        raise ConfigError(
            f"suite {suite!r} no longer derives the probes this run pinned (probes hash "
            f"{pinned.get('probes_hash')}, now {plan.derived.digest}); restore the suite the run used",
            path=str(run_dir),
        )
    return classify(
        plan,
        iter_views(run_dir / RECORDS_FILE),
        manifest.targets,
        run_id=manifest.run_id,
        run_dir=str(run_dir),
        repeats=manifest.repeats,
    )


__all__ = [
    "REJECTION_CODES",
    "CapabilityCell",
    "CapabilityRow",
    "CapabilityStatus",
    "CompatReport",
    "KeywordCell",
    "KeywordRow",
    "KeywordStatus",
    "SuiteProbes",
    "capability_cell",
    "classify",
    "expressible",
    "keyword_cell",
    "report_from_run",
]
