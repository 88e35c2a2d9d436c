"""Assertions on canonical outcomes that mean what fcbench's verdicts mean.

Each helper states an expectation the way a case does (a call of a tool with some arguments, no
call, a question about a missing value), grades the outcome with :func:`fcbench.grading.grade`
under the ``strict`` profile, and raises :class:`AssertionError` with the verdict's decision and
reasons unless the verdict passes. It returns the :class:`~fcbench.grading.Verdict` otherwise.

::

    outcome = outcome_of(client.chat.completions.create(...), "openai-chat")
    assert_called(outcome, "lookup_order", order_id="ORD-104821")

``tools`` is the tool list the agent offered, in any format fcbench imports (the list given to
the SDK, or canonical tools): with it, a call's arguments are also checked against the tool's
schema, and a question is read against the parameters' descriptions. Without it, every tool the
helper needs is offered with an open schema.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from fcbench.adapters import get as get_adapter
from fcbench.adapters.base import ParsedTurn
from fcbench.contract import Outcome, TextOutcome, Tool, ToolCallsOutcome, parse_outcome
from fcbench.grading import Verdict, grade
from fcbench.grading.jsonvalues import short
from fcbench.suite.imports import build_tools, import_tool_list
from fcbench.suite.models import Case

OutcomeLike = Outcome | ParsedTurn | Mapping[str, Any] | str
"""What a helper accepts: an outcome, a parsed turn, an outcome's JSON dict, or a reply's text."""

ToolsLike = Sequence[Tool | Mapping[str, Any]] | None
"""The offered tools, in any format fcbench imports, or None."""

CASE_ID = "pytest-assertion"
"""The id of the case each helper grades against (it appears in no record)."""


def wire_body(response: Any) -> Any:
    """The wire JSON of an SDK response (an openai, anthropic or google-genai object), a dict or a
    JSON text; a :class:`TypeError` for anything else."""
    to_dict = getattr(response, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    model_dump = getattr(response, "model_dump", None)
    if callable(model_dump):
        return model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(response, str | bytes | bytearray):
        return json.loads(response)
    if isinstance(response, Mapping):
        return dict(response)
    raise TypeError(
        f"cannot read a response of type {type(response).__name__} (give an SDK object, dict or JSON)"
    )


def read_tools(tools: ToolsLike) -> list[Tool]:
    """The canonical tools of a tool list in any format fcbench imports; a :class:`ValueError`
    naming each problem."""
    if tools is None:
        return []
    if all(isinstance(tool, Tool) for tool in tools):
        return [tool for tool in tools if isinstance(tool, Tool)]
    plain = [tool.model_dump() if isinstance(tool, Tool) else tool for tool in tools]
    read, findings = build_tools(import_tool_list(plain))
    if read is None:
        raise ValueError("tools: " + "; ".join(str(finding) for finding in findings))
    return read


def outcome_of(response: Any, dialect: str, tools: ToolsLike = None) -> Outcome:
    """The canonical outcome of one response of ``dialect`` (``"openai-chat"``, ``"anthropic-messages"``,
    ...), read by fcbench's own adapter for that dialect."""
    offered = [tool.name for tool in read_tools(tools)] if tools is not None else None
    turn: ParsedTurn = get_adapter(dialect).parse_response(wire_body(response), offered)
    return turn.outcome


def as_outcome(outcome: OutcomeLike) -> Outcome:
    """``outcome`` as an outcome model (a text becomes a text outcome)."""
    if isinstance(outcome, ParsedTurn):
        return outcome.outcome
    if isinstance(outcome, str):
        return TextOutcome(text=outcome)
    return parse_outcome(outcome)


def open_tool(name: str, properties: Sequence[str] = ()) -> Tool:
    """A tool any arguments fit (naming ``properties``, so a question can ask about them)."""
    schema: dict[str, Any] = {"type": "object", "properties": {key: {} for key in properties}}
    return Tool(name=name, parameters=schema)


