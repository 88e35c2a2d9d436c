"""What the metrics read from one record beyond its counts: the reasons it failed, its anomaly codes."""

from __future__ import annotations

import json
from typing import Any

from fcbench.grading import RIGHT_DECISIONS
from fcbench.grading.inputs import anomaly_codes

SELECTION_KINDS = frozenset({"tool", "tools", "text", "clarification"})
"""Expected kinds that selection accuracy applies to."""
MAX_REASON_CHARS = 200


def record_anomalies(rec: dict[str, Any]) -> tuple[str, ...]:
    """The anomaly codes of one record: the record's (the adapter's), then the verdict's, each once."""
    found: list[Any] = list(rec.get("anomalies") or [])
    verdict = rec.get("verdict")
    if isinstance(verdict, dict):
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
