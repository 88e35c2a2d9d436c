"""One BFCL entry (question, functions, possible answer) to one fcbench case.

The case keeps BFCL's id, offers the entry's functions as an inline tool list under wire-legal
names, and expects (by category kind) one call, several calls in any order, or no call. Expected
calls use the wire-legal names, exactly as the model is asked to call them; ``name_map`` maps
them back to BFCL's original names for reports and for the ``bfcl`` grading profile, which
compares original names.

A question is a list of turns, each a list of ``{"role", "content"}`` messages. A single turn is
supported: its last message (a user message) becomes the prompt and the messages before it
become the history (system, user and plain assistant text). Several turns need BFCL's stateful
execution between turns and are reported as unsupported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from fcbench.bfcl.answers import UnsupportedAnswer, convert_arguments
from fcbench.bfcl.schema import SchemaNotes, UnsupportedSchema, convert_parameters, legal_names
from fcbench.suite.checks import ToolContext, case_findings
from fcbench.suite.models import Case

Kind = Literal["tool", "tools", "text"]

SKIP_REASONS: Mapping[str, str] = {
    "not_an_object": "the line is not a JSON object with an id",
    "duplicate_id": "an earlier entry has the same id",
    "multi_turn": "several turns need BFCL's stateful execution between turns",
    "unsupported_message": "a message role or content fcbench cannot replay",
    "no_prompt": "no final user message to use as the prompt",
    "no_functions": "the entry offers no functions",
    "unsupported_schema": "a function definition cannot be converted to JSON Schema",
    "no_answer": "the answers file has no possible answer for this id",
    "answer_mismatch": "the possible answer does not fit the entry (unknown function, call count)",
    "unsupported_answer": "a possible answer cannot be expressed as an fcbench assertion",
    "invalid_case": "the converted case fails fcbench's case checks",
}
"""Why an entry was skipped: code -> explanation (the import report counts entries per code)."""

_HISTORY_ROLES = ("system", "user", "assistant")


class SkipEntry(Exception):
    """Raised while converting an entry that cannot be imported; carries the reason code and detail."""

    def __init__(self, reason: str, detail: str) -> None:
        if reason not in SKIP_REASONS:
            raise ValueError(f"unknown skip reason {reason!r}")
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass
class Converted:
    """A converted entry: the case as JSON, and what was changed or left out on the way."""

    case: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    renamed: int = 0
    """How many of the entry's functions got a new (wire-legal) name."""


def _message(raw: Any, index: int) -> dict[str, Any]:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("content"), str):
        raise SkipEntry("unsupported_message", f"message {index} is not a {{role, content}} text message")
    role = raw.get("role")
    if role not in _HISTORY_ROLES:
        raise SkipEntry("unsupported_message", f"message {index} has role {role!r}")
    return {"role": role, "content": raw["content"]}


def convert_question(question: Any) -> tuple[list[dict[str, Any]], str]:
    """The history messages and the prompt of a BFCL question (raises :class:`SkipEntry`)."""
    if not isinstance(question, list) or not question:
        raise SkipEntry("no_prompt", "the question is empty")
    turns = [question] if isinstance(question[0], Mapping) else question
    if len(turns) > 1:
        raise SkipEntry("multi_turn", f"the question has {len(turns)} turns")
    messages = turns[0]
    if not isinstance(messages, list) or not messages:
        raise SkipEntry("no_prompt", "the question's turn has no messages")
    converted = [_message(raw, index) for index, raw in enumerate(messages)]
    last = converted[-1]
    if last["role"] != "user" or not last["content"].strip():
        raise SkipEntry("no_prompt", "the last message is not a non-empty user message")
    return converted[:-1], last["content"]


