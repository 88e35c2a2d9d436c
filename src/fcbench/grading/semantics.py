"""Semantic comparison of one call's arguments with what the case accepts.

Two forms of expectation:

* an exact object: every expected key must be present with a strictly JSON-equal value
  (``missing`` / ``wrong``), and no other key may appear (``unexpected``);
* an assertion object: ``requiredEquals`` keys present and equal, ``oneOf`` keys present with one
  of the listed values, ``optional`` keys free (but checked by ``constraints`` when present),
  ``forbidden`` keys absent; any other key is unexpected. A key named only in ``constraints`` is
  treated as optional. A key listed in ``tolerant`` may hold another value than the expected one:
  the difference is reported in ``wrong`` (with a note) and clears ``params_match``, but the
  arguments still count as satisfying the expectation (``exact``); every other key is strict.

Arguments that are not a JSON object at all (an array, a string, null after a parse error)
satisfy no expectation: every required key counts as missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fcbench.contract import json_type
from fcbench.grading.inputs import ArgumentSpec
from fcbench.grading.jsonvalues import json_equal, short
from fcbench.grading.verdict import WrongValue
from fcbench.schema.patterns import bounded_search
from fcbench.suite.models import ArgumentAssertion, Constraint


@dataclass(frozen=True)
class ArgumentReport:
    """The comparison of one call's arguments (or several calls', merged) with the expectation."""

    exact: bool
    """The arguments satisfy the expectation (a tolerant key's other value allowed)."""
    missing: list[str] = field(default_factory=list)
    wrong: list[WrongValue] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    tolerated: list[str] = field(default_factory=list)
    """Tolerant keys holding another value than expected (also in ``wrong``, with a note)."""

    @property
    def params_match(self) -> bool:
        """Every compared value is exactly as expected, tolerant keys included."""
        return self.exact and not self.tolerated


TOLERATED_NOTE = "tolerant: another valid value is reported, not failed"
"""The note on a :class:`WrongValue` of a tolerant key."""


def _describe(constraint: Constraint) -> dict[str, Any]:
    return constraint.model_dump(exclude_none=True)


def _violations(value: Any, constraint: Constraint, key: str, spec: ArgumentSpec) -> list[str]:
    """What ``value`` breaks in ``constraint`` (empty when it satisfies it)."""
    problems: list[str] = []
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    integral = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if constraint.integer and not (is_number and integral):
        problems.append("is not an integer")
    if constraint.minimum is not None and not (is_number and value >= constraint.minimum):
        problems.append(f"is not a number >= {constraint.minimum:g}")
    if constraint.maximum is not None and not (is_number and value <= constraint.maximum):
        problems.append(f"is not a number <= {constraint.maximum:g}")
    pattern = (spec.patterns or {}).get(key)
    found = (
        bounded_search(pattern.pattern, value) if pattern is not None and isinstance(value, str) else False
    )
    if pattern is not None and found is None:  # a suite pattern that backtracks catastrophically
        problems.append(f"could not be checked against {pattern.pattern!r} in time")
    elif pattern is not None and not found:
        problems.append(f"does not match {pattern.pattern!r}")
    if constraint.enum is not None and not any(json_equal(value, option) for option in constraint.enum):
        problems.append(f"is not one of {short(constraint.enum)}")
    return problems


class _Collector:
    """Accumulates findings for one call, with keys optionally prefixed by the call's position."""

    def __init__(self, prefix: str, tolerant: frozenset[str] = frozenset()) -> None:
        self.prefix = prefix
        self.tolerant = tolerant
        self.tolerated: list[str] = []
        self.missing: list[str] = []
        self.wrong: list[WrongValue] = []
        self.unexpected: list[str] = []
        self.reasons: list[str] = []

    def lack(self, key: str) -> None:
        self.missing.append(self.prefix + key)
        self.reasons.append(f"missing argument {self.prefix}{key}")

    def mismatch(self, key: str, expected: Any, actual: Any, why: str | None = None) -> None:
        why = why or f"{self.prefix}{key}: expected {short(expected)}, got {short(actual)}"
        if key in self.tolerant:
            self.tolerated.append(self.prefix + key)
            note = TOLERATED_NOTE
            self.wrong.append(WrongValue(key=self.prefix + key, expected=expected, actual=actual, note=note))
            self.reasons.append(f"{why} ({note})")
            return
        self.wrong.append(WrongValue(key=self.prefix + key, expected=expected, actual=actual))
        self.reasons.append(why)

    def extra(self, key: str, why: str | None = None) -> None:
        self.unexpected.append(self.prefix + key)
        self.reasons.append(why or f"unexpected argument {self.prefix}{key}")

    def report(self) -> ArgumentReport:
        strict_wrong = len(self.wrong) > len(self.tolerated)
        exact = not (self.missing or strict_wrong or self.unexpected)
        return ArgumentReport(exact, self.missing, self.wrong, self.unexpected, self.reasons, self.tolerated)


def _compare_exact(expected: dict[str, Any], actual: Mapping[str, Any], out: _Collector) -> None:
    for key, value in expected.items():
        if key not in actual:
            out.lack(key)
        elif not json_equal(actual[key], value):
            out.mismatch(key, value, actual[key])
    for key in actual:
        if key not in expected:
            out.extra(str(key))


def _compare_assertion(
    assertion: ArgumentAssertion, spec: ArgumentSpec, actual: Mapping[str, Any], out: _Collector
) -> None:
    for key, value in assertion.requiredEquals.items():
        if key not in actual:
            out.lack(key)
        elif not json_equal(actual[key], value):
            out.mismatch(key, value, actual[key])
    for key, options in assertion.oneOf.items():
        if key in assertion.requiredEquals:
            continue
        if key not in actual:
            out.lack(key)
        elif not any(json_equal(actual[key], option) for option in options):
            out.mismatch(
                key,
                {"oneOf": options},
                actual[key],
                f"{out.prefix}{key}: {short(actual[key])} is not one of {short(options)}",
            )
    allowed = set(assertion.requiredEquals) | set(assertion.oneOf) | set(assertion.optional)
    allowed |= set(assertion.constraints)
    forbidden = set(assertion.forbidden)
    for key, value in actual.items():
        key = str(key)
        if key in forbidden:
            out.extra(key, f"forbidden argument {out.prefix}{key} is present")
        elif key not in allowed:
            out.extra(key)
        elif key in assertion.constraints and key not in assertion.requiredEquals:
            problems = _violations(value, assertion.constraints[key], key, spec)
            if problems:
                why = f"{out.prefix}{key}: {short(value)} " + "; ".join(problems)
                out.mismatch(key, _describe(assertion.constraints[key]), value, why)


def _required_keys(spec: ArgumentSpec) -> list[str]:
    if spec.exact is not None:
        return list(spec.exact)
    if spec.assertion is not None:
        return list(spec.assertion.requiredEquals) + [
            key for key in spec.assertion.oneOf if key not in spec.assertion.requiredEquals
        ]
    return []


def compare_arguments(spec: ArgumentSpec, actual: Any, *, prefix: str = "") -> ArgumentReport:
    """Compare one call's ``actual`` arguments (any JSON value, exactly as produced) with ``spec``.

    ``prefix`` is put in front of every reported key (``calls[1].`` when several calls are graded).
    Never raises on odd model output.
    """
    tolerant = frozenset(spec.assertion.tolerant) if spec.assertion is not None else frozenset()
    out = _Collector(prefix, tolerant)
    if spec.exact is None and spec.assertion is None:
        return out.report()
    if not isinstance(actual, Mapping):
        label = f"{prefix}arguments" if prefix else "arguments"
        out.reasons.append(f"{label} are not a JSON object (got {json_type(actual)})")
        for key in _required_keys(spec):
            out.missing.append(prefix + key)
        return ArgumentReport(False, out.missing, [], [], out.reasons)
    if spec.exact is not None:
        _compare_exact(spec.exact, actual, out)
    elif spec.assertion is not None:
        _compare_assertion(spec.assertion, spec, actual, out)
    return out.report()


def merge_reports(reports: list[ArgumentReport]) -> ArgumentReport | None:
    """Combine the reports of several graded calls; None when no call was graded."""
    if not reports:
        return None
    merged = ArgumentReport(exact=all(r.exact for r in reports))
    for report in reports:
        merged.missing.extend(report.missing)
        merged.wrong.extend(report.wrong)
        merged.unexpected.extend(report.unexpected)
        merged.reasons.extend(report.reasons)
        merged.tolerated.extend(report.tolerated)
    return merged


def error_count(report: ArgumentReport) -> int:
    """How many findings a report holds (used to prefer closer matches)."""
    return len(report.missing) + len(report.wrong) + len(report.unexpected) + (0 if report.exact else 1)
