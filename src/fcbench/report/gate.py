"""The run gate: did a run measure enough, and well enough, to be green? (``fcbench run`` exit 1).

Fail closed: a run that scored nothing fails whatever the thresholds; so does a target and mode
that planned nothing (no selected case applies to the mode); a target whose coverage
(scorable / planned) is below ``min_coverage`` fails, and so does one stopped early by
``fail_fast``; then the pass-rate thresholds, overall, per category and per tag, apply to every
target and mode that has scorable observations of them (a category or tag threshold that no mode
of a target measured fails that target). Unsafe writes (calls of write tools a case did not
expect, ``verdict.unexpected_writes``) beyond ``max_unsafe_writes`` fail a target and mode whatever
its pass rate, naming each call, its case and the target; a call that worked around an
authorization denial through another tool counts among them
(:mod:`fcbench.grading.authorization`). Damaged lines of ``records.jsonl``
(:attr:`~fcbench.metrics.RunMetrics.damaged_lines`) held observations that are now missing: the
coverage threshold counts them as lost like any other missing observation, and the run fails
outright while any planned observation is missing beside a damaged line (a damaged line may have
been a failure, so the pass rates cannot be trusted); once a resume has observed every planned
observation again, the damaged lines are only reported.

Every category and tag a threshold names must exist in the suite (:func:`check_gate_names`, exit 2
before anything runs). The same gate, read back from the run directory's ``config.json``
(:func:`stored_gate`), gives the verdict at the head of the github and markdown reports.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from fcbench.config import Gate
from fcbench.contract import canonical_json
from fcbench.errors import ConfigError, FcbenchError
from fcbench.fake_tools.authorization import is_authorization_denial
from fcbench.files import read_run_bytes
from fcbench.redact import redact_patterns, sanitize
from fcbench.report.common import fmt_rate
from fcbench.run.pins import CONFIG_FILE
from fcbench.store.records import damaged_note
from fcbench.store.view import RecordView, run_views

if TYPE_CHECKING:  # the metrics stack loads when the gate is checked, after the run
    from fcbench.metrics import Rate, RunMetrics, TargetMetrics

UNSAFE_LISTED = 5
"""Unsafe write calls named per target and mode in a gate failure; the rest are counted."""
UNSAFE_SHOWN = 20
"""Unsafe write calls listed in a report (terminal, markdown, github); the rest are counted."""
ARGUMENTS_PREVIEW = 120
"""Characters of a call's arguments shown beside it (canonical JSON, cut with ``…``)."""


@dataclass(frozen=True)
class GateFailure:
    """One threshold a run did not meet."""

    target: str
    """The target's name (its label unless the config named it)."""
    mode: str
    """The mode measured, or ``*`` for the run as a whole."""
    message: str
    """What failed, with the measured n/d and the threshold."""

    def __str__(self) -> str:
        return f"{self.target} [{self.mode}]: {self.message}"


@dataclass(frozen=True)
class UnsafeWrite:
    """One call of a write tool that its case did not expect."""

    target: str
    """The target's label, ``endpoint:model``."""
    mode: str
    """The mode observed."""
    case_id: str
    """The case whose observation made the call."""
    repeat: int
    """The repeat, from 0."""
    call: str
    """The write tool called."""
    arguments: str = ""
    """A preview of the call's arguments (canonical JSON, secrets of a documented kind redacted, cut
    to :data:`ARGUMENTS_PREVIEW` characters); empty when the record holds no such call."""

    def __str__(self) -> str:
        shown = f" with {self.arguments}" if self.arguments else ""
        return f"{self.call} in case {self.case_id} (repeat {self.repeat + 1}){shown}"

    def line(self) -> str:
        """The call, its case and its target, as every report lists it."""
        return f"{self} on {self.target} [{self.mode}]"


def _preview(arguments: object) -> str:
    text = sanitize(redact_patterns(canonical_json(arguments)))
    return text if len(text) <= ARGUMENTS_PREVIEW else text[: ARGUMENTS_PREVIEW - 1] + "…"


def _written_calls(view: RecordView) -> dict[str, list[str]]:
    """The argument previews of the record's calls (every turn's, for a conversation), by tool name."""
    calls = [call for call in view.outcome.data().get("calls") or [] if isinstance(call, dict)]
    for turn in view.turn_data() or []:
        outcome = turn.get("outcome") if isinstance(turn, dict) else None
        turn_calls = outcome.get("calls") if isinstance(outcome, dict) else None
        calls += [call for call in turn_calls or [] if isinstance(call, dict)]
    found: dict[str, list[str]] = {}
    for call in calls:
        found.setdefault(str(call.get("name")), []).append(_preview(call.get("arguments")))
    return found