def _convert_tools(functions: Any, notes: SchemaNotes) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Canonical tools and original name -> legal name (raises :class:`SkipEntry`)."""
    if not isinstance(functions, list) or not functions:
        raise SkipEntry("no_functions", "the entry has no function list")
    if not all(isinstance(f, Mapping) and isinstance(f.get("name"), str) and f["name"] for f in functions):
        raise SkipEntry("unsupported_schema", "every function needs a non-empty name")
    try:
        names = legal_names([f["name"] for f in functions])
        tools = [
            {
                "name": names[f["name"]],
                "description": f.get("description") if isinstance(f.get("description"), str) else "",
                "parameters": convert_parameters(f.get("parameters"), f["name"], notes),
            }
            for f in functions
        ]
    except UnsupportedSchema as exc:
        raise SkipEntry("unsupported_schema", str(exc)) from exc
    return tools, names


def _ground_truth_calls(answer: Any) -> list[tuple[str, Any]]:
    if not isinstance(answer, list) or not answer:
        raise SkipEntry("answer_mismatch", "the possible answer lists no call")
    calls: list[tuple[str, Any]] = []
    for index, call in enumerate(answer):
        if not isinstance(call, Mapping) or len(call) != 1:
            raise SkipEntry("answer_mismatch", f"answer call {index} is not {{function: {{parameters}}}}")
        ((name, params),) = call.items()
        calls.append((str(name), params))
    return calls


def _expected(
    kind: Kind,
    answer: Any,
    functions: list[Mapping[str, Any]],
    tools: list[dict[str, Any]],
    names: dict[str, str],
) -> tuple[dict[str, Any], list[str]]:
    if kind == "text":
        return {"kind": "text"}, []
    calls = _ground_truth_calls(answer)
    if kind == "tool" and len(calls) != 1:
        raise SkipEntry("answer_mismatch", f"{len(calls)} calls in the answer of a one-call category")
    by_name = {f["name"]: (f, tool) for f, tool in zip(functions, tools, strict=True)}
    expected_calls: list[dict[str, Any]] = []
    warnings: list[str] = []
    for name, params in calls:
        if name not in by_name:
            raise SkipEntry("answer_mismatch", f"the answer calls {name!r}, which the entry does not offer")
        function, tool = by_name[name]
        raw_parameters = function.get("parameters")
        bfcl_properties = raw_parameters.get("properties", {}) if isinstance(raw_parameters, Mapping) else {}
        try:
            converted = convert_arguments(params, name, bfcl_properties, tool["parameters"]["properties"])
        except UnsupportedAnswer as exc:
            raise SkipEntry("unsupported_answer", str(exc)) from exc
        warnings.extend(converted.warnings)
        expected_calls.append({"name": names[name], "arguments": converted.assertion})
    if kind == "tool":
        return {"kind": "tool", **expected_calls[0]}, warnings
    return {"kind": "tools", "order": "any", "calls": expected_calls}, warnings


def convert_entry(entry: Mapping[str, Any], category: str, kind: Kind, answer: Any) -> Converted:
    """Convert one BFCL entry to a checked case (raises :class:`SkipEntry` with the reason).

    ``answer`` is the entry's ``ground_truth`` (ignored for ``text`` categories). The case is
    validated as the suite loader would validate it, so every case written loads.
    """
    history, prompt = convert_question(entry.get("question"))
    notes = SchemaNotes()
    functions = entry.get("function")
    tools, names = _convert_tools(functions, notes)
    assert isinstance(functions, list)
    expected, warnings = _expected(kind, answer, functions, tools, names)
    warnings += [f"dropped schema keyword {key!r} ({count}x)" for key, count in sorted(notes.dropped.items())]
    case: dict[str, Any] = {"id": str(entry["id"]), "prompt": prompt}
    if history:
        case["history"] = history
    case.update({"tools": tools, "expected": expected, "category": "normal", "tags": ["bfcl", category]})
    name_map = {legal: original for original, legal in names.items() if legal != original}
    if name_map:
        case["name_map"] = name_map
    try:
        model = Case.model_validate(case)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise SkipEntry("invalid_case", f"{where}: {first['msg']}") from exc
    findings = case_findings(model, ToolContext(tool_sets={}))
    if findings:
        more = f" (+{len(findings) - 1} more)" if len(findings) > 1 else ""
        raise SkipEntry("invalid_case", f"{findings[0]}{more}")
    return Converted(case=case, warnings=warnings, renamed=len(name_map))


__all__ = ["SKIP_REASONS", "Converted", "Kind", "SkipEntry", "convert_entry", "convert_question"]
