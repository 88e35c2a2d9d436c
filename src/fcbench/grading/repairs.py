"""The ``repairs`` grading profile: score what a production stack that repairs calls would see.

fcbench records raw and scores normalised: parsing a JSON argument string is normalisation;
converting types, fixing an enum's spelling, dropping unknown keys or inserting defaults is
repair, which ``strict`` and ``bfcl`` never do. This profile applies the repairs such stacks
commonly make, records each one in ``verdict.repairs`` (kind, call, path, value before and
after), and then grades the repaired outcome by the strict rules
(:func:`fcbench.grading.strict.grade_strict`). Repairs, in this order:

1. ``call_from_text``: a text outcome that writes calls in any syntax (JSON, Python-style, call
   tags: :func:`fcbench.contract.text_calls.calls_in_text`) becomes those calls, all of them, in
   order (a name the case's ``name_map`` maps an offered tool to is read as that tool; a call of
   a tool that was not offered stays one and is scored like a real call of it);
2. in every call of an offered tool whose arguments parsed as an object, walking the arguments
   with the tool's schema (nested objects and arrays included; a local ``$ref`` is followed, and
   ``allOf`` members and the one non-null branch of an ``anyOf`` / ``oneOf`` apply to the same
   value):

   * ``unknown_key_dropped``: a key outside ``properties`` (and ``patternProperties``) of a
     schema with ``additionalProperties: false`` is removed;
   * ``numeric_string``: a string where the schema says ``integer`` or ``number`` (and not
     ``string``) becomes a number when it is exactly a JSON number (``"750"`` -> 750, ``"1.5"`` ->
     1.5 for ``number``; never ``"12abc"``, ``" 750"``, ``"0750"``, or ``"1.5"`` for ``integer``);
   * ``enum_case``: a string that is not an enum member becomes the member it equals when case
     is folded and surrounding whitespace stripped, when exactly one member does;
   * ``default_inserted``: a property missing from an object gets the schema's ``default``.

Where a default was inserted into a call, the expected calls of that tool are read with the same
default at the same place wherever they do not name it (an exact object gets the key; an
assertion expects the default, also for a key it forbids): an inserted default is what the tool
would have received, so it never counts against a call, and it satisfies an expectation that
names the key with that value. A verdict without repairs is exactly the strict verdict.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from fcbench.contract import Outcome, TextOutcome, ToolCall, ToolCallsOutcome, make_call
from fcbench.contract.text_calls import calls_in_text
from fcbench.grading.inputs import CallSpec, GradeInput
from fcbench.grading.strict import grade_strict
from fcbench.grading.verdict import Repair, RepairKind, Verdict
from fcbench.schema.patterns import bounded_search
from fcbench.schema.validate import local_ref_target

MAX_DEPTH = 32
"""Nesting levels of arguments that are walked; deeper values are left as produced."""
MAX_VIEWS = 16
"""Schema objects (``$ref`` targets, ``allOf`` members, branches) read for one value at most."""
MAX_REASON_CHARS = 300

_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


def exact_number(text: str, types: set[str]) -> int | float | None:
    """The number ``text`` is exactly (a JSON number, integral for ``integer``), or None."""
    try:
        if "integer" in types and _INTEGER.fullmatch(text):
            return int(text)
        if "number" in types and _NUMBER.fullmatch(text):
            value = json.loads(text)
            return value if isinstance(value, int) or math.isfinite(value) else None
    except ValueError:  # more digits than Python converts
        return None
    return None


def _null_only(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") == "null"


def _views(node: Any, root: Any) -> list[dict[str, Any]]:
    """The schema objects that apply to one value at ``node``: the node (a local ``$ref``
    followed), its ``allOf`` members, and the one non-null branch of its ``anyOf`` / ``oneOf``."""
    found: list[dict[str, Any]] = []
    pending = [node]
    while pending and len(found) < MAX_VIEWS:
        current = pending.pop(0)
        if not isinstance(current, dict):
            continue
        found.append(current)
        ref = current.get("$ref")
        if isinstance(ref, str):
            with contextlib.suppress(KeyError):  # a reference to nothing applies nothing
                pending.append(local_ref_target(root, ref))
        members = current.get("allOf")
        pending += members if isinstance(members, list) else []
        for keyword in ("anyOf", "oneOf"):
            branches = current.get(keyword)
            if isinstance(branches, list):
                real = [branch for branch in branches if not _null_only(branch)]
                pending += real if len(real) == 1 else []
    return found


def _first(views: Sequence[dict[str, Any]], keyword: str) -> Any:
    return next((view[keyword] for view in views if keyword in view), None)


def _types(views: Sequence[dict[str, Any]]) -> set[str]:
    declared = _first(views, "type")
    if isinstance(declared, str):
        return {declared}
    return {t for t in declared if isinstance(t, str)} if isinstance(declared, list) else set()


def _properties(views: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Property name -> the schema of its value (several views' schemas combined by ``allOf``)."""
    merged: dict[str, list[Any]] = {}
    for view in views:
        properties = view.get("properties")
        if isinstance(properties, dict):
            for name, sub in properties.items():
                merged.setdefault(name, []).append(sub)
    return {name: subs[0] if len(subs) == 1 else {"allOf": subs} for name, subs in merged.items()}


