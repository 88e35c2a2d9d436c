"""Turning the grader's inputs (models or plain dicts) into checked, ready-to-grade values.

A malformed case raises :class:`~fcbench.errors.CaseError`; a malformed outcome or tool list
raises :class:`~fcbench.errors.InputError`. Whatever the model produced inside a well-formed
outcome (odd argument types, unknown tool names, unparseable text) is never an error here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import ValidationError

from fcbench.contract import Anomaly, Outcome, Tool, parse_outcome
from fcbench.contract.json_text import compact_json, parse_json
from fcbench.errors import CaseError, InputError
from fcbench.schema.validate import ValidatorCache
from fcbench.suite.models import (
    ASSERTION_KEYS,
    ArgumentAssertion,
    Case,
    ExpectClarification,
    ExpectedCall,
    ExpectTool,
    ExpectTools,
    is_assertion,
)

AnomalyLike = Anomaly | Mapping[str, Any] | str
"""An anomaly as the adapter recorded it: a model, its dict form, or just its code."""


@dataclass(frozen=True)
class ArgumentSpec:
    """What is accepted as the arguments of one expected call.

    Exactly one of ``exact`` and ``assertion`` is set, or neither (any arguments are accepted).
    """

    exact: dict[str, Any] | None = None
    """The arguments object that must be produced, key by key."""
    assertion: ArgumentAssertion | None = None
    """Assertions that several argument objects may satisfy."""
    patterns: Mapping[str, re.Pattern[str]] | None = None
    """Compiled ``constraints[key].pattern`` regular expressions of the assertion."""


@dataclass(frozen=True)
class CallSpec:
    """One expected call: the tool name and its accepted arguments."""

    name: str
    arguments: ArgumentSpec


@dataclass(frozen=True)
class GradeInput:
    """Everything a grading profile needs for one observation, already checked."""

    case: Case
    outcome: Outcome
    tools: Mapping[str, Tool]
    """The tools that were offered, by name."""
    calls: tuple[CallSpec, ...]
    """Expected calls (one for ``tool``, several for ``tools``, none for ``text``/``clarification``)."""
    validators: ValidatorCache
    anomalies: tuple[str, ...]
    """Anomaly codes the adapter recorded beside the outcome."""


def _fail(case_id: str, message: str) -> CaseError:
    return CaseError(f"case {case_id!r}: {message}")


def coerce_case(case: Case | Mapping[str, Any]) -> Case:
    """Return ``case`` as a :class:`Case` model, validating a dict in the case JSON shape."""
    if isinstance(case, Case):
        return case
    if not isinstance(case, Mapping):
        raise CaseError(f"a case must be an object, got {type(case).__name__}")
    try:
        return Case.model_validate(dict(case))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        raise _fail(str(case.get("id", "?")), f"{where}: {first['msg']}") from exc


def coerce_outcome(outcome: Outcome | Mapping[str, Any]) -> Outcome:
    """Return ``outcome`` as an outcome model, validating a dict in the Outcome JSON shape."""
    try:
        return parse_outcome(outcome)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        raise InputError(f"invalid outcome: {where}: {first['msg']}") from exc


def coerce_tools(tools: Sequence[Tool | Mapping[str, Any]] | Mapping[str, Any]) -> dict[str, Tool]:
    """Index the offered tools by name; accepts models, dicts, or a ``{"tools": [...]}`` file object."""
    if isinstance(tools, Mapping):
        if "tools" not in tools:
            raise InputError("tools must be a list of tools or an object with a 'tools' list")
        tools = tools["tools"]
    listed = isinstance(tools, list | tuple)  # the common case, without the slower ABC check below
    if not listed and (isinstance(tools, str | bytes) or not isinstance(tools, Iterable)):
        raise InputError(f"tools must be a list, got {type(tools).__name__}")
    indexed: dict[str, Tool] = {}
    for position, item in enumerate(tools):
        try:
            tool = item if isinstance(item, Tool) else Tool.model_validate(item)
        except ValidationError as exc:
            raise InputError(f"tool {position}: {exc.errors()[0]['msg']}") from exc
        if tool.name in indexed:
            raise InputError(f"tool {tool.name!r} is offered twice")
        indexed[tool.name] = tool
    return indexed


def anomaly_codes(anomalies: Iterable[AnomalyLike] | None) -> tuple[str, ...]:
    """The codes of the adapter's anomalies, in order, each once."""
    codes: list[str] = []
    for item in anomalies or ():
        if isinstance(item, Anomaly):
            code = item.code
        elif isinstance(item, Mapping):
            code = str(item.get("code", "unknown"))
        else:
            code = str(item)
        if code not in codes:
            codes.append(code)
    return tuple(codes)


