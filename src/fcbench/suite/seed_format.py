"""The seed's own case format (``FCTestCase``), both ways: ``import cases --format seed`` and
``export cases --format seed``.

A seed file is a JSON array of objects (or JSON Lines, one object per line) with the fields
``case_id, description, user_message, conversation_history, expected_function, expected_params,
required_params, forbidden_params, category``, and optionally ``strict_params`` (the keys whose
value must match exactly, which the seed's text names). A seed case passes when the expected
function is called (``null``: no call), every required key is present and no forbidden key is;
a value of ``expected_params`` that differs is reported (``params_match: false``) but does not
fail, unless its key is in ``strict_params``.

=======================  ===========================================================================
seed field               fcbench case
=======================  ===========================================================================
case_id                  ``id``
description              ``note`` (an empty description: no note)
user_message             ``prompt``
conversation_history     ``history`` (each item a canonical message: ``{"role": "user", "content"}``...)
category                 ``category``
expected_function null   ``expected: {"kind": "text"}``
expected_function NAME   ``expected: {"kind": "tool", "name": NAME, "arguments": ...}``: ``null`` when no
                         key is expected, required or forbidden; else an assertion:
expected_params K: V     K also required: ``requiredEquals`` K: V; else ``constraints`` K: ``enum [V]``
                         (optional, checked when present); ``tolerant`` unless K is in ``strict_params``
required_params K        without an expected value: ``optional`` (see the warnings below)
forbidden_params K       ``forbidden``
(any other key)          every other parameter of the tool is ``optional`` (the seed allows it)
=======================  ===========================================================================

Export reads the same table backwards; an exact arguments object is every key required, expected
and strict, and a parameter of the tool the case does not allow becomes a forbidden key.

**What cannot be expressed is named, never dropped silently** (warnings, on stderr):

* seed -> fcbench: a required key with no expected value (fcbench has no "present, any value"
  check; it stays optional, and is only required if the tool's schema requires it); a key both
  expected and forbidden; an unknown field; an unknown category; expected keys on a case that
  expects no call; a case whose history holds no canonical message or that calls a tool the tools
  file lacks (skipped); and, once, that the seed accepts arguments outside the tool's parameters
  while fcbench counts them as unexpected;
* fcbench -> seed: several expected calls (skipped), a clarification (exported as no call),
  ``oneOf``, a constraint other than one accepted value, and the fields the seed has no place for
  (tags, tool sets, recovery scenarios, identities, labels, paraphrases, confusable tools, the
  system prompt), grouped by what is lost with the cases it concerns.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pydantic import TypeAdapter, ValidationError

from fcbench.contract import Message, Tool
from fcbench.errors import InputError
from fcbench.files import open_user_file
from fcbench.suite.imports import text_sha256
from fcbench.suite.loader import CASES_FILE, SUITE_FILE, SYSTEM_FILE
from fcbench.suite.models import Case, ExpectClarification, ExpectTool, ExpectTools, is_assertion
from fcbench.suite.reading import json_error_message, json_key_lines, line_at, strict_json_loads
from fcbench.suite.writing import prepare_suite_folder, write_json

SEED_FIELDS: tuple[str, ...] = (
    "case_id",
    "description",
    "user_message",
    "conversation_history",
    "expected_function",
    "expected_params",
    "required_params",
    "forbidden_params",
    "category",
)
"""The seed's ``FCTestCase`` fields, in its order."""

STRICT_FIELD = "strict_params"
"""The optional field of keys whose expected value must match exactly."""

CATEGORIES = ("normal", "boundary", "adversarial")
"""The seed's categories (fcbench's too)."""

FIELD_TYPES: Mapping[str, tuple[type | tuple[type, ...], Any]] = MappingProxyType(
    {
        "description": (str, ""),
        "user_message": (str, ""),
        "conversation_history": (list, []),
        "expected_function": ((str, type(None)), None),
        "expected_params": (dict, {}),
        "required_params": (list, []),
        "forbidden_params": (list, []),
        "category": (str, "normal"),
        STRICT_FIELD: (list, []),
    }
)
"""Each seed field but ``case_id``: its JSON type and its value when absent (a list of strings,
except the history)."""

_MESSAGE = TypeAdapter(Message)


@dataclass
class Conversion:
    """Cases converted one way, and what could not be expressed."""

    cases: list[dict[str, Any]] = field(default_factory=list)
    """The converted cases (fcbench case dicts on import, seed dicts on export), in input order."""
    warnings: list[str] = field(default_factory=list)
    """One line per thing lost or changed."""
    skipped: list[str] = field(default_factory=list)
    """Ids of the cases that could not be converted at all (each also in a warning)."""


