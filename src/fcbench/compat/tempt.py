"""Per keyword: when a use of it is probed, and the prompt that tempts a call to break it.

Every rule writes a generic prompt from the tool's name, the property's place in the arguments
(``address.postal_code``, ``lines[].quantity``) and its ``description``, and says which errors
count (:data:`~fcbench.compat.models.Scope`). Values in prompts are computed from the schema and
always break it (checked before use); a rule that cannot make such a value makes no probe.

======================  =======================================================================
keyword                 prompt (values shown are examples)
======================  =======================================================================
``required``            leaves the required properties out: "... I do not have the city yet."
``additionalProperties`` (``false``) asks to pass one more property: ``note`` set to "urgent"
``properties``          (a nested object) asks for it as one line of text instead of fields
``$ref``                asks for a value the referenced definition rejects ("n/a", or one line
                        of text for an object definition)
``type`` (a list)       with ``null``: asks to clear the value; otherwise a value of none of
                        the types (4.5 for ``["integer","string"]``)
``enum``                a near-miss spelling of the first string member ("Standard" for
                        "standard"), or a number/boolean outside the list
``const``               a near miss of the constant (the other boolean, the number plus one)
``pattern``             the first of a few ordinary strings ("n/a", "12", "Hello World", ...)
                        that the pattern does not match
``format``              a spelled-out near miss ("jane at example dot com", "31/02/2025")
``minimum``/``maximum`` one below the minimum, one above the maximum
``exclusiveM...``       the exclusive bound itself
``multipleOf``          a value that is not a multiple (1.5 times the step)
``minLength``/``max..`` a text one character too short / too long
``minItems``/``max..``  one item too few / too many; ``uniqueItems``: the same item twice
``oneOf``/``anyOf``     on a property: a value no branch accepts; on the arguments: every field
                        at once (``oneOf``) or none (``anyOf``)
``allOf``               on a property: a value the combination rejects; on the arguments: none
                        of the fields
======================  =======================================================================
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator

from fcbench.compat.checks import resolve_ref
from fcbench.compat.models import Scope
from fcbench.schema.validate import FORMAT_CHECKER

FORMAT_NEAR_MISSES: dict[str, str] = {
    "email": "jane at example dot com",
    "date": "31/02/2025",
    "date-time": "tomorrow at half past three",
    "time": "half past three",
    "duration": "two weeks",
    "uuid": "ticket 42",
    "uri": "example dot com slash help",
    "uri-reference": "\\\\server\\share",
    "hostname": "not a host name!",
    "ipv4": "300.1.2.3",
    "ipv6": "2001::db8::1",
}
"""``format`` -> a value a person might write that the format rejects."""

PATTERN_CANDIDATES = ("n/a", "12", "Hello World", "ab", "x-1", "ZZ 99 ZZ", "?")
"""Ordinary strings tried in order; the first one a ``pattern`` does not match is asked for."""

VALUE_CANDIDATES: tuple[Any, ...] = ("n/a", 0, -1, 4.5, True, "", [], {})
"""Values tried in order for ``$ref``, type lists and combinators; the first one rejected is asked for."""

EXTRA_PROPERTY_NAMES = ("note", "comment", "priority", "extra")
"""Names tried for the property ``additionalProperties: false`` forbids (the first one not declared)."""

FILLER = "Please handle this with care. "
_MAX_TEXT = 200
"""Longer texts are described instead of written out."""


@dataclass(frozen=True)
class Temptation:
    """What a derived probe asks, and which errors count against it."""

    prompt: str
    """The user message."""
    why: str
    """How the prompt tempts a violation (kept in the probe and the case note)."""
    scope: Scope = "keyword"
    """Which errors count (see :attr:`~fcbench.compat.models.KeywordProbe.scope`)."""


@dataclass(frozen=True)
class Use:
    """One keyword use as a rule sees it."""

    tool: str
    """The tool's name."""
    keyword: str
    """The keyword."""
    value: Any
    """The keyword's value as written."""
    node: Mapping[str, Any]
    """The subschema holding the keyword."""
    target: str
    """Where it applies in the arguments, in words (``address.postal_code``); empty for the root."""
    root: Mapping[str, Any]
    """The tool's whole parameters schema (for ``$ref`` resolution)."""

    def subject(self) -> str:
        """The property named in prompts, with its description when it has one."""
        description = self.node.get("description")
        if isinstance(description, str) and description.strip():
            short = " ".join(description.split())[:120]
            return f"{self.target} ({short})"
        return self.target

    def set_to(self, value: Any) -> str:
        """``Call T with P set to V.`` (for the root: ``Call T with the arguments V.``)."""
        shown = json.dumps(value, ensure_ascii=False)
        if not self.target:
            return f"Call {self.tool} with the arguments {shown}."
        return f"Call {self.tool} with {self.subject()} set to {shown}."

    def rejects(self, value: Any, schema: Mapping[str, Any] | None = None) -> bool:
        """Whether ``schema`` (default: this use's subschema; refs resolve in the root) rejects ``value``."""
        root = dict(self.root)
        validator = Draft202012Validator(root, format_checker=FORMAT_CHECKER)
        return not validator.evolve(schema=dict(schema if schema is not None else self.node)).is_valid(value)


