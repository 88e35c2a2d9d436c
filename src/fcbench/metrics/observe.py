"""What the metrics read from one record beyond its counts: the reasons it failed, its anomaly codes,
and the facts of its verdict (:class:`VerdictFacts`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from fcbench.grading import RIGHT_DECISIONS
from fcbench.grading.inputs import anomaly_codes
from fcbench.grading.repairs import repair_counts
from fcbench.store.view import RecordView

RecordObserver = Callable[[RecordView], None]
"""Called with every record read (re-graded, when a profile re-grades), before aggregation (lets a
report collect drill-down rows)."""

SELECTION_KINDS = frozenset({"tool", "tools", "text", "clarification"})
"""Expected kinds that selection accuracy applies to."""
MAX_REASON_CHARS = 200


def record_anomalies(rec: RecordView) -> tuple[str, ...]:
    """The anomaly codes of one record: the record's (the adapter's), then the verdict's, each once."""
    found: list[Any] = rec.anomaly_data()
    verdict = rec.verdict_data()
    if verdict is not None:
        found += list(verdict.get("anomalies") or [])
    return anomaly_codes(a for a in found if isinstance(a, dict | str))


def failure_reasons(verdict: dict[str, Any]) -> list[str]:
    """Short, human-readable reasons an observation failed.

    The verdict's own ``reasons`` when it has them; otherwise derived from the decision, schema
    errors, missing, wrong and unexpected keys and a failed recovery.
    """
    given = verdict.get("reasons")
    reasons: list[str] = [str(r) for r in given] if isinstance(given, list) and given else []
    if not reasons:
        decision = verdict.get("decision")
        if decision and decision not in RIGHT_DECISIONS:
            reasons.append(str(decision))
        reasons += [f"schema: {e}" for e in verdict.get("schema_errors") or []]
        reasons += [f"missing: {k}" for k in verdict.get("missing") or []]
        for w in verdict.get("wrong") or []:
            if isinstance(w, dict):
                expected = json.dumps(w.get("expected"), ensure_ascii=False)
                actual = json.dumps(w.get("actual"), ensure_ascii=False)
                reasons.append(f"wrong {w.get('key')}: expected {expected}, got {actual}")
            else:
                reasons.append(f"wrong: {w}")
        reasons += [f"unexpected: {k}" for k in verdict.get("unexpected") or []]
        recovery = verdict.get("recovery")
        if isinstance(recovery, dict) and not recovery.get("success"):
            reasons.append(f"recovery: {recovery.get('outcome')}")
    if not reasons:
        reasons.append("failed")
    return [r if len(r) <= MAX_REASON_CHARS else r[: MAX_REASON_CHARS - 1] + "…" for r in reasons]