def offered_tools(outcome: Outcome, tools: ToolsLike, needed: Mapping[str, Sequence[str]]) -> list[Tool]:
    """The user's tools, or (without them) an open tool for each tool ``needed`` and each one the
    outcome calls."""
    if tools is not None:
        return read_tools(tools)
    names: dict[str, Sequence[str]] = dict(needed)
    if isinstance(outcome, ToolCallsOutcome):
        for call in outcome.calls:
            names.setdefault(call.name, ())
    return [open_tool(name, properties) for name, properties in names.items()]


def did(outcome: Outcome) -> str:
    """What the model did, in a few words, for a failure message."""
    if isinstance(outcome, ToolCallsOutcome):
        shown = ", ".join(f"{call.name}({short(call.arguments)})" for call in outcome.calls)
        return f"called {shown}"
    if outcome.kind == "provider_error":
        return f"got a provider error ({outcome.code}, status {outcome.status}): {outcome.message}"
    return f"answered with {outcome.kind} {short(outcome.text)}"


def check(outcome: Outcome, expected: dict[str, Any], tools: list[Tool], wanted: str, prompt: str) -> Verdict:
    """Grade ``outcome`` against ``expected``; an :class:`AssertionError` unless the verdict passes."""
    __tracebackhide__ = True
    case = Case(id=CASE_ID, prompt=prompt, tools=tools, expected=expected)
    verdict = grade(case, outcome, None)
    if verdict.passed:
        return verdict
    details = [f"decision {verdict.decision}", *verdict.reasons, *verdict.schema_errors]
    details += [
        f"{wrong.key}: expected {short(wrong.expected)}, got {short(wrong.actual)}" for wrong in verdict.wrong
    ]
    details += [f"missing {key}" for key in verdict.missing]
    raise AssertionError(f"expected {wanted}; the model {did(outcome)} ({'; '.join(details)})")


def assert_called(
    outcome: OutcomeLike, name: str, /, *, tools: ToolsLike = None, prompt: str = "", **arguments: Any
) -> Verdict:
    """Assert one call of ``name`` whose arguments hold ``arguments`` (other arguments may be
    present, and must fit the tool's schema when ``tools`` are given): the verdict's
    ``correct_call`` with valid, matching arguments."""
    __tracebackhide__ = True
    read = as_outcome(outcome)
    expected: dict[str, Any] = {"kind": "tool", "name": name}
    if arguments:
        given = (
            [call.arguments for call in read.calls if call.name == name] if read.kind == "tool_calls" else []
        )
        others = sorted({key for args in given if isinstance(args, dict) for key in args} - set(arguments))
        expected["arguments"] = {"requiredEquals": arguments, "optional": others}
    shown = ", ".join(f"{key}={short(value)}" for key, value in arguments.items())
    offered = offered_tools(read, tools, {name: ()})
    return check(read, expected, offered, f"a call of {name}({shown})", prompt)


def assert_no_call(outcome: OutcomeLike, /, *, tools: ToolsLike = None, prompt: str = "") -> Verdict:
    """Assert that the model answered without calling a tool (nor writing a call in its text): the
    verdict's ``correct_abstention``."""
    __tracebackhide__ = True
    read = as_outcome(outcome)
    offered = offered_tools(read, tools, {})
    return check(read, {"kind": "text"}, offered, "no tool call", prompt)


def assert_asked_for(
    outcome: OutcomeLike, *missing: str, tools: ToolsLike = None, prompt: str = "", call: str | None = None
) -> Verdict:
    """Assert that the model asked for the ``missing`` values (parameter names), asserting none the
    user never gave (``prompt``: what the user said): the verdict's ``correct_clarification``.
    ``call`` names the tool the question prepares, when several are offered."""
    __tracebackhide__ = True
    if not missing:
        raise TypeError("assert_asked_for needs the name of at least one missing parameter")
    read = as_outcome(outcome)
    expected: dict[str, Any] = {"kind": "clarification", "missing": list(missing)}
    if call is not None:
        expected["name"] = call
    offered = offered_tools(read, tools, {call or "the_call": missing})
    return check(read, expected, offered, f"a question for {', '.join(missing)}", prompt)


__all__ = ["OutcomeLike", "ToolsLike", "assert_asked_for", "assert_called", "assert_no_call", "outcome_of"]
