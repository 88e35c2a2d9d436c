"""String finders: enum words, countries, postal codes, dates, pattern matches, identifiers, free text.

Each finder returns every :class:`Found` value the text offers for one kind of string, in text order;
the caller (:func:`fcbench.mock.sim.values.find_string`) picks the finder from the property's schema
and name.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from fcbench.mock.sim import lexicon as lx
from fcbench.mock.sim.evidence import Context, Found
from fcbench.mock.sim.schemas import pattern_of
from fcbench.mock.sim.text import split_identifier

ID_SUFFIXES = ("id", "ids", "number", "num", "no", "sku", "ref", "reference", "code", "key", "uuid")
NOT_ID_CODES = ("country", "postal", "zip", "currency", "language", "locale", "post", "promo", "discount")
REASON_WORDS = frozenset({"reason", "why", "cause", "explanation", "justification"})
QUERY_WORDS = frozenset(
    {"query", "search", "keyword", "keywords", "q", "term", "terms", "product", "item", "text"}
)
NAME_WORDS = frozenset({"name", "title", "subject", "label"})
MESSAGE_WORDS = frozenset(
    {"message", "note", "notes", "comment", "comments", "description", "body", "details", "signature"}
)
CITY_WORDS = frozenset({"city", "town", "location", "place", "destination"})
STREET_WORDS = frozenset({"street", "line1", "line", "address1"})
SUMMARY_WORDS = frozenset({"summary", "description", "details", "issue", "problem"})
STREET_RE = re.compile(
    r"\b\d+[A-Za-z]?\s+(?:[A-Z][a-z]+\s+){1,3}(?:St|Street|Rd|Road|Ave|Avenue|Blvd|Boulevard|Lane|Ln|Way|Dr|"
    r"Drive|Pl|Place|Ct|Court)\b\.?"
)
_MONTH_TEXT = "january february march april may june july august september october november december"
MONTHS = {m: i for i, m in enumerate(_MONTH_TEXT.split(), 1)}
MONTH_RE = "|".join(sorted([*MONTHS, *(m[:3] for m in MONTHS), "sept"], key=len, reverse=True))
DATE_PATTERNS = (
    re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)"),
    re.compile(rf"\b({MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I),
    re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({MONTH_RE})\.?,?\s+(\d{{4}})\b", re.I),
    re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4})(?!\d)"),
)
POSTAL_KEYWORD_RE = re.compile(
    r"\b(?:postal\s*code|postcode|post\s*code|zip(?:\s*code)?|plz|cep|code postal|c[oó]digo postal|邮编)\s*"
    r"(?:is|:|of|=)?\s*([A-Za-z0-9][A-Za-z0-9\-]*(?-i: [A-Z0-9]{1,4}\b)?)",
    re.I,
)
POSTAL_FORMATS = (
    (re.compile(r"(?<![A-Za-z0-9])[ABCEGHJ-NPRSTVXY]\d[A-Z] ?\d[A-Z]\d(?![A-Za-z0-9])", re.I), 2.0),
    (re.compile(r"(?<![A-Za-z0-9])[A-Z]{1,2}\d[A-Z\d]? ?\d[ABD-HJLNP-UW-Z]{2}(?![A-Za-z0-9])"), 2.0),
    (re.compile(r"(?<![\w\-.$€£#])\d{5}-\d{3,4}(?![\w\-])"), 2.0),
    (re.compile(r"(?<![\w\-.,$€£#])\d{5,6}(?![\w\-]|[.,]\d)"), 1.0),
)
PHONE_RE = re.compile(r"\+?\d[\d\s\-().]{6,}\d")
QUOTED_RE = re.compile(r"\"([^\"]{1,300})\"|“([^”]{1,300})”|(?:^|\s)'([^']{2,300})'")


@lru_cache(maxsize=1024)
def is_id_name(lname: str) -> bool:
    """True when a property name looks like an identifier (``order_id``, ``sku``, ``ticket_number``)."""
    parts = split_identifier(lname).split()
    return bool(parts) and parts[-1] in ID_SUFFIXES and not any(p in NOT_ID_CODES for p in parts)


def _found(value: Any, loose: Any, kind: str, strength: float, span: tuple[int, int] = (-1, -1)) -> Found:
    return Found(value, value, loose, kind, strength, span[0], span[1])


@lru_cache(maxsize=2048)
def enum_words(values: tuple[str, ...], text: str) -> list[Found]:
    """Enum members the text names, by value, spelling variant or synonym (country codes by name)."""
    out: list[Found] = []
    lowered = text.lower()
    for value in values:
        for form, synonym in lx.enum_forms(value, with_kind=True):
            if form not in lowered:  # every match below is a match of the form itself
                continue
            cjk = re.search(r"[\u3400-\u9fff]", form) is not None
            regex = re.escape(form) if cjk else rf"(?<![\w\-]){re.escape(form)}(?P<tail>[a-zäöüß]*)(?![\w\-])"
            for m in re.finditer(regex, lowered):
                compound = not cjk and bool(m.group("tail"))
                if compound and len(form) < 6:
                    continue
                strength = (1.0 if synonym else 1.5) - (0.7 if compound else 0.0)
                out.append(Found(value, value, m.group(0), "enum", strength, m.start(), m.end()))
    code_like = values and all(isinstance(x, str) and re.fullmatch(r"[A-Za-z]{2,3}", x) for x in values)
    if code_like and not out:
        for found in countries("", text):
            match = next(
                (x for x in values if x.upper() in {found.value, lx.ALPHA2.get(found.value, "")}), None
            )
            if match is not None:
                out.append(Found(match, match, found.loose, "enum", found.strength, found.start, found.end))
    return sorted(out, key=lambda f: f.start)


def countries(lname: str, text: str) -> list[Found]:
    """Countries by name or ISO code, as uppercase alpha-2; ``from`` mentions rank lower unless the
    property is an origin."""
    origin = any(w in lname for w in ("origin", "from", "source", "sender"))
    adjusted: list[Found] = []
    for f in _countries_in(text):
        head = text[max(0, f.start - 6) : f.start].lower()
        if ("from" in head) != origin:
            f = Found(f.value, f.unbounded, f.loose, f.kind, f.strength - 1.0, f.start, f.end)
        adjusted.append(f)
    return sorted(adjusted, key=lambda f: f.start)


@lru_cache(maxsize=1024)
def _countries_in(text: str) -> tuple[Found, ...]:
    out: list[Found] = []
    lowered = text.lower() if text.isascii() else text.translate(lx.FOLDED_BY_IGNORECASE).lower()
    for regex, name, code in lx.COUNTRY_PATTERNS:
        if name not in lowered:  # a name that matches (any case) is in the lowered text
            continue
        for m in regex.finditer(text):
            out.append(Found(code, code, code.lower(), "country", 2.0, m.start(), m.end()))
    for m in re.finditer(r"(?<![\w.@\-])([A-Za-z]{2,3})(?![\w@\-])", text):
        token = m.group(1)
        found_code = lx.country_code(token)
        if found_code is None or any(f.start <= m.start() < f.end for f in out):
            continue
        code = found_code
        before = text[max(0, m.start() - 14) : m.start()].lower().split()
        after_prep = bool(before) and before[-1] in lx.COUNTRY_PREPOSITIONS
        if token.isupper() and (token not in lx.AMBIGUOUS_CODES or not text.isupper()):
            out.append(
                Found(code, code, token.lower(), "country", 2.0 if after_prep else 1.8, m.start(), m.end())
            )
        elif after_prep and token.lower() != "us":
            out.append(Found(code, code, token.lower(), "country", 1.5, m.start(), m.end()))
    return tuple(out)


def postal_codes(ctx: Context) -> list[Found]:
    """Postal codes after a keyword or in a known national format, kept as text."""
    out: list[Found] = []
    with_units = [(n.start, n.end) for n in ctx.numbers if n.unit is not None]

    def add(raw: str, start: int, strength: float) -> None:
        end = start + len(raw)
        if any(s <= start < e for s, e in with_units) or any(f.start <= start < f.end for f in out):
            return
        loose: Any = int(raw) if raw.isdigit() else raw.lower()
        out.append(Found(raw.upper(), raw.upper(), loose, "postal", strength, start, end))

    for m in POSTAL_KEYWORD_RE.finditer(ctx.text):
        raw = m.group(1).strip()
        if any(ch.isdigit() for ch in raw):
            add(raw, m.start(1), 2.5)
    for regex, strength in POSTAL_FORMATS:
        for m in regex.finditer(ctx.text):
            add(m.group(0), m.start(), strength)
    return sorted(out, key=lambda f: f.start)


def dates(ctx: Context, fmt: str | None) -> list[Found]:
    """Calendar dates (ISO, month names, d/m/y) as ISO text; date-times when ``fmt`` asks for them."""
    out: list[Found] = []
    for index, regex in enumerate(DATE_PATTERNS):
        for m in regex.finditer(ctx.text):
            groups = m.groups()
            if index == 0:
                y, mo, d = int(groups[0]), int(groups[1]), int(groups[2])
            elif index == 1:
                mo, d, y = MONTHS.get(_month(groups[0]), 0), int(groups[1]), int(groups[2])
            elif index == 2:
                d, mo, y = int(groups[0]), MONTHS.get(_month(groups[1]), 0), int(groups[2])
            else:
                a, b, y = int(groups[0]), int(groups[1]), int(groups[2])
                mo, d = (b, a) if a > 12 else (a, b)
            if not (1 <= mo <= 12 and 1 <= d <= 31) or any(f.start <= m.start() < f.end for f in out):
                continue
            iso = f"{y:04d}-{mo:02d}-{d:02d}"
            tail = re.match(r"[T ,]+(?:at\s+)?(\d{1,2}):(\d{2})", ctx.text[m.end() :])
            if fmt == "date-time":
                hh, mm = (int(tail.group(1)), int(tail.group(2))) if tail else (0, 0)
                iso = f"{iso}T{hh:02d}:{mm:02d}:00Z"
            out.append(Found(iso, iso, m.group(0), "date", 2.0, m.start(), m.end()))
    return sorted(out, key=lambda f: f.start)


def _month(word: str) -> str:
    key = word.lower().rstrip(".")
    return next((m for m in MONTHS if m.startswith(key[:3])), key)


def pattern_matches(pattern: str, ctx: Context) -> list[Found]:
    """Substrings matching a property's ``pattern`` (case and separators normalised when needed)."""
    full = pattern_of({"pattern": pattern})
    if full is None:
        return []
    body = pattern[1:] if pattern.startswith("^") else pattern
    body = body[:-1] if body.endswith("$") and not body.endswith("\\$") else body
    out: list[Found] = []
    try:
        search = re.compile(rf"(?<![A-Za-z0-9])(?:{body})(?![A-Za-z0-9])", re.I)
    except re.error:
        return []
    for m in search.finditer(ctx.text):
        fixed = fit_pattern(m.group(0), full)
        if fixed is not None:
            strength = 3.0 if fixed == m.group(0) else 2.5
            out.append(Found(fixed, fixed, m.group(0), "pattern", strength, m.start(), m.end()))
    for m in re.finditer(r"(?<![A-Za-z0-9\-])([A-Za-z]{1,6})[\s_]?(\d{2,})(?![A-Za-z0-9])", ctx.text):
        if any(f.start <= m.start() < f.end for f in out):
            continue
        fixed = fit_pattern(f"{m.group(1)}-{m.group(2)}", full) or fit_pattern(m.group(1) + m.group(2), full)
        if fixed is not None:
            out.append(Found(fixed, fixed, m.group(0), "pattern", 2.0, m.start(), m.end()))
    return sorted(out, key=lambda f: f.start)


