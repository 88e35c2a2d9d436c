"""Schema-driven extraction of argument values from user text.

For each property of a tool's schema the extractor looks for evidence in the text, guided by what
the schema says: a ``pattern`` finds identifiers, an ``enum`` finds its words (and synonyms), a
``format`` finds emails and dates, property names hint at countries, postal codes, units and
counts. Each value is kept in three renderings: the careful one (normalised and within the schema's
constraints), the unbounded one (normalised, constraints ignored) and the loose one (as a careless
model would copy it from the text).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from fcbench.mock.sim import values as v
from fcbench.mock.sim.evidence import Context, Found
from fcbench.mock.sim.schemas import Schema, branches, main_type, properties, required, resolve, schema_key
from fcbench.mock.sim.strings import is_id_name

FANOUT_KINDS = frozenset({"pattern", "id"})
Order = tuple[tuple[str, Schema, bool], ...]


@dataclass(frozen=True)
class Extraction:
    """What the text supplies for one object schema."""

    values: dict[str, Found] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    """Required properties (dotted paths when nested) with no usable value."""
    conflicts: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    """Scalar properties for which the text gives several different values and no correction."""
    fanout: dict[str, tuple[Found, ...]] = field(default_factory=dict)
    """Identifier properties with several values (one call per value)."""
    problems: dict[str, str] = field(default_factory=dict)
    """Required properties whose only value violates the schema, with the reason."""

    @property
    def complete(self) -> bool:
        """True when every required value is present, usable and unambiguous."""
        return not self.missing and not self.conflicts

    def args(self, style: str = "careful") -> dict[str, Any]:
        """Arguments in one rendering: ``careful`` (value), ``unbounded`` or ``loose``."""
        out: dict[str, Any] = {}
        for name, found in self.values.items():
            chosen = {"careful": found.value, "unbounded": found.unbounded, "loose": found.loose}[style]
            if chosen is not None:
                out[name] = chosen
        return out

    def strength(self) -> float:
        """Total evidence strength of the values found."""
        return sum(f.strength for f in self.values.values() if f.value is not None or f.unbounded is not None)


def reading_order(schema: Schema, root: Schema) -> Order:
    """An object schema's properties (name, schema with references resolved, whether required), the
    most specific evidence first (a property read earlier claims its span), ties in declared order."""
    props, needed = properties(resolve(schema, root), root), required(resolve(schema, root), root)
    ranked = sorted(props, key=lambda n: (_priority(n, props[n], root), list(props).index(n)))
    return tuple((name, props[name], name in needed) for name in ranked)


def _priority(name: str, schema: Schema, root: Schema) -> int:
    sub = resolve(schema, root)
    kind = main_type(sub)
    lname = name.lower()
    if "const" in sub:
        return 0
    if kind == "string":
        if sub.get("pattern") or sub.get("format") in {"email", "date", "date-time"} or "email" in lname:
            return 1
        if any(k in lname for k in ("postal", "zip", "postcode")):
            return 2
        return 3 if sub.get("enum") else 4 if is_id_name(lname) else 5 if "country" in lname else 9
    if kind in {"integer", "number"}:
        return 6
    return 7 if kind in {"array", "object"} else 8


def candidates(name: str, schema: Schema, root: Schema, ctx: Context) -> list[Found]:
    """Every value the text offers for property ``name`` (spans not yet claimed), in text order."""
    sub = resolve(schema, root)
    if "const" in sub:
        const = sub["const"]
        said = isinstance(const, str) and re.search(rf"(?<!\w){re.escape(const)}(?!\w)", ctx.text, re.I)
        return [Found(const, const, const, "const", 1.0 if said else 0.2)]
    options = branches(sub, root)
    if len(options) > 1:
        scored = [
            (max((f.strength for f in candidates(name, o, root, ctx.copy())), default=0.0), o)
            for o in options
        ]
        top = max(scored, key=lambda pair: pair[0])
        return candidates(name, top[1], root, ctx) if top[0] > 0 else []
    kind = main_type(sub)
    if kind == "array":
        return _array(name, sub, root, ctx)
    if kind == "object":
        return _object(sub, root, ctx)
    finder = v.FINDERS.get(kind or "string", v.find_string)
    return [f for f in finder(name, sub, root, ctx) if ctx.free(f.start, f.end)]


def _object(schema: Schema, root: Schema, ctx: Context) -> list[Found]:
    inner = extract_object(reading_order(schema, root), root, ctx)
    if all(f.kind == "const" for f in inner.values.values()):
        return []
    renderings = (inner.args("careful"), inner.args("unbounded"), inner.args("loose"))
    return [Found(*renderings, "object", inner.strength(), missing=inner.missing + tuple(inner.conflicts))]


def _array(name: str, schema: Schema, root: Schema, ctx: Context) -> list[Found]:
    items = resolve(schema.get("items") or {}, root)
    if main_type(items) == "object":
        objects = _objects_from_segments(items, root, ctx)
        if not objects:
            return []
        found = [
            Found(o.args("careful"), o.args("unbounded"), o.args("loose"), "object", o.strength())
            for o in objects
        ]
    else:
        singular = name[:-1] if name.endswith("s") else name
        found = candidates(singular, items, root, ctx)
    distinct: list[Found] = []
    for item in found:
        if all(item.unbounded != seen.unbounded for seen in distinct):
            distinct.append(item)
    if not distinct:
        return []
    for item in distinct:
        ctx.claim(item)
    careful = [item.value for item in distinct if item.value is not None]
    limit = schema.get("maxItems")
    if isinstance(limit, int):
        careful = careful[:limit]
    low = schema.get("minItems")
    problem = f"needs at least {low} items" if isinstance(low, int) and len(careful) < low else ""
    return [
        Found(
            careful if not problem else None,
            [i.unbounded for i in distinct],
            [i.loose for i in distinct],
            "array",
            max(i.strength for i in distinct),
            problem=problem,
        )
    ]


def _objects_from_segments(items: Schema, root: Schema, ctx: Context) -> list[Extraction]:
    order = reading_order(items, root)
    needed = required(items, root) or [name for name, _, _ in order]
    anchor = next(((n, s) for n, s, _ in order if n in needed and _priority(n, s, root) <= 4), None)
    if anchor is None:
        return []
    hits = [f for f in candidates(*anchor, root, Context(ctx.text)) if f.start >= 0]
    if not hits:
        return []
    text = ctx.text
    numbers_first = any(n.end <= hits[0].start for n in ctx.numbers)
    out: list[Extraction] = []
    for i, hit in enumerate(hits):
        if numbers_first:
            start = hits[i - 1].end if i else 0
            segment = text[start : hit.end]
        else:
            end = hits[i + 1].start if i + 1 < len(hits) else len(text)
            segment = text[hit.start : end]
        out.append(extract_object(order, root, Context(segment)))
        ctx.claim(hit)
    return out


def _choose(found: list[Found], ctx: Context) -> tuple[Found | None, tuple[Found, ...], tuple[Any, ...]]:
    """Pick one value; return (chosen, fan-out values, conflicting values)."""
    if not found:
        return None, (), ()
    top = max(found, key=lambda f: f.strength)
    if top.kind in FANOUT_KINDS:
        best = [f for f in found if f.kind == top.kind and f.value is not None]
    else:
        best = [f for f in found if f.strength >= top.strength - 1e-9]
    distinct: list[Found] = []
    for f in best:
        if all(f.unbounded != d.unbounded for d in distinct):
            distinct.append(f)
    if len(distinct) <= 1:
        return (distinct[0] if distinct else top), (), ()
    if top.kind in FANOUT_KINDS:
        return distinct[0], tuple(distinct), ()
    if top.kind == "text":
        return distinct[0], (), ()
    if ctx.correction:
        return max(distinct, key=lambda f: f.start), (), ()
    return distinct[0], (), tuple(d.unbounded for d in distinct)


def extract_object(order: Order, root: Schema, ctx: Context) -> Extraction:
    """Extract every property of an object schema, in its :func:`reading_order`, from ``ctx``
    (claims spans as it goes)."""
    values: dict[str, Found] = {}
    missing: list[str] = []
    conflicts: dict[str, tuple[Any, ...]] = {}
    fanout: dict[str, tuple[Found, ...]] = {}
    problems: dict[str, str] = {}
    for name, sub, needed in order:
        chosen, several, clash = _choose(candidates(name, sub, root, ctx), ctx)
        if chosen is None:
            if needed:
                missing.append(name)
            continue
        for f in several or (chosen,):
            ctx.claim(f)
        if clash and not needed:
            continue
        if clash:
            conflicts[name] = clash
        if several:
            fanout[name] = several
        values[name] = chosen
        if needed and chosen.value is None:
            problems[name] = chosen.problem or "not usable"
            missing.append(name)
        if needed and chosen.missing:
            missing.extend(f"{name}.{m}" for m in chosen.missing)
    return Extraction(values, tuple(missing), conflicts, fanout, problems)


def extract(schema: Schema, text: str) -> Extraction:
    """Extract arguments for a tool whose parameters are ``schema`` from ``text`` (read once per pair)."""
    return _extract(schema_key(schema), text)


@lru_cache(maxsize=2048)
def _extract(key: bytes | str, text: str) -> Extraction:
    schema, order = schema_reading(key)
    return extract_object(order, schema, Context(text))


@lru_cache(maxsize=512)
def schema_reading(key: bytes | str) -> tuple[Schema, Order]:
    """A schema by its key, and its reading order: made once and shared (never changed)."""
    schema: Schema = dict(json.loads(key))
    return schema, reading_order(schema, schema)


def with_value(extraction: Extraction, name: str, found: Found) -> Extraction:
    """A copy of ``extraction`` with ``name`` set (e.g. a value taken from a tool result)."""
    values = dict(extraction.values)
    values[name] = found
    missing = tuple(m for m in extraction.missing if m != name and not m.startswith(f"{name}."))
    problems = {k: p for k, p in extraction.problems.items() if k != name}
    conflicts = {k: c for k, c in extraction.conflicts.items() if k != name}
    return Extraction(values, missing, conflicts, extraction.fanout, problems)
