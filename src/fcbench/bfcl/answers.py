"""BFCL possible answers to fcbench argument assertions.

A BFCL ground-truth call is ``{function: {parameter: [accepted values]}}``. Each parameter
becomes one entry of an :class:`~fcbench.suite.models.ArgumentAssertion`:

* one accepted value -> ``requiredEquals``;
* several accepted values -> ``oneOf``;
* ``""`` among the accepted values (the parameter may be omitted) -> the parameter is listed in
  ``optional`` and its other accepted values become ``constraints[parameter].enum`` (``[""]``
  when ``""`` was the only one, which BFCL reads as "leave it out");
* parameters of the function that the answer does not mention are not allowed at all (BFCL
  rejects them too).

A ``dict`` parameter's accepted values are themselves per-key lists (``{"min": [300000]}``);
they are expanded into every concrete object they stand for (``""`` inside meaning "key left
out"), and a list of such objects into every concrete list, up to :data:`MAX_EXPANSIONS`.

Every accepted value is checked against the converted parameter schema: a value the schema
rejects (BFCL sometimes lists ``None`` for a float, or a nested list for a list of strings) is
dropped with a warning, and a parameter left with no acceptable value makes the entry
unsupported.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator

from fcbench.contract import canonical_json
from fcbench.grading.jsonvalues import short
from fcbench.suite.tools import FORMAT_CHECKER

MAX_EXPANSIONS = 256
"""The most concrete values one accepted ``dict`` (or list of dicts) value may expand into."""

OMITTED = ""
"""BFCL's marker for "this parameter (or dict key) may be left out"."""


class UnsupportedAnswer(ValueError):
    """A possible answer that cannot be expressed as an fcbench assertion (the entry is skipped)."""


@dataclass
class ConvertedArguments:
    """One call's assertion object and the warnings produced while building it."""

    assertion: dict[str, Any]
    """``{"requiredEquals", "oneOf", "optional", "constraints"}`` (empty parts left out)."""
    warnings: list[str] = field(default_factory=list)


def _is_omitted(value: Any) -> bool:
    return isinstance(value, str) and value == OMITTED


def _expand_dict(option: Any, where: str) -> list[dict[str, Any]]:
    """Every concrete object a BFCL per-key dict answer stands for."""
    if not isinstance(option, Mapping):
        raise UnsupportedAnswer(f"{where}: a dict answer must be an object of per-key lists")
    keys: list[str] = []
    choices: list[list[tuple[bool, Any]]] = []
    total = 1
    for key, alternatives in option.items():
        if not isinstance(alternatives, list) or not alternatives:
            raise UnsupportedAnswer(f"{where}.{key}: accepted values must be a non-empty list")
        keys.append(str(key))
        options = [(False, None) if _is_omitted(v) else (True, v) for v in alternatives]
        choices.append(options)
        total *= len(options)
        if total > MAX_EXPANSIONS:
            raise UnsupportedAnswer(f"{where}: more than {MAX_EXPANSIONS} accepted objects")
    return [
        {key: value for key, (present, value) in zip(keys, combo, strict=True) if present}
        for combo in itertools.product(*choices)
    ]


def _expand_dict_list(option: Any, where: str) -> list[list[dict[str, Any]]]:
    """Every concrete list a BFCL list of per-key dict answers stands for."""
    if not isinstance(option, list):
        raise UnsupportedAnswer(f"{where}: a list-of-dicts answer must be a list")
    per_item = [_expand_dict(item, f"{where}[{index}]") for index, item in enumerate(option)]
    total = 1
    for expansions in per_item:
        total *= len(expansions)
        if total > MAX_EXPANSIONS:
            raise UnsupportedAnswer(f"{where}: more than {MAX_EXPANSIONS} accepted lists")
    return [list(combo) for combo in itertools.product(*per_item)]


def _concrete_options(options: list[Any], bfcl_node: Mapping[str, Any], where: str) -> list[Any]:
    bfcl_type = bfcl_node.get("type")
    items = bfcl_node.get("items")
    item_type = items.get("type") if isinstance(items, Mapping) else None
    if bfcl_type == "dict":
        return [value for option in options for value in _expand_dict(option, where)]
    if bfcl_type in ("array", "tuple") and item_type == "dict":
        return [value for option in options for value in _expand_dict_list(option, where)]
    return list(options)


def _unique(values: list[Any]) -> list[Any]:
    seen: set[str] = set()
    unique: list[Any] = []
    for value in values:
        key = canonical_json(value)
        if key not in seen:
            seen.add(key)
            unique.append(value)
    return unique


def convert_arguments(
    answer: Any,
    function: str,
    bfcl_properties: Mapping[str, Any],
    json_properties: Mapping[str, Any],
) -> ConvertedArguments:
    """Turn one ground-truth call's ``{parameter: [accepted values]}`` into an assertion object.

    ``bfcl_properties`` are the function's original BFCL parameter schemas (for ``dict``
    expansion) and ``json_properties`` the converted JSON Schemas (to check accepted values).
    Raises :class:`UnsupportedAnswer` when the answer cannot be expressed.
    """
    if not isinstance(answer, Mapping):
        raise UnsupportedAnswer(f"{function}: the answer's parameters must be an object")
    required: dict[str, Any] = {}
    one_of: dict[str, list[Any]] = {}
    optional: list[str] = []
    constraints: dict[str, dict[str, Any]] = {}
    warnings: list[str] = []
    for key, values in answer.items():
        where = f"{function}.{key}"
        if not isinstance(values, list) or not values:
            raise UnsupportedAnswer(f"{where}: accepted values must be a non-empty list")
        may_omit = any(_is_omitted(v) for v in values)
        if key not in json_properties:
            if may_omit:
                warnings.append(
                    f"{where}: not a parameter of the function; dropped (the answer let it be omitted)"
                )
                continue
            raise UnsupportedAnswer(f"{where}: the answer requires a parameter the function does not have")
        bfcl_node = bfcl_properties.get(key)
        options = [v for v in values if not _is_omitted(v)]
        options = _concrete_options(options, bfcl_node if isinstance(bfcl_node, Mapping) else {}, where)
        validator = Draft202012Validator(json_properties[key], format_checker=FORMAT_CHECKER)
        kept: list[Any] = []
        for option in _unique(options):
            error = next(iter(validator.iter_errors(option)), None)
            if error is None:
                kept.append(option)
            else:
                warnings.append(f"{where}: dropped accepted value {short(option)} ({error.message[:120]})")
        if may_omit:
            optional.append(key)
            constraints[key] = {"enum": kept or [OMITTED]}
        elif not kept:
            raise UnsupportedAnswer(f"{where}: no accepted value satisfies the parameter's schema")
        elif len(kept) == 1:
            required[key] = kept[0]
        else:
            one_of[key] = kept
    assertion: dict[str, Any] = {"requiredEquals": required}
    if one_of:
        assertion["oneOf"] = one_of
    if optional:
        assertion["optional"] = optional
        assertion["constraints"] = constraints
    return ConvertedArguments(assertion=assertion, warnings=warnings)


__all__ = ["MAX_EXPANSIONS", "OMITTED", "ConvertedArguments", "UnsupportedAnswer", "convert_arguments"]