def fit_pattern(text: str, full: re.Pattern[str]) -> str | None:
    """``text`` or a case/spacing variant of it that matches ``full``; None when none does."""
    for variant in (text, text.upper(), text.lower(), text.replace(" ", ""), text.upper().replace(" ", "")):
        if full.search(variant):
            return variant
    return None


@lru_cache(maxsize=1024)
def is_specific(pattern: str) -> bool:
    """True when a pattern has enough literal structure to find values on its own (``^ORD-[0-9]{6}$``)."""
    stripped = re.sub(r"\\.|\[[^\]]*\]|\{[^}]*\}|[\^$()*+?.|]", "", pattern)
    return sum(ch.isalnum() for ch in stripped) >= 2 or (
        "-" in stripped and bool(re.search(r"\\d|0-9", pattern))
    )


def identifiers(lname: str, ctx: Context) -> list[Found]:
    """Identifier-looking tokens (``ORD-001``) and numbers after the entity word (``order number 15``)."""
    out: list[Found] = []
    for m in re.finditer(
        r"(?<![A-Za-z0-9@.\-_])([A-Za-z]{1,8}[-_]?\d[A-Za-z0-9\-]*)(?![A-Za-z0-9@\-])", ctx.text
    ):
        token = m.group(1).rstrip("-")
        out.append(_found(token, token, "id", 2.5, (m.start(1), m.start(1) + len(token))))
    entity = [p for p in split_identifier(lname).split() if p not in ID_SUFFIXES]
    cue = "|".join([re.escape(e) for e in entity] + ["订单"])
    explicit = rf"(?:(?:{cue})\s*(?:number|no\.?|#|num)|#)\s*[:#]?\s*(\d+)(?![\w\-])"
    loose = rf"(?:{cue})\s*(?:id)?\s*[:#]?\s*(\d{{3,}})(?![\w\-])"
    for m in [*re.finditer(explicit, ctx.text, re.I), *re.finditer(loose, ctx.text, re.I)]:
        if not any(f.start <= m.start(1) < f.end for f in out):
            out.append(_found(m.group(1), m.group(1), "id", 2.0, (m.start(1), m.end(1))))
    return sorted(out, key=lambda f: f.start)