def _allowed_by(view: dict[str, Any], key: str) -> bool:
    """Whether a view closed by ``additionalProperties: false`` allows ``key`` (an unanswered
    pattern allows it: nothing is dropped on a guess)."""
    properties = view.get("properties")
    if isinstance(properties, dict) and key in properties:
        return True
    patterns = view.get("patternProperties")
    return isinstance(patterns, dict) and any(bounded_search(p, key) is not False for p in patterns)


def _default_holder(node: Any, root: Any) -> dict[str, Any] | None:
    """The first schema object that gives a value at ``node`` a ``default``, or None."""
    return next((view for view in _views(node, root) if "default" in view), None)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


@dataclass
class _Walk:
    """One walk of a value with its schema, building the repaired copy (the input is never changed)."""

    root: Any
    """The tool's parameters schema (``$ref`` targets are looked up in it)."""
    defaults_at: frozenset[str] | None = None
    """Reading an expectation: only insert defaults, and only at these paths; None: every repair."""
    found: list[tuple[RepairKind, str, Any, Any]] = field(default_factory=list)
    """``(kind, path, before, after)`` of every repair made, in order."""

    def value(self, value: Any, node: Any, path: str, depth: int) -> Any:
        views = _views(node, self.root) if depth <= MAX_DEPTH else []
        if not views:
            return value
        if isinstance(value, dict):
            return self._object(value, views, path, depth)
        if isinstance(value, list):
            return self._array(value, views, path, depth)
        if isinstance(value, str) and self.defaults_at is None:
            return self._string(value, views, path)
        return value

    def _object(self, value: dict[str, Any], views: list[dict[str, Any]], path: str, depth: int) -> Any:
        properties = _properties(views)
        closed = [view for view in views if view.get("additionalProperties") is False]
        schemas = [v for v in views if isinstance(v.get("additionalProperties"), dict)]
        extra = _first(schemas, "additionalProperties")
        out: dict[str, Any] = {}
        for key, item in value.items():
            where = _join(path, str(key))
            if self.defaults_at is None and any(not _allowed_by(view, str(key)) for view in closed):
                self.found.append(("unknown_key_dropped", where, item, None))
                continue
            out[key] = self.value(item, properties.get(key, extra), where, depth + 1)
        for key, sub in properties.items():
            where = _join(path, key)
            if key in value or (self.defaults_at is not None and where not in self.defaults_at):
                continue
            holder = _default_holder(sub, self.root)
            if holder is not None:
                out[key] = copy.deepcopy(holder["default"])
                self.found.append(("default_inserted", where, None, out[key]))
        return out

    def _array(self, value: list[Any], views: list[dict[str, Any]], path: str, depth: int) -> Any:
        prefix = _first(views, "prefixItems")
        prefix = prefix if isinstance(prefix, list) else []
        items = _first(views, "items")
        return [
            self.value(item, prefix[i] if i < len(prefix) else items, f"{path}[{i}]", depth + 1)
            for i, item in enumerate(value)
        ]

    def _string(self, value: str, views: list[dict[str, Any]], path: str) -> Any:
        types = _types(views)
        if types & {"integer", "number"} and "string" not in types:
            number = exact_number(value, types)
            if number is not None:
                self.found.append(("numeric_string", path, value, number))
                return number
            return value
        enum = _first(views, "enum")
        if not isinstance(enum, list) or value in enum:
            return value
        folded = value.strip().casefold()
        matches = list(dict.fromkeys(m for m in enum if isinstance(m, str) and m.casefold() == folded))
        if len(matches) != 1:
            return value
        self.found.append(("enum_case", path, value, matches[0]))
        return matches[0]


def calls_from_text(inp: GradeInput, text: str) -> list[ToolCall]:
    """The calls ``text`` writes, in any syntax (original BFCL names read as offered ones); a call
    of a tool that was not offered stays one, and is scored as such."""
    offered_as = {original: name for name, original in (inp.case.name_map or {}).items()}
    offered_as.update({name: name for name in inp.tools})
    return [
        make_call(None, offered_as.get(found.name, found.name), found.arguments)
        for found in calls_in_text(text, list(offered_as))
    ]


