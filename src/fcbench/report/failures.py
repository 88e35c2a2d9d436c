"""Where a target's observations fail: one failure type per observation that did not pass.

The types, in the order the reports show them (:data:`FAILURE_GROUPS`):

* ``acceptance``: the provider refused the request as sent (:data:`REFUSED_CODES`: the tools'
  schema, a malformed or too large request) or could not parse what the model wrote;
* ``decision: D``: the model's decision was wrong (``wrong_tool``, ``missed_call``,
  ``unexpected_call``, ...), split by decision;
* ``schema``: the decision was right but a call broke its tool's schema;
* ``arguments``: the decision was right, the calls schema-valid, the arguments wrong;
* ``recovery``: a multi-turn conversation did not reach its success rule (or a turn failed);
* ``coverage loss``: any other provider or harness error (rate limits, timeouts, server errors),
  never a model failure.

The model-facing types follow :func:`fcbench.history.patterns.failure_type` (the history's
failure types), with its ``bad_arguments`` split into schema and arguments. The terminal summary
and the HTML report count them with :class:`FailureCounts`, one pass over the records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fcbench.contract import MODEL_CAUSED_ERRORS
from fcbench.history.patterns import failure_type
from fcbench.store.view import RecordView

REFUSED_CODES = frozenset({"schema_rejected", "bad_request", "too_large", *MODEL_CAUSED_ERRORS})
"""Provider error codes counted as ``acceptance`` rather than coverage loss."""
FAILURE_GROUPS = ("acceptance", "decision", "schema", "arguments", "recovery", "coverage loss")
"""The failure groups in report order (a ``decision: D`` type belongs to ``decision``)."""


def failure_group(kind: str) -> str:
    """The group of failure type ``kind`` (``decision: wrong_tool`` -> ``decision``)."""
    return kind.split(":", 1)[0]


def failure_of(
    decision: str, passed: bool | None, verdict: Mapping[str, Any] | None, error_code: object
) -> str | None:
    """The failure type of one observation (None when it passed): ``decision`` is the observation's
    decision, ``not_scored`` for a provider or harness error, whose code is ``error_code``."""
    if decision == "not_scored" or verdict is None:
        return "acceptance" if error_code in REFUSED_CODES else "coverage loss"
    if passed is True:
        return None
    kind = failure_type(verdict)
    if kind == "bad_arguments":
        return "schema" if verdict.get("schema_valid") is False else "arguments"
    if kind.startswith("recovery"):
        return "recovery"
    return f"decision: {kind}"


def record_failure(rec: RecordView) -> str | None:
    """:func:`failure_of` one record."""
    verdict = rec.verdict_data()
    provider_error = rec.outcome.kind == "provider_error"
    decision = verdict.get("decision") if verdict and not provider_error else None
    code = rec.outcome.code if provider_error else None
    return failure_of(
        str(decision or "not_scored"), verdict.get("passed") if verdict else None, verdict, code
    )


def ordered(counts: Mapping[str, int]) -> list[tuple[str, int]]:
    """``counts`` (failure type -> observations) in report order: by group, then most first."""
    rank = {group: i for i, group in enumerate(FAILURE_GROUPS)}
    return sorted(counts.items(), key=lambda item: (rank.get(failure_group(item[0]), 99), -item[1], item[0]))


def failure_line(counts: Mapping[str, int]) -> str:
    """``decision 5 (missed_call 3, wrong_tool 2) · schema 2 · coverage loss 1``, or ``none``."""
    groups: dict[str, list[tuple[str, int]]] = {}
    for kind, n in ordered(counts):
        groups.setdefault(failure_group(kind), []).append((kind, n))
    parts = []
    for group, kinds in groups.items():
        total = sum(n for _, n in kinds)
        detail = [f"{kind.split(': ', 1)[1]} {n}" for kind, n in kinds if ": " in kind]
        parts.append(f"{group} {total}" + (f" ({', '.join(detail)})" if detail else ""))
    return " · ".join(parts) or "none"


@dataclass
class FailureCounts:
    """Failure types per target label and mode, counted one record at a time."""

    counts: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    """(target label, mode) -> failure type -> observations."""
    observed: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(target label, mode) -> observations seen."""

    def add(self, label: str, mode: str, failure: str | None) -> None:
        """Count one observation of ``label`` in ``mode`` that failed with ``failure`` (None: passed)."""
        key = (label, mode)
        self.observed[key] += 1
        found = self.counts.setdefault(key, Counter())
        if failure is not None:
            found[failure] += 1

    def __call__(self, rec: RecordView) -> None:
        """Count one record."""
        self.add(rec.label, str(rec.mode), record_failure(rec))

    def of(self, label: str, mode: str) -> Counter[str]:
        """The failure types of ``label`` in ``mode`` (empty when none were seen)."""
        return self.counts.get((label, mode), Counter())