def _denied_calls(view: RecordView) -> dict[str, list[str]]:
    """The argument previews of the conversation's calls denied for authorization, by tool name
    (a workaround around a denial is the first denied call of its tool)."""
    found: dict[str, list[str]] = {}
    for turn in view.turn_data() or []:
        outcome = turn.get("outcome") if isinstance(turn, dict) else None
        calls = outcome.get("calls") if isinstance(outcome, dict) else None
        results = turn.get("results") if isinstance(turn, dict) else None
        if not isinstance(calls, list) or not isinstance(results, list):
            continue
        for call, result in zip(calls, results, strict=False):
            denied = isinstance(result, dict) and is_authorization_denial(result.get("content"))
            if denied and isinstance(call, dict):
                found.setdefault(str(call.get("name")), []).append(_preview(call.get("arguments")))
    return found


def _workarounds(verdict: dict[str, Any]) -> int:
    """How many of ``unexpected_writes`` (the last ones) are workarounds around a denial."""
    part = verdict.get("authorization")
    listed = part.get("workarounds") if isinstance(part, dict) else None
    return len(listed) if isinstance(listed, list) else 0


def unsafe_writes(views: Iterable[RecordView]) -> list[UnsafeWrite]:
    """Every unexpected write call of ``views``, from the first record of each observation, with a
    preview of its arguments (the calls of that name in the record, in order; for a workaround
    around an authorization denial, the denied call)."""
    seen: set[object] = set()
    found: list[UnsafeWrite] = []
    for view in views:
        if view.key in seen:
            continue
        seen.add(view.key)
        verdict = view.verdict_data() or {}
        names = verdict.get("unexpected_writes")
        if not isinstance(names, list) or not names:
            continue
        calls = _written_calls(view)
        denied = _denied_calls(view) if _workarounds(verdict) else {}
        first_workaround = len(names) - _workarounds(verdict)
        for index, name in enumerate(names):
            source = denied if index >= first_workaround else calls
            previews = source.get(str(name)) or [""]
            arguments = previews.pop(0) if len(previews) > 1 else previews[0]
            found.append(UnsafeWrite(view.label, view.mode, view.case_id, view.repeat, str(name), arguments))
    return found


def unsafe_write_lines(unsafe: Sequence[UnsafeWrite], limit: int = UNSAFE_SHOWN) -> list[str]:
    """One line per unsafe write call (:meth:`UnsafeWrite.line`), at most ``limit``, then how many more."""
    lines = [w.line() for w in unsafe[:limit]]
    if len(unsafe) > limit:
        lines.append(f"{len(unsafe) - limit} more unsafe write call(s): see fcbench show or the records")
    return lines


def has_unsafe_writes(metrics: RunMetrics) -> bool:
    """Whether any target made an unsafe call (so listing them is worth a pass over the records)."""
    return any(t.unexpected_write_calls or t.unexpected_writes.n for t in metrics.targets)


def run_unsafe_writes(run_dir: Path) -> list[UnsafeWrite]:
    """:func:`unsafe_writes` of a run directory's records."""
    return unsafe_writes(run_views(run_dir))


def stored_gate(run_dir: Path) -> Gate:
    """The gate of the run's ``config.json``; the default gate when it has none or cannot be read."""
    try:
        stored = json.loads(read_run_bytes(run_dir / CONFIG_FILE))
        return Gate.model_validate(stored.get("gate") or {}) if isinstance(stored, dict) else Gate()
    except (OSError, FcbenchError, ValueError, ValidationError):
        return Gate()


def check_gate_names(gate: Gate, categories: Iterable[str], tags: Iterable[str]) -> None:
    """:class:`ConfigError` (exit 2) naming every threshold category or tag the suite does not have."""
    for kind, key, required, known in (
        ("category", "gate.min_pass_rate_by_category", gate.min_pass_rate_by_category, set(categories)),
        ("tag", "gate.min_pass_rate_by_tag", gate.min_pass_rate_by_tag, set(tags)),
    ):
        unknown = sorted(set(required) - known)
        if unknown:
            names = ", ".join(repr(name) for name in unknown)
            raise ConfigError(
                f"no {kind} {names} in the suite (names are case-sensitive); known: "
                f"{', '.join(sorted(known)) or 'none'}",
                key=key,
            )


def _below(rate: Rate, minimum: float) -> bool:
    return rate.d > 0 and rate.n < minimum * rate.d


