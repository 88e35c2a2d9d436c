"""Semantic checks on one parsed case against the tools it is offered.

Pydantic has already checked the shape. These checks find what would make a case unfair or
unpassable: unknown tool sets and tools, expected arguments that the tool's own schema rejects,
assertions that name parameters the tool does not have or leave a required parameter uncovered,
clarifications about parameters that do not exist, and histories whose tool results answer no
earlier call. Every check reports :class:`~fcbench.suite.tools.Finding` values; nothing raises.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonschema import ValidationError as SchemaViolation
from pydantic import ValidationError

from fcbench.contract import AssistantMessage, Tool, ToolResultMessage
from fcbench.schema.validate import BoundedValidator
from fcbench.suite.models import (
    ArgumentAssertion,
    Case,
    ExpectClarification,
    ExpectedCall,
    ExpectTool,
    ExpectTools,
    is_assertion,
)
from fcbench.suite.tools import (
    FORMAT_CHECKER,
    Finding,
    Key,
    is_closed,
    parameter_names,
    pydantic_findings,
    tool_findings,
    tools_by_name,
)

_ROOT_KEYWORDS_KEPT = frozenset({"additionalProperties", "unevaluatedProperties", "propertyNames"})
"""Root-level schema errors that still apply when only some of the arguments are known."""


class SchemaCheckers:
    """The argument validator of each tool, compiled the first time a case's arguments are checked
    against it and reused for every other case that names the tool."""

    def __init__(self) -> None:
        self._by_tool: dict[int, tuple[Tool, Any]] = {}

    def errors(self, tool: Tool, instance: Any) -> Iterator[SchemaViolation]:
        """Every error of ``instance`` against ``tool``'s parameter schema."""
        entry = self._by_tool.get(id(tool))
        if entry is None or entry[0] is not tool:  # kept with its tool, so an id is never reused
            entry = self._by_tool[id(tool)] = (
                tool,
                BoundedValidator(tool.parameters, format_checker=FORMAT_CHECKER),
            )
        errors: Iterator[SchemaViolation] = entry[1].iter_errors(instance)
        return errors


@dataclass(frozen=True)
class ToolContext:
    """The tool sets a case may name."""

    tool_sets: Mapping[str, Sequence[Tool]]
    """Valid tool sets by name."""
    broken_sets: frozenset[str] = frozenset()
    """Tool sets that exist but failed to load (cases naming them are not checked further)."""
    checkers: SchemaCheckers = field(default_factory=SchemaCheckers, compare=False, repr=False)
    """The tools' compiled argument validators, shared by the checks of every case."""


def _schema_errors(
    checkers: SchemaCheckers, tool: Tool, instance: Any, partial: bool
) -> list[tuple[tuple[Key, ...], str]]:
    errors = []
    for error in checkers.errors(tool, instance):
        keys = tuple(error.absolute_path)
        if partial and not keys and error.validator not in _ROOT_KEYWORDS_KEPT:
            continue
        errors.append((keys, error.message))
    return sorted(errors, key=lambda item: [str(k) for k in item[0]])


def _assertion_findings(checkers: SchemaCheckers, tool: Tool, arguments: dict[str, Any]) -> list[Finding]:
    try:
        assertion = ArgumentAssertion.model_validate(arguments)
    except ValidationError as exc:
        return pydantic_findings(exc, arguments)
    findings: list[Finding] = []
    names = parameter_names(tool)
    closed = is_closed(tool)
    for group, keys in (
        ("optional", list(assertion.optional)),
        ("constraints", list(assertion.constraints)),
        ("oneOf", list(assertion.oneOf)),
    ):
        for key in keys:
            if closed and key not in names:
                findings.append(Finding((group,), f"{key!r} is not a parameter of {tool.name}"))
    for index, key in enumerate(assertion.tolerant):
        if key not in names:
            findings.append(
                Finding(("tolerant", index), f"tolerant key {key!r} is not a parameter of {tool.name}")
            )
    for path, message in _schema_errors(checkers, tool, dict(assertion.requiredEquals), partial=True):
        findings.append(
            Finding(("requiredEquals", *path), f"rejected by the schema of {tool.name}: {message}")
        )
    for key, options in assertion.oneOf.items():
        for index, option in enumerate(options):
            for _keys, message in _schema_errors(checkers, tool, {key: option}, partial=True):
                findings.append(
                    Finding(("oneOf", key, index), f"rejected by the schema of {tool.name}: {message}")
                )
    for key, constraint in assertion.constraints.items():
        if constraint.pattern is not None:
            try:
                re.compile(constraint.pattern)
            except re.error as exc:
                findings.append(
                    Finding(("constraints", key, "pattern"), f"invalid regular expression: {exc}")
                )
        low, high = constraint.minimum, constraint.maximum
        if low is not None and high is not None and low > high:
            findings.append(
                Finding(("constraints", key), f"minimum {low:g} is greater than maximum {high:g}")
            )
    forbidden = set(assertion.forbidden)
    for group, present in (
        ("requiredEquals", set(assertion.requiredEquals)),
        ("oneOf", set(assertion.oneOf)),
    ):
        for key in sorted(forbidden & present):
            findings.append(Finding(("forbidden",), f"{key!r} is both forbidden and in {group}"))
    covered = set(assertion.requiredEquals) | set(assertion.oneOf) | set(assertion.optional)
    covered |= set(assertion.constraints)
    required = tool.parameters.get("required")
    for key in required if isinstance(required, list) else []:
        if key in forbidden:
            findings.append(Finding(("forbidden",), f"{key!r} is required by the schema of {tool.name}"))
        elif key not in covered:
            findings.append(
                Finding(
                    (),
                    f"required parameter {key!r} of {tool.name} is not covered "
                    "(add it to requiredEquals, oneOf or optional, or no call can pass)",
                )
            )
    return findings


