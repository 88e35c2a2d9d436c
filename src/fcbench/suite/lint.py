"""What ``fcbench cases validate`` checks beyond loading: category counts against the suite's
declared minimums (a shortfall fails validation), patterns that may backtrack catastrophically
(advice only), and read tools that look like writes (advice only).

A tool marked ``read`` whose name, or the first sentence of whose description, holds one of
:data:`WRITE_VERBS` (as a word, or with ``s``, ``es``, ``d``, ``ed`` or ``ing``: ``cancel_order``,
``"Sends an email."``) is named in a warning: a pasted list or a log import may have lost its
write status, and a read tool's unasked calls never count as unsafe writes. Its name never makes
it a write (:attr:`fcbench.contract.Tool.writes`); ``writes:`` or ``side_effect: write`` does.

Such a pattern is still matched safely at run time (under a deadline, see
:mod:`fcbench.schema.patterns`), but a value it cannot be checked against in time is reported as
a schema error, which is the suite's fault, not the model's: ``fcbench cases validate`` says so
before any run.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, get_args

from fcbench.contract import Tool
from fcbench.schema.patterns import has_nested_quantifier
from fcbench.suite.loader import Suite
from fcbench.suite.models import Category

CATEGORIES: tuple[str, ...] = get_args(Category)
"""Case categories in reporting order."""
WRITE_VERBS: tuple[str, ...] = (
    "add",
    "approve",
    "book",
    "buy",
    "cancel",
    "charge",
    "create",
    "delete",
    "deposit",
    "disable",
    "enable",
    "edit",
    "grant",
    "insert",
    "modify",
    "pay",
    "publish",
    "purchase",
    "refund",
    "register",
    "remove",
    "rename",
    "reserve",
    "reset",
    "revoke",
    "send",
    "set",
    "submit",
    "subscribe",
    "transfer",
    "unsubscribe",
    "update",
    "upload",
    "withdraw",
    "write",
)
"""Verbs that, in a read tool's name or the first sentence of its description, suggest a write."""
_WRITE_WORD = re.compile(rf"^({'|'.join(WRITE_VERBS)})(s|es|d|ed|ing)?$")
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


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


def write_hint(tool: Tool) -> str | None:
    """The word that makes read tool ``tool`` look like a write (None for a write tool or no such word)."""
    if tool.writes:
        return None
    first_sentence = re.split(r"[.!?\n]", tool.description, maxsplit=1)[0]
    for word in [*_WORDS.findall(tool.name), *_WORDS.findall(first_sentence)]:
        if _WRITE_WORD.match(word.lower()):
            return word.lower()
    return None


def write_suspects(tool_sets: Mapping[str, Sequence[Tool]]) -> list[str]:
    """One warning per read tool that looks like a write (:func:`write_hint`), naming the tool and
    its set, the word, and how to mark it."""
    warnings = []
    for set_name, tools in tool_sets.items():
        for tool in tools:
            hint = write_hint(tool)
            if hint is not None:
                warnings.append(
                    f"tool set {set_name}: {tool.name} is marked read but looks like a write ({hint!r}); "
                    "if it changes anything, list it under writes: (or give it side_effect: write)"
                )
    return warnings


def imported_write_suspects(suite: Suite) -> list[str]:
    """:func:`write_suspects` of the tool sets converted from another format or taken from an MCP
    server (where a write status may have been lost); a set written in fcbench's form says its own."""
    imported = {record.tool_set for record in suite.tool_imports}
    return write_suspects({name: tools for name, tools in suite.tool_sets.items() if name in imported})


def pending_write_suspects(suite: Suite) -> list[str]:
    """:func:`write_suspects` of the tool sets offered to the suite's pending cases (an imported
    log's tools, whose requests never say which tool writes)."""
    used = {case.tools for case in suite.cases if case.pending and isinstance(case.tools, str)}
    return write_suspects({name: tools for name, tools in suite.tool_sets.items() if name in used})
