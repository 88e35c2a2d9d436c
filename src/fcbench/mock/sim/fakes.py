"""Plausible made-up values, for the personality that invents what it was not told."""

from __future__ import annotations

from typing import Any

from fcbench.mock.sim.numbers import property_unit
from fcbench.mock.sim.schemas import (
    Schema,
    branches,
    fits,
    main_type,
    properties,
    required,
    resolve,
    sample_for_pattern,
)
from fcbench.mock.sim.text import split_identifier

BY_WORD: dict[str, Any] = {
    "email": "customer@example.com",
    "postal": "10001",
    "zip": "10001",
    "postcode": "10001",
    "country": "US",
    "currency": "USD",
    "reason": "The customer asked for it and would like this handled as quickly as possible, thank you",
    "phone": "+1 555 0100",
    "city": "Springfield",
    "name": "John Doe",
    "query": "order",
    "date": "2024-01-15",
    "notes": "Please handle this request as soon as possible",
}


MAX_INVENT_DEPTH = 6
"""Recursive schemas (a node whose children are nodes) stop here with null or an empty value."""


def invent(name: str, schema: Schema, root: Schema, seed: int = 0, depth: int = 0) -> Any:
    """A value that looks right for property ``name`` without coming from anything the user said."""
    sub = resolve(schema, root)
    if depth >= MAX_INVENT_DEPTH:
        return _empty(sub)
    if "const" in sub:
        return sub["const"]
    if sub.get("enum"):
        return sub["enum"][0]
    options = branches(sub, root)
    if len(options) > 1:
        nullable = [o for o in options if isinstance(o, dict) and resolve(o, root).get("type") == "null"]
        if depth and nullable:
            return None
        return invent(name, options[0], root, seed, depth + 1)
    kind = main_type(sub) or "string"
    words = split_identifier(name).split()
    if kind == "string":
        pattern = sub.get("pattern") if isinstance(sub.get("pattern"), str) else None
        for word in words:
            if word in BY_WORD and (pattern is None or fits(BY_WORD[word], {"pattern": pattern}, root)):
                return BY_WORD[word]
        if pattern is not None:
            sample = sample_for_pattern(pattern, seed)
            if sample is not None:
                return sample
        if sub.get("format") == "email":
            return BY_WORD["email"]
        if sub.get("format") in {"date", "date-time"}:
            return BY_WORD["date"] + ("T09:00:00Z" if sub.get("format") == "date-time" else "")
        if words and words[-1] in {"id", "number", "sku", "ref", "code"}:
            prefix = words[0][:3] if words[0] not in {"id", "number"} else "id"
            return f"{prefix.upper()}-{1000 + seed % 9000}"
        return "unknown"
    if kind in {"integer", "number"}:
        unit = property_unit(name, str(sub.get("description") or ""))
        if unit is not None and unit[0] == "weight":
            return int(1000 / unit[1]) or 1
        if "default" in sub:
            return sub["default"]
        return 10 if {"limit", "count", "quantity"} & set(words) else 0
    if kind == "boolean":
        return True
    if kind == "array":
        return [invent(name.rstrip("s"), sub.get("items") or {}, root, seed, depth + 1)]
    if kind == "object":
        return {
            p: invent(p, s, root, seed, depth + 1)
            for p, s in properties(sub, root).items()
            if p in required(sub, root)
        }
    return None


def _empty(sub: Schema) -> Any:
    """The smallest value of a schema's type: what a made-up value bottoms out at."""
    types = sub.get("type")
    kinds = types if isinstance(types, list) else [types]
    if "null" in kinds:
        return None
    empties: dict[Any, Any] = {
        "array": [],
        "object": {},
        "string": "",
        "integer": 0,
        "number": 0,
        "boolean": False,
    }
    return next((empties[k] for k in kinds if k in empties), None)
