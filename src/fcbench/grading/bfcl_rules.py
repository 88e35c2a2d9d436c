"""BFCL's argument rules (its AST checker for Python functions), reimplemented for fcbench.

Used by the ``bfcl`` grading profile so pass rates are comparable with BFCL's. Possible answers
are in BFCL's form: parameter -> list of accepted values, where ``""`` means "may be omitted",
a ``dict`` parameter's accepted values are objects of per-key lists, and a list-of-dicts
parameter's are lists of such objects. ``None`` instead of a list means "any value" (fcbench
assertions can say that; BFCL answers cannot).

Rules for one call's arguments against the expected function's schema and the possible answer:

1. every parameter the schema marks ``required`` must be present;
2. a parameter outside the schema's properties or outside the possible answer is rejected;
3. types are Python types from the schema (:data:`PYTHON_TYPES`): an ``int`` is accepted (and
   converted) where a float is expected, but a float, a bool or a string is not accepted where an
   int is expected; ``any`` (no type) expects a string. When the accepted values have a type
   other than the schema's (BFCL's "variable" answers), a value of that type is accepted and
   compared as is, without normalisation. Arrays check their items' exact types one level deep
   (no int-for-float there: ``[6, -3]`` is rejected where an array of floats is expected, BFCL's
   ``type_error:nested``, even though its accepted values are lists too);
4. strings are compared after :func:`standardize` (spaces and ``,./-_*^`` removed, lower case,
   single quotes made double);
5. lists are compared element by element in order, string elements standardised;
6. dicts are compared one level deep: every key must be accepted, every accepted key without
   ``""`` among its values must be present, string values standardised; a list of dicts is
   compared dict by dict in order;
7. other values (numbers, booleans) must equal an accepted value (Python equality: ``5 == 5.0``);
8. every parameter of the possible answer without ``""`` among its values must be present.

BFCL stops at the first failure; these checks report every failure (a call passes exactly when
BFCL's would).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

PYTHON_TYPES: Mapping[str, type] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
}
"""JSON Schema type -> the Python type BFCL checks (a schema without a type: ``str``, as BFCL's ``any``)."""

_STRIPPED = re.compile(r"[ ,./\-_*^]")

Answers = Mapping[str, Sequence[Any] | None]
"""Possible answer of one call: parameter -> accepted values (None: any value)."""


def standardize(text: str) -> str:
    """BFCL's string normalisation: drop spaces and ``,./-_*^``, lower-case, ``'`` -> ``"``."""
    return _STRIPPED.sub("", text).lower().replace("'", '"')


def python_type(schema: Any) -> type:
    """The Python type BFCL expects for a value described by ``schema`` (a JSON Schema node)."""
    declared = schema.get("type") if isinstance(schema, Mapping) else None
    if isinstance(declared, list):
        declared = next((t for t in declared if t != "null"), None)
    return PYTHON_TYPES.get(declared, str) if isinstance(declared, str) else str


def item_type(schema: Any) -> type | None:
    """The Python type of an array's items (None when ``schema`` is not an array with typed items)."""
    if python_type(schema) is not list or not isinstance(schema, Mapping):
        return None
    items = schema.get("items")
    return python_type(items) if isinstance(items, Mapping) else None


def _answer_type(options: Sequence[Any] | None) -> type | None:
    for option in options or ():
        if not (isinstance(option, str) and option == ""):
            return type(option)
    return None


@dataclass(frozen=True)
class TypeCheck:
    """Result of BFCL's type check of one value."""

    valid: bool
    variable: bool = False
    """The accepted values are of another type than the schema's (BFCL compares them as is)."""


def check_type(value: Any, options: Sequence[Any] | None, expected: type, nested: type | None) -> TypeCheck:
    """BFCL's type check of ``value`` (already int->float converted) against ``expected``."""
    answer_type = _answer_type(options)
    variable = answer_type is not None and answer_type is not expected
    items: Any = value
    if type(value) is expected:
        if nested is None:
            return TypeCheck(True, variable)
        if options is None:
            if all(type(item) is nested for item in items):
                return TypeCheck(True, variable)
        else:
            for option in options:
                if not isinstance(option, list) or all(
                    check_type(item, option, nested, None).valid for item in items
                ):
                    return TypeCheck(True, variable)
        return TypeCheck(False)  # BFCL's type_error:nested: the variable rule does not rescue it
    if answer_type is not None and type(value) is answer_type:
        return TypeCheck(True, True)
    return TypeCheck(False)


def string_matches(value: str, options: Sequence[Any]) -> bool:
    """BFCL's string comparison: standardised value among the standardised string options."""
    return standardize(value) in [standardize(option) for option in options if isinstance(option, str)]


def _standardized_items(items: Sequence[Any]) -> list[Any]:
    return [standardize(item) if isinstance(item, str) else item for item in items]


def list_matches(value: list[Any], options: Sequence[Any]) -> bool:
    """BFCL's list comparison: element by element in order, string elements standardised."""
    mine = _standardized_items(value)
    for option in options:
        if isinstance(option, list | str) and mine == _standardized_items(list(option)):
            return True
    return False


def dict_problem(value: Mapping[str, Any], option: Any) -> str | None:
    """Why ``value`` does not match one per-key dict answer (None when it matches)."""
    if not isinstance(option, Mapping):
        return "the accepted value is not an object"
    for key, item in value.items():
        if key not in option:
            return f"unexpected key {key!r}"
        accepted = option[key] if isinstance(option[key], list) else [option[key]]
        mine = standardize(item) if isinstance(item, str) else item
        if mine not in _standardized_items(accepted):
            return f"key {key!r}: {item!r} is not accepted"
    for key, accepted in option.items():
        if key not in value and not (isinstance(accepted, list) and "" in accepted):
            return f"missing key {key!r}"
    return None


def dict_matches(value: Mapping[str, Any], options: Sequence[Any]) -> bool:
    """BFCL's dict comparison: ``value`` matches one of the per-key dict answers (``""`` skipped)."""
    return any(dict_problem(value, option) is None for option in options if option != "")


def dict_list_matches(value: list[Any], options: Sequence[Any]) -> bool:
    """BFCL's list-of-dicts comparison: same length, each dict matching in order."""
    for option in options:
        if not isinstance(option, list | str) or len(value) != len(option):
            continue
        if all(
            isinstance(item, Mapping) and dict_problem(item, accepted) is None
            for item, accepted in zip(value, option, strict=True)
        ):
            return True
    return False


@dataclass
class CallProblems:
    """Every way one call's arguments break BFCL's rules (empty lists: the call passes)."""

    missing: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    wrong: list[tuple[str, Any, Any]] = field(default_factory=list)
    """``(parameter, accepted values or expected type, actual value)``."""
    reasons: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when BFCL would accept the call's arguments."""
        return not (self.missing or self.unexpected or self.wrong or self.reasons)


def _value_ok(value: Any, options: Sequence[Any] | None, expected: type, nested: type | None) -> bool:
    if options is None:
        return True
    if expected is dict:
        return dict_matches(value, options)
    if expected is list and nested is dict:
        return dict_list_matches(value, options)
    if expected is str:
        return string_matches(value, options)
    if expected is list:
        return list_matches(value, options)
    return value in options


def check_arguments(arguments: Any, parameters: Mapping[str, Any], answers: Answers | None) -> CallProblems:
    """Check one call's arguments by BFCL's rules (see the module docstring).

    ``parameters`` is the expected tool's JSON Schema; ``answers`` is the possible answer (None:
    any parameter of the schema with any value of the right type).
    """
    out = CallProblems()
    if not isinstance(arguments, Mapping):
        out.reasons.append("arguments are not a JSON object")
        return out
    properties = parameters.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    required = parameters.get("required")
    for key in required if isinstance(required, list) else []:
        if key not in arguments:
            out.missing.append(key)
            out.reasons.append(f"missing required parameter {key!r}")
    for key, raw in arguments.items():
        if key not in properties or (answers is not None and key not in answers):
            out.unexpected.append(key)
            out.reasons.append(f"unexpected parameter {key!r}")
            continue
        options = None if answers is None else answers[key]
        expected, nested = python_type(properties[key]), item_type(properties[key])
        value = float(raw) if expected is float and type(raw) is int else raw
        typed = check_type(value, options, expected, nested)
        if not typed.valid:
            out.wrong.append((key, expected.__name__, raw))
            if nested is not None and type(value) is expected:
                out.reasons.append(f"{key}: {raw!r} is not an array of {nested.__name__} (nested type check)")
            else:
                out.reasons.append(f"{key}: {raw!r} is not of type {expected.__name__}")
        elif typed.variable and options is not None and value not in options:
            out.wrong.append((key, list(options), raw))
            out.reasons.append(f"{key}: {raw!r} is not one of {list(options)!r}")
        elif not typed.variable and not _value_ok(value, options, expected, nested):
            out.wrong.append((key, list(options or []), raw))
            out.reasons.append(f"{key}: {raw!r} is not one of {list(options or [])!r}")
    for key, options in (answers or {}).items():
        if key not in arguments and options is not None and "" not in options and key not in out.missing:
            out.missing.append(key)
            out.reasons.append(f"parameter {key!r} is not optional and was not provided")
    return out


__all__ = [
    "PYTHON_TYPES",
    "Answers",
    "CallProblems",
    "TypeCheck",
    "check_arguments",
    "check_type",
    "dict_list_matches",
    "dict_matches",
    "dict_problem",
    "item_type",
    "list_matches",
    "python_type",
    "standardize",
    "string_matches",
]
