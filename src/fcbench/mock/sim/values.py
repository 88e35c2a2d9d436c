"""Finders: where the text holds a value for one property, by JSON type and by what the schema says.

Numbers and booleans are found here; strings are dispatched to :mod:`fcbench.mock.sim.strings` by
the property's ``enum``, ``format``, ``pattern`` and name.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fcbench.mock.sim import lexicon as lx
from fcbench.mock.sim.evidence import Context, Found
from fcbench.mock.sim.numbers import NumberMention, property_unit
from fcbench.mock.sim.schemas import (
    EMAIL_RE,
    Schema,
    as_json_number,
    clamp,
    in_bounds,
    pattern_of,
    truncate,
    violations,
)
from fcbench.mock.sim.strings import (
    ID_SUFFIXES,
    PHONE_RE,
    countries,
    dates,
    enum_words,
    fit_pattern,
    free_text,
    identifiers,
    is_id_name,
    is_specific,
    pattern_matches,
    postal_codes,
    simple,
)
from fcbench.mock.sim.text import split_identifier

COUNT_NAMES = frozenset(
    {"limit", "count", "top", "max", "size", "results", "page", "per", "n", "num", "k", "quantity", "qty"}
)
COUNT_CUES = r"limit|last|latest|recent|top|first|up to|at most|max(?:imum)?|only|show|list|qty|最近|前"
COUNT_NOUNS = (
    r"orders?|results?|items?|entries|records?|rows?|ones|matches|pcs|pieces|units|x|×|条|个|笔|单|件"
)
MONEY_CUES = r"refund|amount|pay|paid|charge|cost|price|total|sum|money|退"


def _near(ctx: Context, n: NumberMention, cues: str, before: int = 30, after: int = 25) -> float | None:
    """How far (in characters) the closest cue is from the number, or None when none is close enough."""
    head = ctx.text[max(0, n.start - before) : n.start].lower()
    tail = ctx.text[n.end : n.end + after].lower()
    distances = [len(head) - m.end() for m in re.finditer(rf"(?<![a-z])(?:{cues})(?![a-z])", head)]
    m = re.match(rf"\s*(?:\S+\s+)?(?:{cues})(?![a-z])", tail)
    if m:
        distances.append(m.end())
    return float(min(distances)) if distances else None


def _score(base: float, distance: float | None) -> float:
    return base - (distance or 0.0) / 100


def _name_cues(name: str) -> str:
    parts = [re.escape(p) for p in split_identifier(name).split() if len(p) > 1 and p not in ID_SUFFIXES]
    return "|".join(parts) or re.escape(name.lower())


def find_number(name: str, schema: Schema, root: Schema, ctx: Context) -> list[Found]:
    """Numbers for an integer or number property: enum members, unit quantities, counts, named numbers."""
    mentions = [n for n in ctx.numbers if ctx.free(n.start, n.end)]
    enum = [e for e in schema.get("enum") or [] if isinstance(e, int | float) and not isinstance(e, bool)]
    if enum:
        members = [(as_json_number(n.value, schema), n) for n in mentions if n.value in enum]
        return [Found(value, value, n.raw, "enum", 1.5, n.start, n.end) for value, n in members]
    unit = property_unit(name, str(schema.get("description") or ""))
    parts = set(split_identifier(name).split())
    count_like = bool(parts & COUNT_NAMES)
    cues = _name_cues(name)
    picked: list[tuple[NumberMention, float, float]] = []
    for n in mentions:
        if n.dimension is not None:
            if unit is not None and n.dimension == unit[0]:
                picked.append((n, n.in_base() / unit[1], 2.0))
            continue
        money = unit is not None and unit[0] == "money"
        if (
            unit is not None
            and money
            and any(ch.isdigit() for ch in n.raw)
            and _near(ctx, n, COUNT_NOUNS, 0) is None
        ):
            distance = _near(ctx, n, MONEY_CUES)
            if distance is not None:
                picked.append((n, n.value / unit[1], _score(1.5, distance)))
                continue
        if count_like:
            distance = _near(ctx, n, f"{COUNT_CUES}|{cues}")
            if distance is None:
                distance = _near(ctx, n, COUNT_NOUNS, before=0)
            if distance is not None:
                picked.append((n, n.value, _score(1.5, distance)))
                continue
        distance = _near(ctx, n, cues, before=25, after=20)
        if distance is not None:
            picked.append((n, n.value, _score(1.0, distance)))
    out: list[Found] = []
    for n, number, strength in picked:
        typed = as_json_number(number, schema)
        value: Any = typed
        problem = ""
        if not in_bounds(float(typed), schema):
            if count_like:
                value = as_json_number(clamp(float(typed), schema), schema)
            else:
                value, problem = None, _bound_text(schema)
        out.append(
            Found(
                value, typed, n.raw, "count" if count_like else "quantity", strength, n.start, n.end, problem
            )
        )
    return out


def _bound_text(schema: Schema) -> str:
    bounds = [
        f"{word} {schema[key]}"
        for key, word in (
            ("minimum", "at least"),
            ("exclusiveMinimum", "more than"),
            ("maximum", "at most"),
            ("exclusiveMaximum", "less than"),
        )
        if isinstance(schema.get(key), int | float)
    ]
    return "must be " + " and ".join(bounds) if bounds else "out of range"


def find_boolean(name: str, schema: Schema, root: Schema, ctx: Context) -> list[Found]:
    """A boolean property is true when its words appear, false when they appear negated."""
    parts = [
        p
        for p in split_identifier(name).split()
        if p not in {"is", "has", "include", "should", "with", "enable", "enabled", "use", "allow"}
    ]
    if not parts:
        return []
    m = re.search(r"\b" + r"[\s\-]*".join(re.escape(p) for p in parts) + r"\b", ctx.text, re.I)
    if m is None:
        return []
    head = ctx.text[max(0, m.start() - 20) : m.start()].lower()
    value = not re.search(r"\b(?:no|not|without|don't|dont|exclude|skip|never)\b", head)
    return [Found(value, value, str(value).lower(), "bool", 0.6, m.start(), m.end())]


def _finish_string(found: Found, schema: Schema, root: Schema) -> Found:
    value = found.unbounded
    if not isinstance(value, str):
        return found
    full = pattern_of(schema)
    if full is not None and not full.search(value):
        value = fit_pattern(value, full) or value
    limit = schema.get("maxLength")
    careful = truncate(value, limit) if isinstance(limit, int) and found.kind == "text" else value
    problems = violations(careful, schema, root)
    if problems:
        return Found(
            None, value, found.loose, found.kind, found.strength, found.start, found.end, problems[0]
        )
    return Found(careful, value, found.loose, found.kind, found.strength, found.start, found.end)


def find_string(name: str, schema: Schema, root: Schema, ctx: Context) -> list[Found]:
    """Strings: enum words, emails, dates, countries, postal codes, pattern matches, identifiers, text."""
    lname = name.lower()
    enum = [e for e in schema.get("enum") or [] if isinstance(e, str)]
    fmt = schema.get("format")
    pattern = schema.get("pattern") if isinstance(schema.get("pattern"), str) else None
    raw: list[Found] = []
    if enum:
        raw = enum_words(tuple(enum), ctx.text)
    elif fmt == "email" or "email" in lname:
        raw = simple(EMAIL_RE, "email", lambda s: s, ctx)
    elif fmt in {"date", "date-time"} or lname.endswith(("date", "_on", "day")):
        raw = dates(ctx, fmt if isinstance(fmt, str) else None)
    elif "country" in lname:
        raw = countries(lname, ctx.text)
    elif any(k in lname for k in ("postal", "zip", "postcode")):
        raw = postal_codes(ctx)
    elif "currency" in lname:
        regex = re.compile(
            r"[$€£¥元]|\b(?:" + "|".join(k for k in lx.CURRENCIES if k.isalpha()) + r")\b", re.I
        )
        raw = simple(regex, "currency", lambda s: lx.CURRENCIES.get(s.lower()), ctx)
    elif "phone" in lname or fmt == "phone":
        raw = simple(PHONE_RE, "phone", lambda s: s.strip(), ctx)
    if not raw and pattern and is_specific(pattern):
        raw = pattern_matches(pattern, ctx)
    if not raw and not enum and is_id_name(lname) and not (pattern and is_specific(pattern)):
        raw = identifiers(lname, ctx)
    if not raw and not enum and not (pattern and is_specific(pattern)):
        raw = free_text(lname, ctx)
    return [_finish_string(f, schema, root) for f in raw]


FINDERS: dict[str, Callable[[str, Schema, Schema, Context], list[Found]]] = {
    "string": find_string,
    "integer": find_number,
    "number": find_number,
    "boolean": find_boolean,
}
