"""Validate tool arguments exactly as produced.

Draft 2020-12 with ``format`` checked, every error collected, and nothing changed: no type
coercion, no defaults inserted, no properties removed. The ``jsonschema`` library never mutates
the instance, which is the point. Validators are compiled once per schema and reused.

The keywords that match suite-provided regular expressions (``pattern``, ``patternProperties``
and the ``additionalProperties`` check that depends on them) use time-bounded matching
(:mod:`fcbench.schema.patterns`): a value a pattern cannot be checked against in time is an
error saying so, and validation never blocks.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError, ValidationError

from fcbench.contract.json_text import compact_json
from fcbench.errors import CaseError
from fcbench.schema.patterns import MATCH_TIMEOUT_S, RETRY_TIMEOUT_S, bounded_search

FORMAT_CHECKER = Draft202012Validator.FORMAT_CHECKER


@dataclass(frozen=True)
class ValidationResult:
    """Outcome of validating one arguments value against one schema."""

    valid: bool
    """True when the value satisfies the schema as produced."""
    errors: list[str] = field(default_factory=list)
    """One message per violation, each prefixed with the JSON path of the offending value."""


def _unchecked(value: str, pattern: str) -> ValidationError:
    return ValidationError(
        f"{value!r} could not be checked against {pattern!r} within "
        f"{(MATCH_TIMEOUT_S + RETRY_TIMEOUT_S) * 1000:.0f} ms "
        "(the pattern backtracks catastrophically)"
    )


def _pattern(
    validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "string"):
        return
    found = bounded_search(pattern, instance)
    if found is None:
        yield _unchecked(instance, pattern)
    elif not found:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            found = bounded_search(pattern, key)
            if found is None:
                yield _unchecked(key, pattern)
            elif found:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [
        key for key in instance if key not in properties and not any(bounded_search(p, key) for p in patterns)
    ]
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif allowed is False and extras:  # the messages jsonschema itself gives
        listed = ", ".join(repr(key) for key in sorted(extras, key=str))
        if patterns:
            verb = "does" if len(extras) == 1 else "do"
            regexes = ", ".join(repr(p) for p in sorted(patterns))
            yield ValidationError(f"{listed} {verb} not match any of the regexes: {regexes}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(f"Additional properties are not allowed ({listed} {verb} unexpected)")


BoundedValidator = validators.extend(
    Draft202012Validator,
    {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    },
)
"""Draft 2020-12 with every suite-provided regular expression matched under a deadline."""


_IN_PLACE_LISTS = ("allOf", "anyOf", "oneOf")
_IN_PLACE_ONE = ("not", "if", "then", "else")
"""Applicators that apply a subschema to the same value (so a loop through them never ends)."""


def local_ref_target(root: Any, ref: str) -> Any:
    """The node a local ``$ref`` (``#`` or a ``#/...`` JSON pointer) names inside ``root``;
    ``KeyError`` when it names nothing there (or is not local)."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        raise KeyError(ref)
    node = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(ref)
    return node


def ref_cycle(schema: Any) -> str | None:
    """A loop of local ``$ref`` (and ``allOf``/``anyOf``/``oneOf``/``not``/``if``/``then``/``else``)
    that never moves into the value, as ``"#/$defs/a -> #/$defs/a"``; None when there is none.

    Recursive schemas through ``properties`` or ``items`` are fine (each step consumes a level of
    the value); a loop that stays on the same value never ends, in any validator.
    """
    done: set[int] = set()

    def visit(node: Any, name: str, trail: list[tuple[int, str]]) -> str | None:
        if not isinstance(node, dict) or id(node) in done:
            return None
        ids = [i for i, _ in trail]
        if id(node) in ids:
            start = ids.index(id(node))
            return " -> ".join([n for _, n in trail[start:]] + [name])
        trail.append((id(node), name))
        steps = [
            (sub, f"{name}/{key}/{i}") for key in _IN_PLACE_LISTS for i, sub in enumerate(node.get(key) or [])
        ]
        steps += [(node[key], f"{name}/{key}") for key in _IN_PLACE_ONE if key in node]
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            with contextlib.suppress(KeyError):
                steps.append((local_ref_target(schema, ref), ref))
        for sub, sub_name in steps:
            found = visit(sub, sub_name, trail)
            if found:
                return found
        trail.pop()
        done.add(id(node))
        return None

    def every_node(node: Any, name: str) -> Any:
        if isinstance(node, dict):
            yield node, name
            for key, value in node.items():
                yield from every_node(value, f"{name}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                yield from every_node(value, f"{name}/{index}")

    for node, name in every_node(schema, "#"):
        found = visit(node, name, [])
        if found:
            return found
    return None


def _path(parts: Any) -> str:
    text = ".".join(str(p) for p in parts)
    return text or "(root)"


MAX_REMEMBERED_VALID = 1024
"""Distinct valid instances a :class:`SchemaValidator` remembers (the oldest is forgotten first), so a
run's repeated, identical arguments are validated once and its memory does not grow with the run."""


def _instance_text(instance: Any) -> bytes | None:
    """The JSON text of ``instance``, which tells two instances apart exactly as JSON Schema does
    (``1`` from ``1.0`` and ``true``, key order kept); None when it has none."""
    try:
        return compact_json(instance)
    except (RecursionError, TypeError, ValueError):
        return None


class SchemaValidator:
    """A compiled Draft 2020-12 validator for one schema, reusable across calls.

    Only valid results are remembered (by the instance's JSON text): an invalid one may hold a
    pattern that could not be checked in time, which is checked again the next time.
    """

    def __init__(self, schema: dict[str, Any]) -> None:
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            raise CaseError(f"invalid JSON Schema at {_path(exc.absolute_path)}: {exc.message}") from exc
        cycle = ref_cycle(schema)
        if cycle is not None:
            raise CaseError(f"invalid JSON Schema: a reference loop that never ends: {cycle}")
        self._validator = BoundedValidator(schema, format_checker=FORMAT_CHECKER)
        self._valid: dict[bytes, None] = {}
        """JSON texts of instances found valid, oldest first (at most :data:`MAX_REMEMBERED_VALID`)."""

    def validate(self, instance: Any) -> ValidationResult:
        """Validate ``instance`` without modifying it; collect every error, sorted by path."""
        text = _instance_text(instance)
        if text is not None and text in self._valid:
            return ValidationResult(valid=True)
        result = self._checked(instance)
        if result.valid and text is not None:
            if len(self._valid) >= MAX_REMEMBERED_VALID:
                del self._valid[next(iter(self._valid))]
            self._valid[text] = None
        return result

    def _checked(self, instance: Any) -> ValidationResult:
        try:
            errors = sorted(
                self._validator.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path]
            )
        except RecursionError:
            return ValidationResult(valid=False, errors=["(root): nested too deeply to validate"])
        messages = [f"{_path(e.absolute_path)}: {e.message}" for e in errors]
        return ValidationResult(valid=not messages, errors=messages)


MAX_SCHEMA_OBJECTS = 4096
"""Schema objects :class:`ValidatorCache` knows by identity at most (schemas made afresh for each
call are keyed by their text alone, so the cache does not grow with the run)."""


class ValidatorCache:
    """Compiles each distinct schema once (keyed by its canonical JSON) and reuses the validator."""

    def __init__(self) -> None:
        self._compiled: dict[str, SchemaValidator] = {}
        self._by_object: dict[int, tuple[dict[str, Any], SchemaValidator]] = {}
        """id of a schema object met before -> (that object, kept so its id stays its own; its
        validator): a run grades against the same few tool schemas once per observation, so each
        object's key is made once (tool schemas are never changed in place)."""

    def get(self, schema: dict[str, Any]) -> SchemaValidator:
        """Return the compiled validator for ``schema``."""
        known = self._by_object.get(id(schema))
        if known is not None and known[0] is schema:
            return known[1]
        key = json.dumps(schema, sort_keys=True, separators=(",", ":"))
        validator = self._compiled.get(key)
        if validator is None:
            validator = self._compiled[key] = SchemaValidator(schema)
        if len(self._by_object) < MAX_SCHEMA_OBJECTS:
            self._by_object[id(schema)] = (schema, validator)
        return validator

    def validate(self, schema: dict[str, Any], instance: Any) -> ValidationResult:
        """Validate ``instance`` against ``schema`` using the cached validator."""
        return self.get(schema).validate(instance)
