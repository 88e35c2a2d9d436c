"""JUnit XML report: one ``<testsuite>`` per target and mode, one ``<testcase>`` per case in it.

``classname`` is the target label, ``name`` is ``"<case id> [<mode>]"``. A test case is

* a ``<failure>`` when any scorable repeat failed (the message lists the failure reasons);
* else an ``<error>`` when any repeat was lost to a provider or harness error (decision
  ``not_scored``): ``type`` is the error code of the first lost repeat (``rate_limited``,
  ``harness``, ...), ``message`` its error message, and the text lists every lost repeat;
* else it passed.

Each unsafe write call (a write tool its case did not expect) adds a ``<failure>`` of type
``fcbench.unsafe_write`` to its case's ``<testcase>``, naming the call with its arguments, the case
and the target; the case counts as failed whatever its pass rate.

Nothing is ``<skipped>``: a lost observation is an error for CI, not a test that chose not to run.
Every ``<testcase>`` carries ``time``, the latency of its counted repeats in seconds (summed); every
``<testsuite>`` and the ``<testsuites>`` root carry the sum of theirs, and ``tests``, ``failures``,
``errors`` and ``skipped`` counts; each ``<testsuite>``'s properties include ``anomaly.<code>``
(the accepted observations carrying that anomaly code). The observations are read through the
metrics' record observer with the same de-duplication as the metrics: a later record of one
(target, case, repeat, mode) replaces an earlier error, any other duplicate is ignored. Damaged
lines of ``records.jsonl`` (not JSON, a torn last line) add a ``<testsuite>`` named after the
file with one ``<testcase>`` in ``<error>`` (type ``damaged_lines``) that says how many.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from fcbench.metrics import CaseSummary, RunMetrics, TargetMetrics, compute_metrics
from fcbench.report.common import strip_control
from fcbench.report.gate import UnsafeWrite, run_unsafe_writes
from fcbench.report.tool_order import tool_order_properties
from fcbench.store.records import RECORDS_FILE, damaged_note
from fcbench.store.view import RecordView, decoded

MAX_MESSAGE_CHARS = 1000


@dataclass
class Observed:
    """What JUnit needs of one counted observation."""

    latency_ms: float
    error: tuple[str, str, int | None] | None
    """``(code, message, HTTP status)`` when the observation was lost to a provider or harness error."""


@dataclass
class JunitObservations:
    """Collects latency and error details per observation (a :data:`fcbench.metrics.RecordObserver`)."""

    seen: dict[tuple[str, str, str], dict[int, Observed]] = field(default_factory=dict)

    def __call__(self, rec: RecordView) -> None:
        """Observe one record, the way the metrics de-duplicate it."""
        key = (rec.label, str(rec.mode), str(rec.case_id))
        repeats = self.seen.setdefault(key, {})
        repeat = rec.repeat
        prior = repeats.get(repeat)
        if prior is not None and prior.error is None:
            return
        latency = rec.latency_ms
        repeats[repeat] = Observed(
            latency_ms=float(latency) if isinstance(latency, int | float) else 0.0, error=_error_of(rec)
        )

    def of(self, case: CaseSummary) -> dict[int, Observed]:
        """The counted observations of one case x target x mode, by repeat."""
        return self.seen.get((case.target, case.mode, case.case_id), {})


def _error_of(rec: RecordView) -> tuple[str, str, int | None] | None:
    """``(code, message, status)`` of an unscorable record (codes as in the metrics' ``provider_errors``)."""
    outcome = rec.outcome
    verdict = decoded(rec.verdict)
    if outcome.kind == "provider_error":
        status = outcome.status
        code = str(outcome.code or "unknown")
        return code, str(outcome.message or code), status if isinstance(status, int) else None
    decision = verdict.get("decision") if isinstance(verdict, dict) else None
    if isinstance(verdict, dict) and decision not in (None, "not_scored"):
        return None
    if verdict is None and not rec.error:
        return "ungraded", "the observation has no verdict", None
    reasons = verdict.get("reasons") if isinstance(verdict, dict) else None
    message = rec.error or (reasons[0] if isinstance(reasons, list) and reasons else "not scored")
    return "harness", str(message), None


def render_junit_run(run_dir: Path, modes: list[str] | None = None, profile: str = "strict") -> str:
    """The JUnit XML report of a run directory (only ``modes``, scored by ``profile``)."""
    observations = JunitObservations()
    metrics = compute_metrics(run_dir, modes=modes, observer=observations, profile=profile)
    return render_junit(metrics, observations, run_unsafe_writes(run_dir))


def render_junit(
    metrics: RunMetrics, observations: JunitObservations, unsafe: Sequence[UnsafeWrite] = ()
) -> str:
    """The JUnit XML document (UTF-8 text with an XML declaration); ``unsafe``: the run's unsafe
    write calls, each a ``<failure>`` of its case's ``<testcase>``."""
    by_case: dict[tuple[str, str, str], list[UnsafeWrite]] = {}
    for write in unsafe:
        by_case.setdefault((write.target, write.mode, write.case_id), []).append(write)
    root = ET.Element("testsuites", name=_clean(f"fcbench {metrics.run.run_id}"))
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    total_ms = 0.0
    timestamp = _timestamp(metrics.run.started_at)
    for t in metrics.targets:
        cases = [c for c in metrics.cases if c.target == t.target and c.mode == t.mode]
        suite = ET.SubElement(root, "testsuite", name=_clean(f"{t.target} [{t.mode}]"))
        counts = dict.fromkeys(totals, 0)
        suite_ms = 0.0
        _properties(suite, metrics, t)
        for case in cases:
            counts["tests"] += 1
            status, ms = _add_case(suite, case, observations.of(case))
            writes = by_case.get((case.target, case.mode, case.case_id), [])
            if writes:
                _add_unsafe_writes(suite[-1], writes)
                status = "failures"
            suite_ms += ms
            if status:
                counts[status] += 1
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", _seconds(suite_ms))
        if timestamp:
            suite.set("timestamp", timestamp)
        total_ms += suite_ms
    if metrics.damaged_lines:
        _damaged_suite(root, metrics.damaged_lines)
        totals["tests"] += 1
        totals["errors"] += 1
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", _seconds(total_ms))
    if timestamp:
        root.set("timestamp", timestamp)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _damaged_suite(root: ET.Element, count: int) -> None:
    """A suite of one test in error for the damaged lines of ``records.jsonl`` (CI shows it)."""
    suite = ET.SubElement(root, "testsuite", name=RECORDS_FILE, tests="1", failures="0", errors="1")
    suite.set("skipped", "0")
    suite.set("time", _seconds(0))
    case = ET.SubElement(suite, "testcase", name="damaged record lines", classname=RECORDS_FILE)
    ET.SubElement(case, "error", message=damaged_note(count), type="damaged_lines")


def _properties(suite: ET.Element, metrics: RunMetrics, t: TargetMetrics) -> None:
    values = {
        "run_id": metrics.run.run_id,
        "suite": metrics.run.suite,
        "dataset_version": metrics.run.dataset_version,
        "target": t.target,
        "name": t.name or t.target,
        "endpoint": t.endpoint,
        "model": t.model,
        "mode": t.mode,
        "repeats": str(metrics.run.repeats),
        "planned": str(t.planned),
        "observed": str(t.observed),
        "scorable": str(t.scorable),
    }
    values |= {f"anomaly.{code}": str(n) for code, n in t.anomalies.items()}
    values |= tool_order_properties(metrics, t.target, t.mode)
    props = ET.SubElement(suite, "properties")
    for name, value in values.items():
        ET.SubElement(props, "property", name=_clean(name), value=_clean(value))


def _add_case(
    suite: ET.Element, case: CaseSummary, observed: dict[int, Observed]
) -> tuple[str | None, float]:
    """Append one ``<testcase>``; return (``"failures"``, ``"errors"`` or None, its time in ms)."""
    ms = sum(o.latency_ms for o in observed.values())
    el = ET.SubElement(
        suite,
        "testcase",
        classname=_clean(case.target),
        name=_clean(f"{case.case_id} [{case.mode}]"),
        time=_seconds(ms),
    )
    errors = sorted(((r, o.error) for r, o in observed.items() if o.error is not None), key=lambda e: e[0])
    lost = ""
    if case.errors:
        noun = "repeat" if case.errors == 1 else "repeats"
        lost = f"{case.errors} {noun} lost to provider or harness errors"
    if case.passed.n < case.passed.d:
        failed = case.passed.d - case.passed.n
        reasons = "; ".join(f"{r} (x{n})" for r, n in case.reasons.items())
        message = f"{failed} of {case.passed.d} repeats failed: {reasons}" + (f"; {lost}" if lost else "")
        failure = ET.SubElement(
            el, "failure", type="fcbench.failed", message=_clean(message, MAX_MESSAGE_CHARS)
        )
        decisions = ", ".join(f"{d}: {n}" for d, n in case.decisions.items())
        text = f"prompt: {case.prompt}\ndecisions: {decisions}\nreasons: {reasons}"
        failure.text = _clean(text + "".join(_error_lines(errors)))
        return "failures", ms
    if case.errors:
        code, message, _ = errors[0][1] if errors else ("provider_error", lost, None)
        error = ET.SubElement(el, "error", type=_clean(code), message=_clean(message, MAX_MESSAGE_CHARS))
        scored = f"{case.passed.n} of {case.passed.d} scorable repeats passed; {lost}"
        error.text = _clean(f"prompt: {case.prompt}\n{scored}" + "".join(_error_lines(errors)))
        return "errors", ms
    return None, ms


def _add_unsafe_writes(el: ET.Element, writes: Sequence[UnsafeWrite]) -> None:
    """One ``<failure>`` (type ``fcbench.unsafe_write``) per unsafe write call in testcase ``el``:
    the call with its arguments, the case and the target (the case counts as failed)."""
    for write in writes:
        failure = ET.SubElement(
            el,
            "failure",
            type="fcbench.unsafe_write",
            message=_clean(f"unsafe write: {write.line()}", MAX_MESSAGE_CHARS),
        )
        failure.text = _clean(
            f"{write.call} is a write tool the case did not expect (it would have changed state)\n"
            f"arguments: {write.arguments or '(not recorded)'}\ncase: {write.case_id}, repeat "
            f"{write.repeat + 1}\ntarget: {write.target} [{write.mode}]"
        )


def _error_lines(errors: list[tuple[int, tuple[str, str, int | None]]]) -> list[str]:
    return [
        f"\nrepeat {r}: {code}{'' if status is None else f' (HTTP {status})'}: {message}"
        for r, (code, message, status) in errors
    ]


def _seconds(ms: float) -> str:
    return f"{max(ms, 0.0) / 1000.0:.3f}"


def _timestamp(text: str) -> str | None:
    """ISO 8601 with an offset, to the second (``2026-01-01T00:00:00+00:00``); None when unparsable."""
    try:
        return datetime.fromisoformat(text).isoformat(timespec="seconds")
    except ValueError:
        return None


def _clean(text: str, limit: int | None = None) -> str:
    text = strip_control(text)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text
