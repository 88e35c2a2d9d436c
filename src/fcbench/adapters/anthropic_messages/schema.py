"""The ``anthropic-messages`` tool-schema rules.

:func:`transform_schema` returns the ``input_schema`` to send and one
:class:`~fcbench.contract.SchemaChange` per edit (machinery in :mod:`fcbench.schema.transform`).

Non-strict: the schema is sent unchanged (a root ``anyOf/oneOf/allOf`` is rejected by the API even
without strict; it is sent as it is, so the rejection is measured).

Strict: the schema sent is exactly what the official ``anthropic`` SDK's ``transform_schema``
(2.17 and later, which keep a ``$ref``'s description) makes of it. Each node is rebuilt from the
keywords strict tool use takes; a test checks the result against the SDK itself on every built-in
tool and on generated schemas:

==========================================  ====================================================
node                                        what is sent (and recorded)
==========================================  ====================================================
``$ref``                                    ``$ref`` and its ``description`` (with its node's
                                            ``$defs``); every other sibling keyword is removed
``enum`` (non-empty, of scalars),           kept; ``type`` is removed beside them
``const`` (a scalar)
``anyOf``, else ``oneOf``, else ``allOf``   kept (``oneOf`` rewritten to ``anyOf``), the others
                                            removed, ``type`` removed beside them
``description``, ``title``                  kept
object (``type: object``)                   ``properties`` (added as ``{}`` when missing),
                                            ``additionalProperties: false`` (added or
                                            rewritten), ``required`` kept
string                                      ``format`` kept when one of :data:`STRICT_FORMATS`
array                                       ``items`` kept, ``minItems`` kept when 0 or 1
anything else                               moved into the description as ``{key: value, ...}``
                                            after a blank line: numeric and string bounds,
                                            ``pattern``, ``default``, ``maxItems``,
                                            ``uniqueItems``, other formats, ``$schema``, ...
a keyword whose value is null (or an        removed
empty ``format``, a non-list ``anyOf``)
==========================================  ====================================================

Where the SDK raises instead of returning a schema, there is no strict request an SDK user could
send, so fcbench sends none either: :func:`transform_schema` raises a
:class:`~fcbench.errors.CaseError` naming the tool, the node and the reason (during a run the
observation becomes a ``harness`` error: not scored, never a model failure). It does so for a
node with no ``type``, ``anyOf``, ``oneOf``, ``allOf``, scalar ``const`` or non-empty scalar
``enum`` (e.g. ``{}``); a ``type`` that is a list (``["string", "null"]``) or no JSON type, unless
an ``enum`` or ``const`` stands beside it; a subschema that is not an object (``true``, a list of
``items``); ``properties`` or ``$defs`` that are not objects; an unhashable ``format``; and a
non-string ``description`` beside keywords to move into it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NoReturn

from fcbench.contract import SchemaChange, Tool
from fcbench.errors import CaseError
from fcbench.schema.transform import Action, Walk, apply_rules

STRICT_TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})
"""The ``type`` values strict tool use takes (one string, never a list)."""

STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)
"""The ``format`` values strict tool use supports; any other is moved into the description."""

COMBINATORS = ("anyOf", "oneOf", "allOf")
"""The combinators strict tool use reads, in order of preference: only the first list is kept."""

_MOVED = "strict tool use does not support it: moved into the description"
_NULL = "strict tool use ignores a null (or empty) value: removed"
_REF = "strict tool use sends a $ref with only its description (and $defs): sibling keyword removed"
_LITERAL_TYPE = "strict tool use sends an enum or const without a type"
_BRANCH_TYPE = "strict tool use sends anyOf/allOf without a type beside it"
_ONE_OF = "strict tool use does not support oneOf; anyOf is the closest"
_OTHER_BRANCH = "strict tool use keeps one combinator (anyOf, else oneOf, else allOf): removed"
_NOT_A_LIST = "strict tool use reads a combinator only as a list of schemas: removed"
_PROPERTIES = "strict tool use lists the properties of every object"
_CLOSED = "strict tool use requires additionalProperties: false on every object"


def _is_scalar(value: Any) -> bool:
    """True for a JSON scalar (the only values an ``enum`` or ``const`` is kept with)."""
    return value is None or isinstance(value, str | int | float | bool)


def _refuse(walk: Walk, path: str, why: str) -> NoReturn:
    raise CaseError(
        f"tool {walk.tool.name!r}: strict tool use cannot send the schema at {path or '/'}: {why}"
    )


def _subschemas(walk: Walk, path: str, keyword: str, values: Any) -> None:
    """Refuse unless every value of ``values`` is a schema object."""
    if any(not isinstance(value, dict) for value in values):
        _refuse(walk, path, f"{keyword} holds a value that is not a schema object")


class _Node:
    """One node being rebuilt: ``rest`` is what is left of the input, ``out`` what is sent."""

    def __init__(self, walk: Walk, node: dict[str, Any], path: str) -> None:
        self.walk, self.path = walk, path
        self.given = dict(node)
        self.rest = dict(node)
        self.out: dict[str, Any] = {}

    def record(self, keyword: str, action: Action, reason: str) -> None:
        """Record one change to this node."""
        self.walk.record(self.path, keyword, action, reason)

    def take(self, keyword: str) -> Any:
        """Pop ``keyword`` from what is left; a present null is recorded as removed."""
        value = self.rest.pop(keyword, None)
        if value is None and keyword in self.given:
            self.record(keyword, "removed", _NULL)
        return value

    def refuse(self, why: str) -> NoReturn:
        """Raise: strict tool use has no schema for this node."""
        _refuse(self.walk, self.path, why)


def _ref_and_defs(node: _Node) -> bool:
    """Keep ``$defs`` (checked) and a ``$ref``; True when the node is a reference (done)."""
    defs = node.take("$defs")
    if defs is not None:
        if not isinstance(defs, dict):
            node.refuse("$defs is not an object")
        _subschemas(node.walk, node.path, "$defs", defs.values())
        node.out["$defs"] = defs
    ref = node.take("$ref")
    if ref is None:
        return False
    node.out["$ref"] = ref
    description = node.take("description")
    if description is not None:
        node.out["description"] = description
    for keyword in node.rest:
        node.record(keyword, "removed", _REF)
    return True


def _literals(node: _Node) -> bool:
    """Keep a non-empty scalar ``enum`` and a scalar ``const``; True when there is either."""
    enum = node.rest.get("enum")
    if isinstance(enum, list) and enum and all(_is_scalar(v) for v in enum):
        node.out["enum"] = list(node.rest.pop("enum"))
    if "const" in node.rest and _is_scalar(node.rest["const"]):
        node.out["const"] = node.rest.pop("const")
    return "enum" in node.out or "const" in node.out


def _combinator(node: _Node) -> bool:
    """Keep the first combinator given as a list (``oneOf`` as ``anyOf``); True when one is."""
    given = {keyword: node.rest.pop(keyword) for keyword in COMBINATORS if keyword in node.rest}
    chosen = next((k for k in COMBINATORS if isinstance(given.get(k), list)), None)
    for keyword, value in given.items():
        if keyword == chosen:
            _subschemas(node.walk, node.path, keyword, value)
            node.out["allOf" if keyword == "allOf" else "anyOf"] = list(value)
            if keyword == "oneOf":
                node.record("oneOf", "rewritten", _ONE_OF)
        else:
            why = _NULL if value is None else _NOT_A_LIST if chosen is None else _OTHER_BRANCH
            node.record(keyword, "removed", why)
    return chosen is not None


def _object(node: _Node) -> None:
    """``properties`` (``{}`` when missing), ``additionalProperties: false``, ``required``."""
    if "properties" not in node.rest:
        node.record("properties", "added", _PROPERTIES)
    properties = node.rest.pop("properties", {})
    if not isinstance(properties, dict):
        node.refuse("properties is not an object")
    _subschemas(node.walk, node.path, "properties", properties.values())
    node.out["properties"] = properties
    if "additionalProperties" not in node.rest:
        node.record("additionalProperties", "added", _CLOSED)
    elif node.rest.pop("additionalProperties") is not False:
        node.record("additionalProperties", "rewritten", _CLOSED)
    node.out["additionalProperties"] = False
    required = node.take("required")
    if required is not None:
        node.out["required"] = list(required) if isinstance(required, list) else required


def _string(node: _Node) -> None:
    """A supported ``format`` is kept; another is left to move (last) into the description."""
    fmt = node.rest.pop("format", None)
    if fmt and isinstance(fmt, list | dict):
        node.refuse("format is not a string")
    if fmt and fmt in STRICT_FORMATS:
        node.out["format"] = fmt
    elif fmt:
        node.rest["format"] = fmt
    elif "format" in node.given:
        node.record("format", "removed", _NULL)


def _array(node: _Node) -> None:
    """``items`` is kept; ``minItems`` of 0 or 1 is kept, another moves (last) to the description."""
    items = node.take("items")
    if items is not None:
        if not isinstance(items, dict):
            node.refuse("items is not a schema object")
        node.out["items"] = items
    min_items = node.take("minItems")
    if min_items is not None and (min_items == 0 or min_items == 1):
        node.out["minItems"] = min_items
    elif min_items is not None:
        node.rest["minItems"] = min_items


_BY_TYPE: Mapping[str, Callable[[_Node], None]] = MappingProxyType(
    {"object": _object, "string": _string, "array": _array}
)
"""The keywords each type keeps, beyond the ones every node keeps."""


def _move_rest(node: _Node) -> None:
    """Move every keyword left into the description, as ``{key: value, ...}`` after a blank line."""
    if not node.rest:
        return
    description = node.out.get("description")
    if description is not None and not isinstance(description, str):
        node.refuse("description is not a string")
    note = "{" + ", ".join(f"{key}: {value}" for key, value in node.rest.items()) + "}"
    node.out["description"] = (description + "\n\n" if description is not None else "") + note
    for keyword in node.rest:
        node.record(keyword, "moved", _MOVED)


def _visit_strict(walk: Walk, node: dict[str, Any], path: str) -> None:
    """Rebuild ``node`` in place as strict tool use takes it; its subschemas are walked next."""
    state = _Node(walk, node, path)
    if not _ref_and_defs(state):
        kind = state.take("type")
        if _literals(state):
            if kind is not None:
                state.record("type", "removed", _LITERAL_TYPE)
            kind = None
        if _combinator(state):
            if kind is not None:
                state.record("type", "removed", _BRANCH_TYPE)
        elif "enum" not in state.out and "const" not in state.out:
            if kind is None:
                state.refuse("no type, anyOf, oneOf, allOf, scalar const or non-empty scalar enum")
            state.out["type"] = kind
        if kind is not None and not (isinstance(kind, str) and kind in STRICT_TYPES):
            state.refuse(f"type {kind!r} is not one JSON type")
        for keyword in ("description", "title"):
            value = state.take(keyword)
            if value is not None:
                state.out[keyword] = value
        if isinstance(kind, str) and kind in _BY_TYPE:
            _BY_TYPE[kind](state)
        _move_rest(state)
    node.clear()
    node.update(state.out)


def rules(tool: Tool, params: dict[str, Any], strict: bool) -> list[SchemaChange]:
    """Apply the Anthropic rules to ``params`` (a copy) in place; the changes made (none unless strict).

    Raises :class:`~fcbench.errors.CaseError` when strict tool use has no schema for it.
    """
    return Walk(tool, params).run(_visit_strict) if strict else []


def transform_schema(tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
    """The ``input_schema`` to send for ``tool``, and every change made to it (cached).

    Raises :class:`~fcbench.errors.CaseError` when strict tool use has no schema for it.
    """
    return apply_rules(rules, tool, strict=strict)


__all__ = ["COMBINATORS", "STRICT_FORMATS", "STRICT_TYPES", "rules", "transform_schema"]