def free_text(lname: str, ctx: Context) -> list[Found]:
    """Free text for text-like properties: quoted strings, reasons, names, streets, cities, summaries."""
    parts = set(split_identifier(lname).split())
    text = ctx.text
    out: list[Found] = []
    if parts & (QUERY_WORDS | NAME_WORDS | MESSAGE_WORDS):
        for m in QUOTED_RE.finditer(text):
            quoted = next(g for g in m.groups() if g)
            out.append(_found(quoted, quoted, "text", 1.5, (m.start(), m.end())))
    if parts & REASON_WORDS:
        said = lx.REASON_RE.search(text)
        if said:
            why = said.group("why").strip().rstrip(",;")
            out.append(
                _found(why[:1].upper() + why[1:], why, "text", 1.0, (said.start("why"), said.end("why")))
            )
        else:
            motives = [summary for rx, summary in lx.MOTIVES if rx.search(text)]
            if motives:
                joined = "; ".join([motives[0], *(m[:1].lower() + m[1:] for m in motives[1:])])
                out.append(_found(joined, joined, "text", 0.6))
    cues = {
        "query": r"(?:for|about|find|search(?: for)?)",
        "name": r"(?:called|named|titled)",
        "message": r"(?:saying|says|note:|message:|comment:)",
    }
    for group, words in (("query", QUERY_WORDS), ("name", NAME_WORDS), ("message", MESSAGE_WORDS)):
        if parts & words and not out:
            cued = re.search(rf"\b{cues[group]}\s+(.+?)\s*(?:[.?!]|$)", text, re.I)
            if cued:
                out.append(_found(cued.group(1), cued.group(1), "text", 0.8, (cued.start(1), cued.end(1))))
    if parts & NAME_WORDS and not out:
        for m in re.finditer(r"\b(?:for|to|from|by)\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)", text):
            if lx.country_code(m.group(1)) is None:
                out.append(_found(m.group(1), m.group(1), "text", 1.0, (m.start(1), m.end(1))))
    if parts & STREET_WORDS:
        out += [
            _found(m.group(0), m.group(0), "text", 1.5, (m.start(), m.end()))
            for m in STREET_RE.finditer(text)
        ]
    if parts & CITY_WORDS and not out:
        after_street = [rf"{re.escape(m.group(0))},\s*" for m in STREET_RE.finditer(text)]
        for lead in [*after_street, r"\b(?:in|to|from|at)\s+"]:
            for m in re.finditer(rf"{lead}([A-Z][a-zA-Z\-]+(?:\s+[A-Z][a-zA-Z\-]+)?)", text):
                if lx.country_code(m.group(1)) is None:
                    out.append(_found(m.group(1), m.group(1), "text", 1.2, (m.start(1), m.end(1))))
    if parts & SUMMARY_WORDS and not out:
        body = re.sub(r"^\s*\w+\s*:\s*", "", text).strip()
        if body:
            out.append(_found(body, body, "text", 0.4))
    return out


def simple(regex: re.Pattern[str], kind: str, mapper: Callable[[str], Any], ctx: Context) -> list[Found]:
    """Every match of ``regex`` whose ``mapper`` value is not None."""
    out: list[Found] = []
    for m in regex.finditer(ctx.text):
        value = mapper(m.group(0))
        if value is not None:
            out.append(Found(value, value, m.group(0), kind, 2.0, m.start(), m.end()))
    return out
