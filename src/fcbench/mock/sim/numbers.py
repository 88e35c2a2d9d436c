"""Numbers in user text: digits, number words (a few languages), CJK numerals, and their units.

A :class:`NumberMention` keeps the value as written, the unit the user named (if any) and its span,
so the extractor can convert units for a property such as ``weight_grams`` while a sloppy model
can keep the unconverted number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_UNIT_TEXT: tuple[tuple[str, float, str], ...] = (
    ("weight", 0.001, "mg"),
    ("weight", 1.0, "g gr gram grams gramme grammes gramm gramos gramo 克"),
    ("weight", 1000.0, "kg kgs kilo kilos kilogram kilograms kilogramme kilogrammes kilogramm 公斤 千克"),
    ("weight", 500.0, "斤"),
    ("weight", 453.59237, "lb lbs pound pounds"),
    ("weight", 28.349523125, "oz ounce ounces"),
    ("weight", 1000000.0, "tonnes"),
    ("length", 0.001, "mm"),
    ("length", 0.01, "cm"),
    ("length", 1.0, "m meters metres"),
    ("length", 1000.0, "km"),
    ("length", 0.0254, "inch inches"),
    ("length", 0.3048, "ft feet"),
    ("length", 1609.344, "mi miles"),
    ("duration", 0.001, "ms"),
    ("duration", 1.0, "sec secs seconds"),
    ("duration", 60.0, "min mins minutes"),
    ("duration", 3600.0, "h hr hrs hours hour"),
    ("duration", 86400.0, "day days"),
    ("duration", 604800.0, "week weeks"),
    ("money", 1.0, "usd eur gbp dollars dollar euros euro bucks 元 块"),
    ("money", 0.01, "cents cent"),
)
UNITS: dict[str, tuple[str, float]] = {u: (dim, f) for dim, f, names in _UNIT_TEXT for u in names.split()}
"""Unit word -> (dimension, factor to the dimension's base unit)."""

_PROPERTY_UNIT_WORDS = (
    "grams g gram kg kilograms lb lbs oz cents cm mm m km meters seconds secs ms minutes mins hours days"
)
PROPERTY_UNITS: dict[str, tuple[str, float]] = {w: UNITS[w] for w in _PROPERTY_UNIT_WORDS.split()}
"""Unit words a property name may end with (``weight_grams``, ``amount_cents``)."""
_DIMENSION_TEXT = (
    "weight:weight mass:weight amount:money price:money total:money cost:money fee:money length:length "
    "distance:length height:length width:length duration:duration timeout:duration delay:duration"
)
DIMENSION_WORDS: dict[str, str] = dict(pair.split(":") for pair in _DIMENSION_TEXT.split())
"""Property-name words that imply a dimension without naming a unit."""


def _table(text: str) -> dict[str, float]:
    return {word: float(value) for word, value in (pair.split(":") for pair in text.split())}


WORD_NUMBERS: dict[str, float] = _table(
    "zero:0 one:1 two:2 three:3 four:4 five:5 six:6 seven:7 eight:8 nine:9 ten:10 eleven:11 twelve:12 "
    "thirteen:13 fourteen:14 fifteen:15 sixteen:16 seventeen:17 eighteen:18 nineteen:19 twenty:20 thirty:30 "
    "forty:40 fifty:50 sixty:60 seventy:70 eighty:80 ninety:90 "
    "uno:1 una:1 dos:2 tres:3 cuatro:4 cinco:5 seis:6 siete:7 ocho:8 nueve:9 diez:10 veinte:20 treinta:30 "
    "cincuenta:50 un:1 une:1 deux:2 trois:3 quatre:4 cinq:5 sept:7 huit:8 neuf:9 dix:10 vingt:20 trente:30 "
    "cinquante:50 eins:1 ein:1 eine:1 zwei:2 drei:3 vier:4 fünf:5 funf:5 sechs:6 sieben:7 acht:8 neun:9 "
    "zehn:10 zwanzig:20 dreißig:30 fünfzig:50"
)
"""Number words (English, Spanish, French, German) and their values."""
SCALE_WORDS: dict[str, float] = _table(
    "hundred:100 thousand:1000 million:1000000 cien:100 ciento:100 cientos:100 mil:1000 mille:1000 "
    "hundert:100 tausend:1000 k:1000 dozen:12"
)
"""Words that multiply what precedes them."""
ARTICLES = frozenset({"a", "an", "un", "une", "una", "uno", "ein", "eine"})
JOINERS = frozenset({"and", "und", "y", "et", "-"})
CJK_DIGITS: dict[str, int] = {ch: i for i, ch in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}
CJK_SMALL_SCALES = {"十": 10, "百": 100, "千": 1000}
CJK_BIG_SCALES = {"万": 10_000, "亿": 100_000_000}

_NUM_WORD_ALT = "|".join(
    sorted({*WORD_NUMBERS, *SCALE_WORDS, *ARTICLES, "half"} - {"k"}, key=len, reverse=True)
)
WORD_SEQ_RE = re.compile(
    rf"\b(?:{_NUM_WORD_ALT})(?:(?:\s+|-)(?:and\s+|und\s+|y\s+|et\s+)?(?:{_NUM_WORD_ALT}))*\b", re.IGNORECASE
)
GERMAN_COMPOUND_RE = re.compile(r"\b[a-zäöüß]{7,}\b", re.IGNORECASE)
CJK_NUM_RE = re.compile(r"[零〇一二两三四五六七八九十百千万亿]+")
DIGIT_RE = re.compile(
    r"(?:(?<=[\u3400-\u9fff])|(?<![\w./\-@#]))"  # also right after a CJK character (no spaces in Chinese)
    r"([$€£¥])?\s?(\d{1,3}(?:,\d{3})+|\d+)(?:([.,])(\d+))?(?:\s?([万千kK])(?![a-zA-Z]))?"
)
_UNIT_ALT = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
UNIT_AFTER_RE = re.compile(rf"\s?({_UNIT_ALT})(?![a-zA-Z])", re.IGNORECASE)


@dataclass(frozen=True)
class NumberMention:
    """One number found in text."""

    value: float
    """The number as written (before any unit conversion)."""
    raw: str
    """The characters of the number itself, e.g. ``02139`` or ``一万``."""
    start: int
    end: int
    """Span in the text, including a unit or currency sign."""
    unit: str | None = None
    """Lowercase unit word as written (``kg``, ``grams``, ``usd``), or None."""
    dimension: str | None = None
    """``weight``, ``length``, ``duration`` or ``money`` when a unit was named."""

    def in_base(self) -> float:
        """The value in the base unit of its dimension (grams, metres, seconds, currency units)."""
        if self.unit is None:
            return self.value
        return self.value * UNITS[self.unit][1]


def _words_value(tokens: list[str]) -> float | None:
    total = 0.0
    current = 0.0
    seen = False
    for token in tokens:
        t = token.lower()
        if t in JOINERS:
            continue
        if t in ARTICLES:
            current = current or 1.0
            seen = True
            continue
        if t == "half":
            current = (current or 1.0) * 0.5
            seen = True
        elif t in WORD_NUMBERS:
            current += WORD_NUMBERS[t]
            seen = True
        elif t in SCALE_WORDS:
            scale = SCALE_WORDS[t]
            current = (current or 1.0) * scale
            if scale >= 1000:
                total += current
                current = 0.0
            seen = True
        else:
            return None
    return total + current if seen else None


_COMPOUND_VOCAB = sorted({*WORD_NUMBERS, *SCALE_WORDS, "und"} - {"k", "a"}, key=len, reverse=True)
_COMPOUND_STARTS = frozenset(piece[:2] for piece in _COMPOUND_VOCAB)  # every piece has two letters or more


def _split_compound(word: str) -> list[str] | None:
    parts: list[str] = []
    rest = word.lower()
    if rest[:2] not in _COMPOUND_STARTS:  # no piece starts the word
        return None
    while rest:
        for piece in _COMPOUND_VOCAB:
            if rest.startswith(piece):
                parts.append(piece)
                rest = rest[len(piece) :]
                break
        else:
            return None
    if len(parts) < 2:
        return None
    # German puts units before tens: "fünfundzwanzig" is 5 + 20, which addition already handles.
    return parts


def cjk_value(text: str) -> float | None:
    """Value of a CJK numeral such as ``一万`` (10000) or ``三十五`` (35)."""
    total = 0
    section = 0
    digit = 0
    seen = False
    for ch in text:
        if ch in CJK_DIGITS:
            digit = CJK_DIGITS[ch]
            seen = True
        elif ch in CJK_SMALL_SCALES:
            section += (digit or 1) * CJK_SMALL_SCALES[ch]
            digit = 0
            seen = True
        elif ch in CJK_BIG_SCALES:
            total = (total + section + digit) * CJK_BIG_SCALES[ch]
            section = digit = 0
            seen = True
        else:
            return None
    return float(total + section + digit) if seen else None


def _attach_unit(text: str, end: int) -> tuple[str | None, int]:
    match = UNIT_AFTER_RE.match(text, end)
    if match is None:
        return None, end
    return match.group(1).lower(), match.end()


@lru_cache(maxsize=1024)
def find_numbers(text: str) -> tuple[NumberMention, ...]:
    """Every number in ``text`` with its unit, in order of appearance, spans not overlapping."""
    found: list[NumberMention] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in taken)

    def add(value: float, raw: str, start: int, end: int, currency: bool = False) -> None:
        unit, unit_end = _attach_unit(text, end)
        if unit == "m" and text[end : end + 1] == " ":
            unit, unit_end = None, end  # "2 m" is too ambiguous unless written "2m"
        if currency and unit is None:
            unit = "usd"
        dimension = UNITS[unit][0] if unit else None
        found.append(NumberMention(value, raw, start, unit_end, unit, dimension))
        taken.append((start, unit_end))

    for m in DIGIT_RE.finditer(text):
        symbol, whole, sep, frac, scale = m.groups()
        nxt = text[m.end() : m.end() + 1]
        if nxt.isalpha() and UNIT_AFTER_RE.match(text, m.end()) is None:
            continue
        if sep == "," and frac is not None and len(frac) == 3:
            digits = whole.replace(",", "") + frac
            value = float(digits)
        elif sep is not None and frac is not None:
            value = float(whole.replace(",", "") + "." + frac)
        elif sep is not None:
            continue
        else:
            value = float(whole.replace(",", ""))
        if scale:
            value *= 10_000 if scale == "万" else 1000
        start = m.start(2) if symbol is None else m.start()
        raw = text[m.start(2) : m.end()].strip()
        add(value, raw, start, m.end(), currency=symbol is not None)
    for m in WORD_SEQ_RE.finditer(text):
        tokens = re.split(r"[\s\-]+", m.group(0))
        spelled = _words_value(tokens)
        article = len(tokens) == 1 and tokens[0].lower() in ARTICLES
        if spelled is None or (article and _attach_unit(text, m.end())[0] is None):
            continue
        if free(m.start(), m.end()):
            add(spelled, m.group(0), m.start(), m.end())
    for m in GERMAN_COMPOUND_RE.finditer(text):
        parts = _split_compound(m.group(0))
        compound = _words_value(parts) if parts else None
        if compound is not None and free(m.start(), m.end()):
            add(compound, m.group(0), m.start(), m.end())
    for m in CJK_NUM_RE.finditer(text):
        numeral = cjk_value(m.group(0))
        lone = len(m.group(0)) == 1 and m.group(0) in "一两" and _attach_unit(text, m.end())[0] is None
        if numeral is not None and not lone and free(m.start(), m.end()):
            add(numeral, m.group(0), m.start(), m.end())
    return tuple(_merge_compounds(sorted(found, key=lambda n: n.start), text))