def call_findings(
    checkers: SchemaCheckers, call: ExpectedCall, tools: Mapping[str, Tool], set_label: str
) -> list[Finding]:
    """Check one expected call: the tool exists and its arguments suit the tool's schema."""
    tool = tools.get(call.name)
    if tool is None:
        known = ", ".join(sorted(tools)) or "none"
        return [Finding(("name",), f"{call.name!r} is not a tool of {set_label} (tools: {known})")]
    if call.arguments is None:
        return []
    if is_assertion(call.arguments):
        return [f.under("arguments") for f in _assertion_findings(checkers, tool, call.arguments)]
    return [
        Finding(("arguments", *keys), f"rejected by the schema of {tool.name}: {message}")
        for keys, message in _schema_errors(checkers, tool, call.arguments, partial=False)
    ]


def _clarification_findings(
    expected: ExpectClarification, tools: Mapping[str, Tool], set_label: str
) -> list[Finding]:
    if expected.name is not None:
        tool = tools.get(expected.name)
        if tool is None:
            return [Finding(("name",), f"{expected.name!r} is not a tool of {set_label}")]
        candidates = [tool]
    else:
        candidates = list(tools.values())
    findings: list[Finding] = []
    for index, missing in enumerate(expected.missing):
        if not any(missing in parameter_names(tool) for tool in candidates):
            owner = expected.name if expected.name is not None else f"any tool of {set_label}"
            findings.append(Finding(("missing", index), f"{missing!r} is not a parameter of {owner}"))
    return findings


def _history_findings(case: Case, tools: Mapping[str, Tool], set_label: str) -> list[Finding]:
    findings: list[Finding] = []
    calls: dict[str, str] = {}
    for index, message in enumerate(case.history):
        if isinstance(message, AssistantMessage):
            for position, call in enumerate(message.calls):
                if call.name not in tools:
                    findings.append(
                        Finding(
                            ("history", index, "calls", position, "name"),
                            f"{call.name!r} is not a tool of {set_label}",
                        )
                    )
                if call.id is not None:
                    calls[call.id] = call.name
        elif isinstance(message, ToolResultMessage) and message.call_id is not None:
            called = calls.get(message.call_id)
            if called is None:
                findings.append(
                    Finding(
                        ("history", index, "call_id"),
                        f"{message.call_id!r} does not answer any earlier assistant call",
                    )
                )
            elif called != message.name:
                findings.append(
                    Finding(("history", index, "name"), f"{message.name!r} answers a call of {called!r}")
                )
    return findings


def _recovery_findings(
    checkers: SchemaCheckers, case: Case, tools: Mapping[str, Tool], set_label: str
) -> list[Finding]:
    spec = case.recovery
    if spec is None:
        return []
    findings: list[Finding] = []
    for index, injection in enumerate(spec.inject):
        if injection.tool not in tools:
            findings.append(
                Finding(
                    ("recovery", "inject", index, "tool"), f"{injection.tool!r} is not a tool of {set_label}"
                )
            )
    for index, name in enumerate(spec.forbid_tools):
        if name not in tools:
            findings.append(
                Finding(("recovery", "forbid_tools", index), f"{name!r} is not a tool of {set_label}")
            )
    if spec.expect_call is not None:
        findings.extend(
            f.under("recovery", "expect_call")
            for f in call_findings(checkers, spec.expect_call, tools, set_label)
        )
    return findings


def _resolve_tools(case: Case, context: ToolContext) -> tuple[Mapping[str, Tool] | None, str, list[Finding]]:
    """The case's tools by name (None when they cannot be checked), a label, and tool findings."""
    if isinstance(case.tools, str):
        label = f"tool set {case.tools!r}"
        if case.tools in context.broken_sets:
            return None, label, []
        tools = context.tool_sets.get(case.tools)
        if tools is None:
            known = ", ".join(sorted(set(context.tool_sets) | context.broken_sets)) or "none"
            return (
                None,
                label,
                [Finding(("tools",), f"unknown tool set {case.tools!r} (this suite has: {known})")],
            )
        return tools_by_name(tools), label, []
    findings = [f.under("tools") for f in tool_findings(case.tools)]
    if not case.tools:
        findings.append(Finding(("tools",), "the inline tool list is empty"))
    return (None if findings else tools_by_name(case.tools)), "the inline tools", findings


def case_findings(case: Case, context: ToolContext) -> list[Finding]:
    """Every semantic problem of one case that needs no other case to find."""
    findings: list[Finding] = []
    if not case.prompt.strip():
        findings.append(Finding(("prompt",), "is empty"))
    tools, label, tool_problems = _resolve_tools(case, context)
    findings.extend(tool_problems)
    if tools is None:
        return findings
    expected = case.expected
    if isinstance(expected, ExpectTool):
        findings.extend(f.under("expected") for f in call_findings(context.checkers, expected, tools, label))
    elif isinstance(expected, ExpectTools):
        for index, call in enumerate(expected.calls):
            findings.extend(
                f.under("expected", "calls", index)
                for f in call_findings(context.checkers, call, tools, label)
            )
    elif isinstance(expected, ExpectClarification):
        findings.extend(f.under("expected") for f in _clarification_findings(expected, tools, label))
    findings.extend(_history_findings(case, tools, label))
    findings.extend(_recovery_findings(context.checkers, case, tools, label))
    for wire_name in case.name_map or {}:
        if wire_name not in tools:
            findings.append(Finding(("name_map", wire_name), f"{wire_name!r} is not a tool of {label}"))
    for index, name in enumerate(case.confusable):
        if name not in tools:
            findings.append(Finding(("confusable", index), f"{name!r} is not a tool of {label}"))
    return findings