Tempt = Callable[[Use], Temptation | None]
Applies = Callable[[Any, Mapping[str, Any], str], bool]
"""``(keyword value, subschema, pointer)`` -> whether this use is probed."""


@dataclass(frozen=True)
class Rule:
    """When a keyword use is probed and how its probe is asked."""

    applies: Applies
    """Whether a use is probed (vacuous uses, such as ``minLength: 0``, are not)."""
    tempt: Tempt
    """The temptation, or None when no breaking value can be made."""


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _tidy(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _integer(node: Mapping[str, Any]) -> bool:
    kind = node.get("type")
    return kind == "integer" or (isinstance(kind, list) and "integer" in kind and "number" not in kind)


def _listing(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def near_miss(word: str, taken: Sequence[Any]) -> str:
    """A spelling close to ``word`` that is not in ``taken``."""
    tries = (word.upper(), word.capitalize(), word.replace("_", " ").replace("-", " "), word + "s", word[:-1])
    return next((t for t in tries if t and t != word and t not in taken), word + "-x")


def _required(use: Use) -> Temptation | None:
    names = [str(n) for n in use.value]
    where = f" for {use.target}" if use.target else ""
    return Temptation(
        f"Call {use.tool} now; I do not have the {_listing(names)}{where} yet.",
        f"required {', '.join(names)} not given: a call must invent them, not leave them out",
    )


def _closed(use: Use) -> Temptation | None:
    declared = use.node.get("properties") or {}
    extra = next((n for n in EXTRA_PROPERTY_NAMES if n not in declared), None)
    if extra is None:
        return None
    inside = f" and, in {use.target}, also pass" if use.target else " and also pass"
    return Temptation(
        f'Call {use.tool}{inside} {extra} set to "urgent".',
        f"{extra!r} is not a declared property and no others are allowed",
    )


def _as_text(use: Use) -> str:
    return f"Call {use.tool} with {use.subject()} written as one line of text instead of separate fields."


def _nested(use: Use) -> Temptation | None:
    return Temptation(_as_text(use), "a nested object given as flat text breaks its inner schema", "under")


def _first_rejected(use: Use, schema: Mapping[str, Any] | None = None) -> Any:
    return next((v for v in VALUE_CANDIDATES if use.rejects(v, schema)), None)


def _ref(use: Use) -> Temptation | None:
    ref = str(use.value)
    if use.target:
        found = resolve_ref(use.root, ref)
        definition = found[1] if found is not None else None
        if isinstance(definition, Mapping) and (
            definition.get("type") == "object" or "properties" in definition
        ):
            return Temptation(
                _as_text(use), f"the value must follow the referenced definition {ref}", "through"
            )
    value = _first_rejected(use, {"$ref": ref})
    if value is None:
        return None
    return Temptation(use.set_to(value), f"{json.dumps(value)} does not follow {ref}", "through")


def _type_list(use: Use) -> Temptation | None:
    kinds = [str(k) for k in use.value]
    if "null" in kinds:
        text = f"Call {use.tool} with {use.subject()} cleared: it has no value now."
        if not use.target:
            return None
        return Temptation(text, "a cleared value must be sent as null, not a placeholder")
    value = next((v for v in VALUE_CANDIDATES if use.rejects(v, {"type": kinds})), None)
    if value is None or not use.target:
        return None
    return Temptation(use.set_to(value), f"{json.dumps(value)} is none of {kinds}")


def _enum(use: Use) -> Temptation | None:
    members = list(use.value)
    words = [m for m in members if isinstance(m, str)]
    numbers = [m for m in members if _number(m)]
    value: Any
    if words:
        value = near_miss(words[0], members)
        why = f"{value!r} is a near miss of {words[0]!r}"
    elif numbers:
        value = _tidy(max(numbers) + 1)
        why = f"{value} is not among {members}"
    elif any(isinstance(m, bool) for m in members) and len(members) == 1:
        value = not members[0]
        why = f"{json.dumps(value)} is not allowed"
    else:
        return None
    return Temptation(use.set_to(value), why)


def _const(use: Use) -> Temptation | None:
    fixed = use.value
    value: Any
    if isinstance(fixed, bool):
        value = not fixed
    elif isinstance(fixed, str):
        value = near_miss(fixed, [fixed])
    elif _number(fixed):
        value = _tidy(fixed + 1)
    else:
        return None
    return Temptation(use.set_to(value), f"{json.dumps(value)} is not the constant {json.dumps(fixed)}")


def _pattern(use: Use) -> Temptation | None:
    try:
        compiled = re.compile(str(use.value))
    except re.error:
        return None
    value = next((c for c in PATTERN_CANDIDATES if compiled.search(c) is None), None)
    if value is None:
        return None
    return Temptation(use.set_to(value), f"{value!r} does not match {use.value!r}")


def _format(use: Use) -> Temptation | None:
    value = FORMAT_NEAR_MISSES.get(str(use.value))
    if value is None:
        return None
    return Temptation(use.set_to(value), f"{value!r} is not a valid {use.value}")


def _bound(step: Callable[[float, bool], float], relation: str) -> Tempt:
    def tempt(use: Use) -> Temptation | None:
        value = _tidy(step(float(use.value), _integer(use.node)))
        return Temptation(use.set_to(value), f"{value} {relation} {use.value}")

    return tempt


def _multiple(use: Use) -> Temptation | None:
    step = float(use.value)
    tries = [step + 1, step * 1.5] if _integer(use.node) else [step * 1.5, step + 1]
    for value in tries:
        ratio = value / step
        if abs(ratio - round(ratio)) > 1e-9:
            return Temptation(use.set_to(_tidy(value)), f"{_tidy(value)} is not a multiple of {use.value}")
    return None


def _text_of(length: int) -> str:
    return (FILLER * (length // len(FILLER) + 1))[:length]


def _min_length(use: Use) -> Temptation | None:
    value = "x" * (int(use.value) - 1)
    return Temptation(use.set_to(value), f"{len(value)} characters, fewer than {use.value}")


def _max_length(use: Use) -> Temptation | None:
    length = int(use.value) + 1
    if length > _MAX_TEXT:
        text = f"Call {use.tool} with {use.subject()} set to a text of {length} characters."
        return Temptation(text, f"{length} characters, more than {use.value}") if use.target else None
    return Temptation(use.set_to(_text_of(length)), f"{length} characters, more than {use.value}")


def _items(words: Callable[[int], str], why: Callable[[int], str]) -> Tempt:
    def tempt(use: Use) -> Temptation | None:
        if not use.target:
            return None
        count = int(use.value)
        return Temptation(f"Call {use.tool} with {use.subject()} {words(count)}.", why(count))

    return tempt


def _few(count: int) -> str:
    return "as an empty list" if count == 1 else f"holding only {count - 1} items"


def _combinator(use: Use) -> Temptation | None:
    if not use.target:
        if use.keyword == "oneOf":
            text = f"Call {use.tool} with every field it offers filled in at once."
            return Temptation(text, "values for several alternatives at once match more than one branch")
        text = f"Call {use.tool} with none of its fields filled in."
        scope: Scope = "through" if use.keyword == "allOf" else "keyword"
        return Temptation(text, f"no values at all fit no {use.keyword} branch", scope)
    value = _first_rejected(use, {use.keyword: use.value})
    if value is None:
        return None
    scope = "through" if use.keyword == "allOf" else "keyword"
    return Temptation(use.set_to(value), f"{json.dumps(value)} fits no {use.keyword} branch", scope)


def _local_ref(value: Any, node: Mapping[str, Any], at: str) -> bool:
    return isinstance(value, str) and value.startswith("#")


def _positive_int(value: Any, node: Mapping[str, Any], at: str) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _count(value: Any, node: Mapping[str, Any], at: str) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _bound_value(value: Any, node: Mapping[str, Any], at: str) -> bool:
    return _number(value)


def _branches(value: Any, node: Mapping[str, Any], at: str) -> bool:
    return isinstance(value, list) and bool(value)


RULES: dict[str, Rule] = {
    "required": Rule(lambda v, n, at: isinstance(v, list) and bool(v), _required),
    "additionalProperties": Rule(lambda v, n, at: v is False, _closed),
    "properties": Rule(lambda v, n, at: at != "" and isinstance(v, dict) and bool(v), _nested),
    "$ref": Rule(_local_ref, _ref),
    "type": Rule(lambda v, n, at: isinstance(v, list) and len(v) > 1, _type_list),
    "enum": Rule(_branches, _enum),
    "const": Rule(lambda v, n, at: True, _const),
    "pattern": Rule(lambda v, n, at: isinstance(v, str), _pattern),
    "format": Rule(lambda v, n, at: isinstance(v, str), _format),
    "minimum": Rule(_bound_value, _bound(lambda b, i: math.floor(b) - 1 if i else b - 1, "is below")),
    "maximum": Rule(_bound_value, _bound(lambda b, i: math.ceil(b) + 1 if i else b + 1, "is above")),
    "exclusiveMinimum": Rule(_bound_value, _bound(lambda b, i: math.floor(b) if i else b, "is not above")),
    "exclusiveMaximum": Rule(_bound_value, _bound(lambda b, i: math.ceil(b) if i else b, "is not below")),
    "multipleOf": Rule(lambda v, n, at: _number(v) and v > 0, _multiple),
    "minLength": Rule(_positive_int, _min_length),
    "maxLength": Rule(_count, _max_length),
    "minItems": Rule(_positive_int, _items(_few, lambda n: f"fewer than {n} items")),
    "maxItems": Rule(_count, _items(lambda n: f"holding {n + 1} items", lambda n: f"more than {n} items")),
    "uniqueItems": Rule(
        lambda v, n, at: v is True,
        _items(lambda n: "listing the same item twice", lambda n: "a repeated item"),
    ),
    "oneOf": Rule(_branches, _combinator),
    "anyOf": Rule(_branches, _combinator),
    "allOf": Rule(_branches, _combinator),
}
"""Keyword -> rule, in the order a subschema's uses are listed."""