def _assertion_spec(case_id: str, arguments: dict[str, Any]) -> ArgumentSpec:
    try:
        assertion = ArgumentAssertion.model_validate(arguments)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise _fail(case_id, f"expected.arguments.{where}: {first['msg']}") from exc
    clash = set(assertion.forbidden) & (
        set(assertion.requiredEquals) | set(assertion.oneOf) | set(assertion.optional)
    )
    if clash:
        raise _fail(case_id, f"keys both forbidden and allowed: {sorted(clash)}")
    empty = [key for key, values in assertion.oneOf.items() if not values]
    if empty:
        raise _fail(case_id, f"oneOf lists no accepted value for {sorted(empty)}")
    patterns: dict[str, re.Pattern[str]] = {}
    for key, constraint in assertion.constraints.items():
        if constraint.pattern is not None:
            try:
                patterns[key] = re.compile(constraint.pattern)
            except re.error as exc:
                message = f"constraints.{key}.pattern is not a valid regular expression: {exc}"
                raise _fail(case_id, message) from exc
    return ArgumentSpec(assertion=assertion, patterns=patterns)


def argument_spec(case_id: str, arguments: dict[str, Any] | None) -> ArgumentSpec:
    """Check one ``expected.arguments`` value and prepare it for comparison.

    Each distinct (case, arguments) is checked and compiled once (by the arguments' exact JSON
    text), as every observation of a case grades against the same expected arguments; a value
    that fails its check is checked again, and raises again, every time.
    """
    if arguments is None:
        return ArgumentSpec()
    try:
        text = compact_json(arguments)
    except (RecursionError, TypeError, ValueError):
        return _checked_spec(case_id, arguments)
    return _prepared_spec(case_id, text)


@lru_cache(maxsize=4096)
def _prepared_spec(case_id: str, arguments_json: bytes) -> ArgumentSpec:
    return _checked_spec(case_id, parse_json(arguments_json))


def _checked_spec(case_id: str, arguments: dict[str, Any]) -> ArgumentSpec:
    if is_assertion(arguments):
        return _assertion_spec(case_id, arguments)
    if {"requiredEquals", "oneOf"} & set(arguments):
        unknown = sorted(set(arguments) - ASSERTION_KEYS)
        raise _fail(case_id, f"expected.arguments mixes assertion keys with unknown keys {unknown}")
    if arguments and set(arguments) <= ASSERTION_KEYS:
        raise _fail(
            case_id,
            "expected.arguments uses only assertion keys but has neither requiredEquals nor oneOf "
            '(add "requiredEquals": {} to make it an assertion object)',
        )
    return ArgumentSpec(exact=dict(arguments))


def expected_calls(case: Case, tools: Mapping[str, Tool]) -> tuple[CallSpec, ...]:
    """The case's expected calls, checked against the offered tools."""
    expected = case.expected
    named: list[ExpectedCall]
    if isinstance(expected, ExpectTool):
        named = [expected]
    elif isinstance(expected, ExpectTools):
        named = list(expected.calls)
    else:
        named = []
    target = expected.name if isinstance(expected, ExpectClarification) else None
    for name in [call.name for call in named] + ([target] if target else []):
        if name not in tools:
            raise _fail(case.id, f"expects tool {name!r}, which is not offered (offered: {sorted(tools)})")
    return tuple(CallSpec(call.name, argument_spec(case.id, call.arguments)) for call in named)