def repair_outcome(inp: GradeInput) -> tuple[Outcome, list[Repair]]:
    """The outcome after every repair (see the module docstring), and the repairs made, in order."""
    outcome = inp.outcome
    repairs: list[Repair] = []
    if isinstance(outcome, TextOutcome):
        written = calls_from_text(inp, outcome.text)
        if written:
            repairs += [
                Repair(
                    kind="call_from_text",
                    call=i,
                    tool=c.name,
                    after={"name": c.name, "arguments": c.arguments},
                )
                for i, c in enumerate(written)
            ]
            outcome = ToolCallsOutcome(calls=written, text=outcome.text)
    if not isinstance(outcome, ToolCallsOutcome):
        return outcome, repairs
    calls: list[ToolCall] = []
    for i, call in enumerate(outcome.calls):
        tool = inp.tools.get(call.name)
        if tool is None or call.parse_error is not None or not isinstance(call.arguments, dict):
            calls.append(call)
            continue
        walk = _Walk(tool.parameters)
        arguments = walk.value(call.arguments, tool.parameters, "", 0)
        repairs += [
            Repair(kind=kind, call=i, tool=call.name, path=path, before=before, after=after)
            for kind, path, before, after in walk.found
        ]
        calls.append(call.model_copy(update={"arguments": arguments}) if walk.found else call)
    if not repairs:
        return inp.outcome, repairs
    return outcome.model_copy(update={"calls": calls}), repairs


def _expected_with_defaults(spec: CallSpec, schema: dict[str, Any], paths: frozenset[str]) -> CallSpec:
    """``spec`` read with the schema's defaults at ``paths`` wherever it does not name them."""
    walk = _Walk(schema, defaults_at=paths)
    arguments = spec.arguments
    if arguments.exact is not None:
        return CallSpec(spec.name, replace(arguments, exact=walk.value(arguments.exact, schema, "", 0)))
    assertion = arguments.assertion
    if assertion is None:
        return spec
    properties = _properties(_views(schema, schema))
    equals = {k: walk.value(v, properties.get(k), k, 1) for k, v in assertion.requiredEquals.items()}
    one_of = {k: [walk.value(v, properties.get(k), k, 1) for v in vs] for k, vs in assertion.oneOf.items()}
    named = {*equals, *one_of, *assertion.optional, *assertion.constraints}
    forbidden = list(assertion.forbidden)
    for key, sub in properties.items():
        holder = _default_holder(sub, schema)
        if key in paths and key not in named and holder is not None:
            equals[key] = copy.deepcopy(holder["default"])
            forbidden = [k for k in forbidden if k != key]
    updated = assertion.model_copy(update={"requiredEquals": equals, "oneOf": one_of, "forbidden": forbidden})
    return CallSpec(spec.name, replace(arguments, assertion=updated))


def _summary(repairs: Sequence[Repair], several: bool) -> str:
    parts = [f"{r.kind} " + (f"calls[{r.call}]." if several else "") + (r.path or r.tool) for r in repairs]
    text = "after repairs: " + ", ".join(dict.fromkeys(parts))
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 3] + "..."


def grade_repairs(inp: GradeInput) -> Verdict:
    """Grade one observation by the strict rules after the repairs (see the module docstring)."""
    outcome, repairs = repair_outcome(inp)
    if not repairs:
        return grade_strict(inp)
    inserted: dict[str, set[str]] = {}
    for repair in repairs:
        if repair.kind == "default_inserted":
            inserted.setdefault(repair.tool, set()).add(repair.path)
    calls = tuple(
        _expected_with_defaults(spec, inp.tools[spec.name].parameters, frozenset(inserted[spec.name]))
        if spec.name in inserted
        else spec
        for spec in inp.calls
    )
    verdict = grade_strict(replace(inp, outcome=outcome, calls=calls))
    several = isinstance(outcome, ToolCallsOutcome) and len(outcome.calls) > 1
    reasons = [*verdict.reasons, _summary(repairs, several)]
    return verdict.model_copy(update={"repairs": repairs, "reasons": reasons})


def repair_counts(verdict: Mapping[str, Any]) -> dict[str, int]:
    """Repair kind -> repairs in one verdict dict (as stored in records); empty without repairs."""
    counts: dict[str, int] = {}
    for repair in verdict.get("repairs") or []:
        if isinstance(repair, Mapping):
            kind = str(repair.get("kind"))
            counts[kind] = counts.get(kind, 0) + 1
    return counts


__all__ = ["calls_from_text", "exact_number", "grade_repairs", "repair_counts", "repair_outcome"]