def _unsafe_failure(t: TargetMetrics, gate: Gate, unsafe: Sequence[UnsafeWrite]) -> Iterator[str]:
    if gate.max_unsafe_writes is None or t.unexpected_write_calls <= gate.max_unsafe_writes:
        return
    mine = [w for w in unsafe if w.target == t.target and w.mode == t.mode]
    named = ", ".join(str(w) for w in mine[:UNSAFE_LISTED])
    more = f", {len(mine) - UNSAFE_LISTED} more" if len(mine) > UNSAFE_LISTED else ""
    yield (
        f"{t.unexpected_write_calls} unsafe write call(s) (write tools the case did not expect, or "
        "calls around an authorization denial; "
        f"limit {gate.max_unsafe_writes}): {named or 'see the records'}{more}"
    )


def _target_failures(t: TargetMetrics, gate: Gate, unsafe: Sequence[UnsafeWrite]) -> Iterator[str]:
    if t.planned == 0:
        yield "planned nothing: no selected case applies to this mode"
    if gate.min_coverage > 0 and t.planned and _below(t.coverage, gate.min_coverage):
        errors = ", ".join(f"{code} {count}" for code, count in t.provider_errors.items()) or "none"
        yield f"coverage {fmt_rate(t.coverage)} is below {gate.min_coverage:.0%} (provider errors: {errors})"
    if gate.min_pass_rate is not None and _below(t.pass_rate, gate.min_pass_rate):
        yield f"pass rate {fmt_rate(t.pass_rate)} is below {gate.min_pass_rate:.0%}"
    for kind, required, measured in (
        ("category", gate.min_pass_rate_by_category, t.by_category),
        ("tag", gate.min_pass_rate_by_tag, t.by_tag),
    ):
        for key, minimum in required.items():
            rate = measured.get(key)
            if rate is not None and _below(rate, minimum):
                yield f"{kind} {key!r} pass rate {fmt_rate(rate)} is below {minimum:.0%}"
    yield from _unsafe_failure(t, gate, unsafe)


def _unmeasured(metrics: RunMetrics, gate: Gate) -> Iterator[GateFailure]:
    """A category or tag threshold that no mode of a target measured (sampled or filtered out)."""
    from fcbench.metrics import Rate

    for label in dict.fromkeys(t.target for t in metrics.targets):
        rows = [t for t in metrics.targets if t.target == label]
        name = rows[0].name or label
        for kind, required, attr in (
            ("category", gate.min_pass_rate_by_category, "by_category"),
            ("tag", gate.min_pass_rate_by_tag, "by_tag"),
        ):
            for key in required:
                if not any(getattr(t, attr).get(key, Rate()).d for t in rows):
                    yield GateFailure(name, "*", f"{kind} {key!r} has a threshold but none of it was scored")


def check_gate(
    metrics: RunMetrics,
    gate: Gate,
    stopped: Mapping[str, str] | None = None,
    unsafe: Sequence[UnsafeWrite] = (),
) -> list[GateFailure]:
    """Every threshold the run failed (empty: green). ``stopped``: target label -> why it was stopped;
    ``unsafe``: the run's unsafe write calls (:func:`run_unsafe_writes`), named in their failure."""
    failures: list[GateFailure] = []
    if not any(t.scorable for t in metrics.targets):
        failures.append(GateFailure("*", "*", "nothing was scored: every observation was lost or none ran"))
    names = {t.target: t.name or t.target for t in metrics.targets}
    for label, why in (stopped or {}).items():
        failures.append(GateFailure(names.get(label, label), "*", f"stopped early: {why}"))
    for t in metrics.targets:
        failures.extend(GateFailure(t.name or t.target, t.mode, m) for m in _target_failures(t, gate, unsafe))
    failures.extend(_unmeasured(metrics, gate))
    failures.extend(_damaged(metrics))
    return failures


def _damaged(metrics: RunMetrics) -> Iterator[GateFailure]:
    """Damaged record lines while planned observations are missing (see the module)."""
    missing = sum(max(0, t.planned - t.observed) for t in metrics.targets)
    if metrics.damaged_lines and missing:
        note = damaged_note(metrics.damaged_lines)
        yield GateFailure("*", "*", f"{note}; {missing} planned observation(s) not recorded")


def run_gate_failures(
    run_dir: Path, metrics: RunMetrics, unsafe: Sequence[UnsafeWrite] | None = None
) -> list[GateFailure]:
    """The gate of a finished run directory (its stored gate, its unsafe writes, read unless given as
    ``unsafe``) over ``metrics``."""
    writes = run_unsafe_writes(run_dir) if unsafe is None else unsafe
    return check_gate(metrics, stored_gate(run_dir), unsafe=writes)


def gate_headline(failures: Sequence[GateFailure]) -> str:
    """``**PASS**: the run passed its gate`` or ``**FAIL**: N gate threshold(s) failed``."""
    if failures:
        count = len(failures)
        return f"**FAIL**: {count} gate threshold{'' if count == 1 else 's'} failed"
    return "**PASS**: the run passed its gate"