@dataclass(frozen=True)
class SeedItem:
    """One object of a seed file, with where it was read."""

    where: str
    """``file:line`` of the object."""
    data: dict[str, Any]


def read_seed_file(text: str, path: str) -> list[SeedItem]:
    """The objects of a seed file: a JSON array, or JSON Lines; an :class:`InputError` naming file
    and line for anything else."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            value = strict_json_loads(text)
        except ValueError as exc:
            raise InputError(f"not a JSON array of cases: {json_error_message(exc)}", path=path) from None
        lines = json_key_lines(text)
        items = [(line_at(lines, (i,)) or 1, item) for i, item in enumerate(value)]
    else:
        items = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                items.append((number, strict_json_loads(line)))
            except ValueError as exc:
                raise InputError(
                    f"not a JSON line: {json_error_message(exc)}", path=path, line=number
                ) from None
    for number, item in items:
        if not isinstance(item, dict):
            raise InputError(
                f"a seed case must be a JSON object, not {type(item).__name__}", path=path, line=number
            )
    return [SeedItem(f"{path}:{number}", item) for number, item in items]


def _field(item: SeedItem, key: str, kind: type | tuple[type, ...], default: Any) -> Any:
    value = item.data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, kind):
        raise InputError(f"{key}: expected {_kind_name(kind)}, got {type(value).__name__}", path=item.where)
    if (
        isinstance(value, list)
        and key != "conversation_history"
        and not all(isinstance(v, str) for v in value)
    ):
        raise InputError(f"{key}: expected a list of strings", path=item.where)
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "a string", list: "a list", dict: "an object", type(None): "null"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _history(item: SeedItem, case_id: str, conversion: Conversion) -> list[dict[str, Any]] | None:
    history = []
    for index, message in enumerate(_field(item, "conversation_history", list, [])):
        try:
            history.append(_message_json(_MESSAGE.validate_python(message)))
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            conversion.warnings.append(
                f"{item.where}: case {case_id}: conversation_history[{index}] is not a message fcbench reads "
                f"({first['msg']}); case skipped"
            )
            return None
    return history


def _tool_arguments(
    item: SeedItem, case_id: str, tool: Tool, conversion: Conversion
) -> dict[str, Any] | None:
    """The ``arguments`` of the expected call (see the module's table)."""
    expected = _field(item, "expected_params", dict, {})
    required = _field(item, "required_params", list, [])
    forbidden = _field(item, "forbidden_params", list, [])
    strict = set(_field(item, STRICT_FIELD, list, []))
    if not (expected or required or forbidden):
        return None
    say = conversion.warnings.append
    for key in sorted(set(forbidden) & set(expected)):
        say(f"{item.where}: case {case_id}: {key} is both expected and forbidden; it is kept expected only")
    schema_required = set(tool.parameters.get("required", []))
    for key in [k for k in required if k not in expected]:
        enforced = "its schema requires it" if key in schema_required else "its schema does not require it"
        say(
            f"{item.where}: case {case_id}: required_params {key} has no expected value; fcbench cannot "
            f"require a key without one, so it is optional ({enforced})"
        )
    named = set(expected) | set(forbidden)
    others = [k for k in tool.parameters.get("properties", {}) if k not in named]
    assertion: dict[str, Any] = {"requiredEquals": {k: expected[k] for k in required if k in expected}}
    assertion["optional"] = list(dict.fromkeys([*(k for k in required if k not in expected), *others]))
    assertion["constraints"] = {k: {"enum": [v]} for k, v in expected.items() if k not in required}
    assertion["forbidden"] = [k for k in forbidden if k not in expected]
    assertion["tolerant"] = [k for k in expected if k not in strict]
    return {k: v for k, v in assertion.items() if v or k == "requiredEquals"}


def _seed_case(item: SeedItem, tools: Mapping[str, Tool], conversion: Conversion) -> dict[str, Any] | None:
    case_id = _field(item, "case_id", str, "")
    if not case_id:
        raise InputError("case_id: a non-empty string is needed", path=item.where)
    for key, (kind, default) in FIELD_TYPES.items():
        _field(item, key, kind, default)
    say = conversion.warnings.append
    for key in sorted(set(item.data) - {*SEED_FIELDS, STRICT_FIELD}):
        say(f"{item.where}: case {case_id}: unknown field {key} is not kept")
    category = _field(item, "category", str, "normal")
    if category not in CATEGORIES:
        say(
            f"{item.where}: case {case_id}: category {category!r} is not one of "
            f"{', '.join(CATEGORIES)}; kept as normal"
        )
        category = "normal"
    history = _history(item, case_id, conversion)
    if history is None:
        return None
    function = _field(item, "expected_function", (str, type(None)), None)
    if function is None:
        lost = [k for k in ("expected_params", "required_params", "forbidden_params") if item.data.get(k)]
        if lost:
            say(f"{item.where}: case {case_id}: {', '.join(lost)} of a case expecting no call are not kept")
        expected: dict[str, Any] = {"kind": "text"}
    elif function not in tools:
        say(
            f"{item.where}: case {case_id}: expected_function {function} is not in the tools file; "
            "case skipped"
        )
        return None
    else:
        arguments = _tool_arguments(item, case_id, tools[function], conversion)
        expected = {"kind": "tool", "name": function, "arguments": arguments}
    case: dict[str, Any] = {
        "id": case_id,
        "prompt": _field(item, "user_message", str, ""),
        "history": history,
    }
    case.update({"expected": expected, "category": category})
    description = _field(item, "description", str, "")
    return {**case, "note": description} if description else case


def seed_to_cases(items: Sequence[SeedItem], tools: Sequence[Tool]) -> Conversion:
    """The fcbench cases of the seed cases ``items``, offered ``tools`` (see the module)."""
    conversion = Conversion()
    by_name = {tool.name: tool for tool in tools}
    for item in items:
        case = _seed_case(item, by_name, conversion)
        if case is None:
            conversion.skipped.append(str(item.data.get("case_id")))
        else:
            conversion.cases.append(case)
    if any(c["expected"]["kind"] == "tool" and c["expected"]["arguments"] for c in conversion.cases):
        conversion.warnings.append(
            "the seed format accepts arguments outside a tool's parameters; fcbench counts them as unexpected"
        )
    return conversion


def _message_json(message: Any) -> dict[str, Any]:
    return {"role": message.role, **message.model_dump(mode="json", exclude_defaults=True)}


LOST_FIELDS: tuple[tuple[str, str], ...] = (
    ("tags", "tags"),
    ("paraphrase_of", "paraphrase_of"),
    ("confusable", "confusable tools"),
    ("recovery", "a recovery scenario"),
    ("identity", "an identity"),
    ("name_map", "a tool name map"),
)
"""Case fields the seed format has no place for, and how a warning names them."""


def _lost_fields(case: Case) -> list[str]:
    lost = [what for key, what in LOST_FIELDS if getattr(case, key)]
    if case.pending:
        lost.append("the pending label")
    if not isinstance(case.tools, str):
        lost.append("an inline tool list")
    elif case.tools != "core":
        lost.append(f"tool set {case.tools}")
    return lost


def _assertion_params(arguments: dict[str, Any], tool: Tool | None, lost: list[str]) -> dict[str, Any]:
    """The seed's params of an assertion object (see the module's table, read backwards)."""
    required_equals = dict(arguments.get("requiredEquals", {}))
    one_of = dict(arguments.get("oneOf", {}))
    constraints = dict(arguments.get("constraints", {}))
    tolerant = set(arguments.get("tolerant", []))
    expected = dict(required_equals)
    for key, constraint in constraints.items():
        enum = constraint.get("enum") if isinstance(constraint, dict) else None
        if key in required_equals:
            continue
        if isinstance(enum, list) and len(enum) == 1 and set(constraint) == {"enum"}:
            expected[key] = enum[0]
        else:
            lost.append("a constraint other than one accepted value")
    if one_of:
        lost.append("oneOf (its keys are exported as required without a value)")
    allowed = {*required_equals, *one_of, *arguments.get("optional", []), *constraints}
    forbidden = list(arguments.get("forbidden", []))
    properties = tool.parameters.get("properties", {}) if tool is not None else {}
    forbidden += [k for k in properties if k not in allowed and k not in forbidden]
    return {
        "expected_params": expected,
        "required_params": [*required_equals, *(k for k in one_of if k not in required_equals)],
        "forbidden_params": forbidden,
        STRICT_FIELD: [k for k in expected if k not in tolerant],
    }


def _call_params(call: ExpectTool, tool: Tool | None, lost: list[str]) -> dict[str, Any]:
    arguments = call.arguments
    if arguments is None:
        return {"expected_params": {}, "required_params": [], "forbidden_params": []}
    if is_assertion(arguments):
        return _assertion_params(arguments, tool, lost)
    properties = tool.parameters.get("properties", {}) if tool is not None else {}
    return {
        "expected_params": dict(arguments),
        "required_params": list(arguments),
        "forbidden_params": [k for k in properties if k not in arguments],
        STRICT_FIELD: list(arguments),
    }


def case_to_seed(case: Case, tools: Sequence[Tool], lost: list[str]) -> dict[str, Any] | None:
    """The seed case of ``case`` (offered ``tools``), appending to ``lost`` what it cannot hold;
    None when it cannot be exported at all (several expected calls)."""
    expected = case.expected
    lost += _lost_fields(case)
    if isinstance(expected, ExpectTools):
        lost.append("several expected calls (case skipped)")
        return None
    params: dict[str, Any] = {"expected_params": {}, "required_params": [], "forbidden_params": []}
    function = None
    if isinstance(expected, ExpectClarification):
        lost.append("a clarification (exported as expecting no call)")
    elif isinstance(expected, ExpectTool):
        function = expected.name
        params = _call_params(expected, next((t for t in tools if t.name == function), None), lost)
    strict = params.pop(STRICT_FIELD, [])
    seed = {
        "case_id": case.id,
        "description": case.note or "",
        "user_message": case.prompt,
        "conversation_history": [_message_json(m) for m in case.history],
        "expected_function": function,
        **params,
        "category": case.category,
    }
    return {**seed, STRICT_FIELD: strict} if strict else seed


def cases_to_seed(
    cases: Sequence[Case], tools_of: Callable[[Case], Sequence[Tool]], system: str
) -> Conversion:
    """The seed cases of ``cases`` (``tools_of(case)``: the tools it is offered), with one warning
    per kind of loss naming the cases it concerns (see the module)."""
    conversion = Conversion()
    losses: dict[str, list[str]] = {}
    for case in cases:
        lost: list[str] = []
        seed = case_to_seed(case, tools_of(case), lost)
        for what in dict.fromkeys(lost):
            losses.setdefault(what, []).append(case.id)
        if seed is None:
            conversion.skipped.append(case.id)
        else:
            conversion.cases.append(seed)
    for what, ids in losses.items():
        shown = ", ".join(ids[:CASES_NAMED]) + (
            f", {len(ids) - CASES_NAMED} more" if len(ids) > CASES_NAMED else ""
        )
        conversion.warnings.append(f"not in the seed format: {what}: {len(ids)} cases ({shown})")
    if system:
        conversion.warnings.append("not in the seed format: the suite's system prompt (system.txt)")
    conversion.warnings.append("not in the seed format: the tools (import cases takes them with --tools)")
    return conversion


CASES_NAMED = 10
"""Case ids named per kind of loss in an export warning."""


def import_seed_cases(
    path: Path, tools: Sequence[Tool], out: Path, *, name: str | None = None, force: bool = False
) -> Conversion:
    """Write a suite folder at ``out`` holding the seed file ``path``'s cases, offered ``tools``
    (``tools.core.json``; no system prompt, as the seed has none); return the conversion.

    Raises :class:`InputError` naming file and line for an unreadable file or a malformed case, for
    a non-empty ``out`` without ``force``, and when no case could be converted."""
    try:
        with open_user_file(path) as fh:  # a FIFO or a device is refused, never read
            text = fh.read().decode("utf-8-sig")
    except FileNotFoundError:
        raise InputError("no such case file", path=str(path)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"is not UTF-8: {exc.reason}", path=str(path)) from None
    conversion = seed_to_cases(read_seed_file(text, str(path)), tools)
    if not conversion.cases:
        raise InputError("no seed case could become a case (see the warnings)", path=str(path))
    prepare_suite_folder(out, force)
    info = {
        "name": name or path.stem,
        "dataset_version": f"seed+{text_sha256(text)[:8]}",
        "description": f"Imported from {path.name}: {len(conversion.cases)} cases in the seed format.",
    }
    write_json(out / SUITE_FILE, info)
    (out / SYSTEM_FILE).write_text("", encoding="utf-8")
    write_json(out / "tools.core.json", {"tools": [t.model_dump(mode="json") for t in tools]})
    lines = [json.dumps(case, ensure_ascii=False, separators=(",", ":")) for case in conversion.cases]
    (out / CASES_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return conversion


__all__ = [
    "CATEGORIES",
    "SEED_FIELDS",
    "STRICT_FIELD",
    "Conversion",
    "CASES_NAMED",
    "LOST_FIELDS",
    "SeedItem",
    "case_to_seed",
    "import_seed_cases",
    "cases_to_seed",
    "read_seed_file",
    "seed_to_cases",
]