def _merge_compounds(found: list[NumberMention], text: str) -> list[NumberMention]:
    """Join '1 lb 8 oz' or '2 hours 30 minutes' into one mention in the smaller unit's base."""
    out: list[NumberMention] = []
    for n in found:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.dimension is not None
            and prev.dimension == n.dimension
            and prev.dimension != "money"
            and re.fullmatch(r"\s*(?:and\s*)?", text[prev.end : n.start])
            and prev.unit != n.unit
        ):
            total = prev.in_base() + n.in_base()
            base = next(u for u, (d, f) in UNITS.items() if d == n.dimension and f == 1.0)
            raw = text[prev.start : n.end]
            out[-1] = NumberMention(total, raw, prev.start, n.end, base, n.dimension)
            continue
        out.append(n)
    return out


@lru_cache(maxsize=1024)
def property_unit(name: str, description: str = "") -> tuple[str, float] | None:
    """The (dimension, factor-to-base) a numeric property expects, read from its name or description."""
    parts = re.split(r"[_\-\s]+", re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower())
    for part in reversed(parts):
        if part in PROPERTY_UNITS:
            return PROPERTY_UNITS[part]
    match = re.search(
        r"\bin (grams|kilograms|cents|minutes|seconds|hours|days|centimet(?:er|re)s|meters)\b",
        description.lower(),
    )
    if match:
        word = match.group(1).replace("centimeters", "cm").replace("centimetres", "cm")
        return PROPERTY_UNITS.get(word, PROPERTY_UNITS.get(word.rstrip("s")))
    for part in parts:
        if part in DIMENSION_WORDS:
            dimension = DIMENSION_WORDS[part]
            return (dimension, 1.0) if dimension != "weight" else ("weight", 1000.0)
    return None
