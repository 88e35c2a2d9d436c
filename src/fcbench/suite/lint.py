"""What ``fcbench cases validate`` checks beyond loading: category counts against the suite's
declared minimums (a shortfall fails validation), and patterns that may backtrack catastrophically
(advice only).

Such a pattern is still matched safely at run time (under a deadline, see
:mod:`fcbench.schema.patterns`), but a value it cannot be checked against in time is reported as
a schema error, which is the suite's fault, not the model's: ``fcbench cases validate`` says so
before any run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any, get_args

from fcbench.schema.patterns import has_nested_quantifier
from fcbench.suite.loader import Suite
from fcbench.suite.models import Category

CATEGORIES: tuple[str, ...] = get_args(Category)
"""Case categories in reporting order."""


def category_counts(suite: Suite) -> dict[str, int]:
    """Cases per category, single-turn and recovery together, every category present."""
    counts: Counter[str] = Counter(str(case.category) for case in suite.cases)
    return {name: counts.get(name, 0) for name in CATEGORIES}


def minimum_shortfalls(suite: Suite) -> list[str]:
    """One line per category with fewer cases than ``suite.json``'s ``minimums`` promises."""
    counts = category_counts(suite)
    return [
        f"minimums.{name}: {counts[name]} {name} cases, the suite promises at least {least}"
        for name, least in suite.info.minimums.items()
        if counts[name] < least
    ]


def _patterns(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """``(where, pattern)`` for every ``pattern`` value and ``patternProperties`` key in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "pattern" and isinstance(item, str):
                yield where, item
            elif key == "patternProperties" and isinstance(item, dict):
                yield from ((f"{where}/patternProperties", name) for name in item)
            yield from _patterns(item, f"{where}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _patterns(item, f"{where}/{index}")


def pattern_warnings(suite: Suite) -> list[str]:
    """One line per pattern of the suite's tools and cases that quantifies a quantified group."""
    found: list[tuple[str, str]] = []
    for set_name, tools in suite.tool_sets.items():
        for tool in tools:
            found += _patterns(tool.parameters, f"tool set {set_name}: {tool.name}: parameters")
    for case in suite.cases:
        found += _patterns(case.expected.model_dump(mode="json"), f"case {case.id}: expected")
    seen: set[tuple[str, str]] = set()
    warnings = []
    for where, pattern in found:
        if (where, pattern) not in seen and has_nested_quantifier(pattern):
            seen.add((where, pattern))
            warnings.append(
                f"{where}: pattern {pattern!r} has nested quantifiers and may backtrack catastrophically"
            )
    return warnings
