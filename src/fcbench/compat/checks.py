"""Checkers: did a produced call honour the probed keyword, did a turn honour the asked behaviour?

Arguments are validated against the tool's ORIGINAL (canonical) schema, never the schema a dialect
transform put on the wire, with the same settings as :mod:`fcbench.schema.validate` (draft
2020-12, ``format`` checked, nothing coerced). Each error keeps the keyword that raised it, so a
keyword probe counts only the errors of its own family: a ``pattern`` probe is not failed by a
missing unrelated property.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from fcbench.compat.models import CapabilityProbe, KeywordProbe
from fcbench.contract import Tool
from fcbench.grading.jsonvalues import json_equal
from fcbench.schema.transform import pointer
from fcbench.schema.validate import FORMAT_CHECKER, ValidatorCache

PathPart = str | int
_COMBINATORS = frozenset({"oneOf", "anyOf", "allOf"})
_MAX_REF_HOPS = 32
"""References followed in a row before :func:`locate` gives up (a cycle of refs)."""


@dataclass(frozen=True)
class KeywordError:
    """One validation error with the keyword that raised it."""

    keyword: str
    path: tuple[PathPart, ...]
    """Where in the arguments (a ``required`` error points at the missing property itself)."""
    schema_path: tuple[PathPart, ...]
    message: str
    location: str = ""
    """JSON pointer of the subschema whose keyword raised the error, ``$ref`` targets resolved
    (an error inside ``#/$defs/address`` is located there, not at the property that refers to it)."""
    via: tuple[str, ...] = ()
    """Pointers of the ``$ref`` keywords the validation followed to reach :attr:`location`."""

    def __str__(self) -> str:
        where = ".".join(str(p) for p in self.path) or "(root)"
        return f"{where}: {self.message} [{self.keyword}]"


class KeywordValidator:
    """Compiles each schema once and lists every error with its keyword."""

    def __init__(self, validators: ValidatorCache | None = None) -> None:
        self._checked = validators or ValidatorCache()
        self._compiled: dict[str, Draft202012Validator] = {}

    def errors(self, schema: dict[str, Any], instance: Any, *, deep: bool = False) -> list[KeywordError]:
        """Every error of ``instance`` against ``schema`` (the schema is checked first, like the grader).

        ``deep`` adds, under a failed ``oneOf``/``anyOf``/``allOf``, the errors of its branches (a
        keyword used inside a branch is broken only there)."""
        key = json.dumps(schema, sort_keys=True, separators=(",", ":"))
        validator = self._compiled.get(key)
        if validator is None:
            self._checked.get(schema)  # raises CaseError for an invalid schema
            validator = self._compiled[key] = Draft202012Validator(schema, format_checker=FORMAT_CHECKER)
        found: list[KeywordError] = []
        pending = list(validator.iter_errors(instance))
        while pending:
            error = pending.pop(0)
            found.extend(_expand(error, schema))
            if deep and str(error.validator) in _COMBINATORS:
                pending.extend(error.context or [])
        return sorted(found, key=lambda e: [str(p) for p in e.path])


def resolve_ref(root: Mapping[str, Any], ref: Any) -> tuple[str, Any] | None:
    """``(pointer, subschema)`` of a local reference (``#``, ``#/$defs/address``) in ``root``, or None."""
    if not isinstance(ref, str) or (ref != "#" and not ref.startswith("#/")):
        return None
    target: Any = root
    for raw in ref[2:].split("/") if ref != "#" else []:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(target, list) and token.isdigit() and int(token) < len(target):
            target = target[int(token)]
        elif isinstance(target, Mapping) and token in target:
            target = target[token]
        else:
            return None
    return ref[1:], target


def locate(root: dict[str, Any], schema_path: Sequence[PathPart]) -> tuple[str, tuple[str, ...]]:
    """Where a keyword of ``schema_path`` sits in ``root``: the pointer of its subschema (local
    ``$ref`` targets resolved) and the pointers of the ``$ref`` keywords followed on the way."""
    node: Any = root
    here = ""
    via: list[str] = []
    for step in list(schema_path)[:-1]:
        for _ in range(_MAX_REF_HOPS):
            if isinstance(node, dict) and step != "$ref" and step in node:
                node, here = node[step], pointer(here, step)
                break
            if isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
                node, here = node[step], pointer(here, step)
                break
            target = resolve_ref(root, node.get("$ref")) if isinstance(node, dict) else None
            if target is None:
                return here, tuple(via)
            via.append(here)
            here, node = target
            if step == "$ref":
                break
        else:
            return here, tuple(via)  # a reference cycle that never reaches ``step``
    keyword = schema_path[-1] if schema_path else None
    for _ in range(_MAX_REF_HOPS):  # the keyword itself may sit behind a reference
        ref = node.get("$ref") if isinstance(node, dict) and keyword not in node else None
        target = resolve_ref(root, ref) if keyword != "$ref" else None
        if target is None:
            break
        via.append(here)
        here, node = target
    return here, tuple(via)


def _expand(error: ValidationError, root: dict[str, Any]) -> Iterator[KeywordError]:
    path = tuple(error.absolute_path)
    schema_path = tuple(error.absolute_schema_path)
    keyword = str(error.validator)
    location, via = locate(root, schema_path)
    if keyword == "required" and isinstance(error.instance, dict) and isinstance(error.validator_value, list):
        for name in error.validator_value:
            if name not in error.instance:
                message = f"'{name}' is a required property"
                yield KeywordError(keyword, (*path, name), schema_path, message, location, via)
        return
    yield KeywordError(keyword, path, schema_path, error.message, location, via)


def _inside(path: str, root: str) -> bool:
    """Whether JSON pointer ``path`` is ``root`` or beneath it."""
    return path == root or path.startswith(root + "/")


def _counts_at(probe: KeywordProbe, error: KeywordError) -> bool:
    """Whether ``error`` breaks the one keyword use a derived probe tests (see :attr:`KeywordProbe.scope`)."""
    at = probe.pointer or ""
    if probe.scope == "keyword":
        return error.keyword in probe.keywords and error.location == at
    if probe.scope == "under":
        return _inside(error.location, at) or any(_inside(v, at) for v in error.via)
    keyword = probe.keywords[0] if probe.keywords else ""
    if keyword == "$ref":
        return at in error.via
    return _inside(error.location, pointer(at, keyword))


def counts_for(probe: KeywordProbe, error: KeywordError) -> bool:
    """Whether ``error`` belongs to the keyword family ``probe`` tests."""
    if probe.pointer is not None:
        return _counts_at(probe, error)
    if not (probe.keywords or probe.through or probe.under):
        return False
    if probe.under and not (error.path and str(error.path[0]) in probe.under):
        return False
    if (
        probe.under
        and len(error.path) == 1
        and error.keyword == "required"
        and "required" not in probe.keywords
    ):
        return False  # leaving a probed property out entirely is an omission, not a violation inside it
    if not (probe.keywords or probe.through):
        return True
    return error.keyword in probe.keywords or any(k in error.schema_path for k in probe.through)


@dataclass(frozen=True)
class CallCheck:
    """The verdict of one keyword probe on one produced call."""

    honoured: bool
    violations: list[str] = field(default_factory=list)
    omitted: bool = False
    """The call sent none of the probe's ``fields``: the keyword was honoured only vacuously."""


def _value_checks(probe: KeywordProbe, tool: Tool, args: Mapping[str, Any]) -> list[str]:
    problems = []
    for name, wanted in probe.expect_values.items():
        if name not in args:
            problems.append(f"{name}: expected {json.dumps(wanted)}, left out")
        elif not json_equal(args[name], wanted):
            problems.append(f"{name}: expected {json.dumps(wanted)}, got {json.dumps(args[name])}")
    if probe.defaults:
        props = tool.parameters.get("properties") or {}
        for name, schema in props.items():
            if (
                isinstance(schema, dict)
                and "default" in schema
                and name in args
                and not json_equal(args[name], schema["default"])
            ):
                problems.append(
                    f"{name}: unspecified, so absent or {json.dumps(schema['default'])} expected, "
                    f"got {json.dumps(args[name])}"
                )
    return problems


def check_call(
    probe: KeywordProbe, tool: Tool, call: Mapping[str, Any], validator: KeywordValidator
) -> CallCheck:
    """Judge one call (a canonical ToolCall dict) of ``tool`` against ``probe``."""
    if call.get("parse_error") is not None:
        return CallCheck(False, [f"arguments are not valid JSON: {call['parse_error']}"])
    args = call.get("arguments")
    if not isinstance(args, dict):
        return CallCheck(False, [f"arguments are not an object: {json.dumps(args)}"])
    found = validator.errors(tool.parameters, args, deep=probe.pointer is not None)
    problems = [str(e) for e in found if counts_for(probe, e)]
    problems += _value_checks(probe, tool, args)
    omitted = bool(probe.fields) and not any(name in args for name in probe.fields)
    return CallCheck(not problems, problems, omitted)


def calls_of(outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The calls of a canonical outcome dict (none unless it is ``tool_calls``)."""
    if outcome.get("kind") != "tool_calls":
        return []
    return [c for c in outcome.get("calls") or [] if isinstance(c, dict)]


def _valid_call(call: Mapping[str, Any], tools: Mapping[str, Tool], validator: KeywordValidator) -> bool:
    tool = tools.get(str(call.get("name")))
    args = call.get("arguments")
    if tool is None or call.get("parse_error") is not None or not isinstance(args, dict):
        return False
    return not validator.errors(tool.parameters, args)


Judge = Callable[[CapabilityProbe, list[dict[str, Any]], Mapping[str, Tool], KeywordValidator], bool | None]


def _named(probe: CapabilityProbe, calls: list[dict[str, Any]], *_: Any) -> bool:
    name = probe.tool_choice.removeprefix("tool:")
    return bool(calls) and all(c.get("name") == name for c in calls)


JUDGES: dict[str, Judge] = {
    "call": lambda probe, calls, *_: bool(calls),
    "no_call": lambda probe, calls, *_: not calls,
    "named": _named,
    "parallel": lambda probe, calls, *_: len(calls) >= 2,
    "single": lambda probe, calls, *_: (len(calls) == 1) if calls else None,
    "valid": lambda probe, calls, tools, v: all(_valid_call(c, tools, v) for c in calls) if calls else None,
}
"""Expectation -> judge of one accepted turn: True honoured, False ignored, None inconclusive
(``single`` and ``valid`` need at least one call). ``stream_agrees`` compares two turns instead,
by the one "same outcome" key (:func:`fcbench.grading.key.turn_key`)."""


def judge_turn(
    probe: CapabilityProbe, outcome: Mapping[str, Any], tools: Sequence[Tool], validator: KeywordValidator
) -> bool | None:
    """Whether one accepted turn honoured ``probe``'s request (None: cannot tell from this turn)."""
    judge = JUDGES[probe.expect]
    return judge(probe, calls_of(outcome), {t.name: t for t in tools}, validator)