class VerdictFacts:
    """What the metrics take from one verdict (a record's ``verdict`` value), derived once.

    Built once per distinct verdict text, since the repeats of a case mostly carry the same
    verdict. What the record pass read only in some branches, and that can fail on a malformed
    verdict (its repairs and failure reasons when scored, its anomalies when accepted), is derived
    here too; a failure is kept (``unscorable``, :meth:`anomalies`) and raised in the branch where
    the record pass raised it.
    """

    __slots__ = (
        "_anomalies",
        "anomalous",
        "authorization",
        "decision",
        "decision_text",
        "is_dict",
        "is_none",
        "limit_hits",
        "params_match",
        "passed",
        "reasons",
        "recovery",
        "repairs",
        "replayed",
        "schema_valid",
        "scores",
        "semantic_exact",
        "side_effects",
        "unexpected_writes",
        "unscorable",
    )

    def __init__(self, verdict: Any) -> None:
        self.is_none = verdict is None
        self.is_dict = isinstance(verdict, dict)
        v: dict[str, Any] = verdict if self.is_dict else {}
        self.decision = v.get("decision")
        self.decision_text = str(self.decision)
        self.scores = self.is_dict and self.decision is not None and self.decision != "not_scored"
        """Whether an accepted observation with this verdict is scored (else it counts as a harness error)."""
        self.passed = v.get("passed") is True
        self.schema_valid = v.get("schema_valid") is True
        self.semantic_exact = v.get("semantic_exact") is True
        params_match = v.get("params_match")
        self.params_match = None if params_match is None else params_match is True
        recovery = v.get("recovery")
        self.recovery = (
            (recovery.get("success") is True, str(recovery.get("outcome")))
            if isinstance(recovery, dict)
            else None
        )
        writes = v.get("unexpected_writes")
        self.unexpected_writes = len(writes) if isinstance(writes, list) else 0
        """Calls of write tools the case did not expect (``verdict.unexpected_writes``)."""
        recovered = recovery if isinstance(recovery, dict) else {}
        self.side_effects = _count(recovered.get("side_effects"))
        """State changes the conversation's fake tools made (``verdict.recovery.side_effects``)."""
        self.replayed = _count(recovered.get("replayed"))
        """Write deliveries answered from the idempotency table (``verdict.recovery.replayed``)."""
        self.limit_hits = _limit_hits(recovered.get("limits_hit"))
        self.authorization = _authorization(v.get("authorization"))
        """``(probes, failed the probe, workaround calls)`` of ``verdict.authorization`` (a probe: the
        case says ``identity.probe``; failed: at least one probe failure), or None without one."""
        """Conversation limit -> times hit (``verdict.recovery.limits_hit``)."""
        repairs = attempt(repair_counts, v)
        reasons = () if self.passed else attempt(_reason_tuple, v)
        self.repairs: dict[str, int] = {} if isinstance(repairs, BaseException) else repairs
        """Repair kind -> repairs in this verdict (:func:`fcbench.grading.repairs.repair_counts`)."""
        self.reasons: tuple[str, ...] = () if isinstance(reasons, BaseException) else reasons
        """:func:`failure_reasons` of a failing verdict; empty when it passed."""
        self.unscorable = next((e for e in (repairs, reasons) if isinstance(e, BaseException)), None)
        """What scoring an observation with this verdict raises (repairs or reasons unreadable), or None."""
        self._anomalies: list[Any] | BaseException = attempt(anomaly_list, v.get("anomalies"))
        self.anomalous = self.is_dict and bool(self._anomalies)
        """Whether :meth:`anomalies` lists any (or raises)."""

    def anomalies(self) -> list[Any]:
        """The verdict's own anomaly entries, as listed."""
        return kept_value(self._anomalies)


def _authorization(value: Any) -> tuple[bool, bool, int] | None:
    if not isinstance(value, dict):
        return None
    failures, workarounds = value.get("probe_failures"), value.get("workarounds")
    return (
        value.get("probe") is True,
        isinstance(failures, list) and bool(failures),
        len(workarounds) if isinstance(workarounds, list) else 0,
    )


def _count(value: Any) -> int:
    """A recorded count, or 0 when it is not a non-negative integer."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _limit_hits(value: Any) -> dict[str, int]:
    """Limit name -> entries naming it in a recorded ``limits_hit`` list (anything else is skipped)."""
    counts: dict[str, int] = {}
    for hit in value if isinstance(value, list) else ():
        name = hit.get("limit") if isinstance(hit, dict) else None
        if isinstance(name, str):
            counts[name] = counts.get(name, 0) + 1
    return counts


def anomaly_list(value: Any) -> list[Any]:
    """A record's ``anomalies`` value as the list :func:`record_anomalies` reads."""
    return list(value or [])


def codes_of(record: list[Any], verdict: VerdictFacts) -> tuple[str, ...]:
    """:func:`record_anomalies` of a record whose anomaly list is ``record`` and verdict ``verdict``."""
    found = record + verdict.anomalies() if verdict.is_dict else record
    return anomaly_codes(a for a in found if isinstance(a, dict | str))


def _reason_tuple(verdict: dict[str, Any]) -> tuple[str, ...]:
    return tuple(failure_reasons(verdict))


_T = TypeVar("_T")


def attempt(derive: Callable[[Any], _T], value: Any) -> _T | BaseException:
    """``derive(value)``, or the exception it raised (kept, to be raised where the record pass raised it)."""
    try:
        return derive(value)
    except Exception as exc:
        return exc


def kept_value(kept: _T | BaseException) -> _T:
    """What :func:`attempt` kept: the value, or its exception raised now."""
    if isinstance(kept, BaseException):
        raise kept
    return kept
