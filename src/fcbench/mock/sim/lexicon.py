"""Word tables the extractor consults: countries, currencies, enum synonyms, motive phrases."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

# ISO alpha-2, alpha-3, then names and common variants (lowercase).
COUNTRIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "US",
        "USA",
        ("united states", "united states of america", "america", "u.s.", "u.s.a.", "美国", "estados unidos"),
    ),
    ("CA", "CAN", ("canada", "加拿大")),
    ("MX", "MEX", ("mexico", "méxico", "墨西哥")),
    (
        "GB",
        "GBR",
        ("united kingdom", "great britain", "britain", "england", "scotland", "wales", "uk", "英国"),
    ),
    ("IE", "IRL", ("ireland",)),
    ("DE", "DEU", ("germany", "deutschland", "allemagne", "alemania", "德国")),
    ("FR", "FRA", ("france", "frankreich", "francia", "法国")),
    ("ES", "ESP", ("spain", "españa", "espana", "spanien", "西班牙")),
    ("IT", "ITA", ("italy", "italia", "italien", "意大利")),
    ("PT", "PRT", ("portugal",)),
    ("NL", "NLD", ("netherlands", "the netherlands", "holland", "荷兰")),
    ("BE", "BEL", ("belgium", "belgique")),
    ("CH", "CHE", ("switzerland", "schweiz", "suisse", "瑞士")),
    ("AT", "AUT", ("austria", "österreich")),
    ("SE", "SWE", ("sweden", "瑞典")),
    ("NO", "NOR", ("norway",)),
    ("DK", "DNK", ("denmark",)),
    ("FI", "FIN", ("finland",)),
    ("PL", "POL", ("poland", "polska")),
    ("CZ", "CZE", ("czech republic", "czechia")),
    ("GR", "GRC", ("greece",)),
    ("TR", "TUR", ("turkey", "türkiye")),
    ("JP", "JPN", ("japan", "日本")),
    ("CN", "CHN", ("china", "中国")),
    ("KR", "KOR", ("south korea", "korea", "韩国")),
    ("IN", "IND", ("india", "印度")),
    ("SG", "SGP", ("singapore", "新加坡")),
    ("AU", "AUS", ("australia", "澳大利亚")),
    ("NZ", "NZL", ("new zealand",)),
    ("BR", "BRA", ("brazil", "brasil", "巴西")),
    ("AR", "ARG", ("argentina",)),
    ("ZA", "ZAF", ("south africa",)),
    ("AE", "ARE", ("united arab emirates", "uae")),
)
ALPHA2 = {a2: a3 for a2, a3, _ in COUNTRIES}
ALPHA3 = {a3: a2 for a2, a3, _ in COUNTRIES}
COUNTRY_NAMES: dict[str, str] = {name: a2 for a2, _, names in COUNTRIES for name in names}


def _name_pattern(name: str) -> re.Pattern[str]:
    """A country name's pattern: CJK names match anywhere, others as whole words (any case)."""
    word = rf"(?<![\w.]){re.escape(name)}(?!\w)"
    return re.compile(re.escape(name) if re.search("[\u3400-\u9fff]", name) else word, re.I)


COUNTRY_PATTERNS = tuple((_name_pattern(n), n, c) for n, c in COUNTRY_NAMES.items())
"""(pattern, name, code) per lowercase country name, compiled once."""
FOLDED_BY_IGNORECASE = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})
"""Letters ``re.I`` matches to a country name's letter that ``lower()`` does not turn into it (İ, ı, ſ):
translated, then lowered, a text holds every name :data:`COUNTRY_PATTERNS` finds in it."""
# Two-letter words that are also ordinary English: accepted as codes only when written in capitals.
_AMBIGUOUS_TEXT = "US IN IT NO AT BE DE ES AR CA PT SE ME TO"
AMBIGUOUS_CODES = frozenset(_AMBIGUOUS_TEXT.split())
_PREPOSITION_TEXT = "to into in for from destination country nach vers a en"
COUNTRY_PREPOSITIONS = tuple(_PREPOSITION_TEXT.split())

_CURRENCY_TEXT = (
    "usd:USD $:USD dollar:USD dollars:USD bucks:USD eur:EUR €:EUR euro:EUR euros:EUR gbp:GBP £:GBP "
    "sterling:GBP jpy:JPY yen:JPY cny:CNY rmb:CNY yuan:CNY 元:CNY cad:CAD aud:AUD chf:CHF"
)
CURRENCIES: dict[str, str] = dict(pair.split(":") for pair in _CURRENCY_TEXT.split())

_SYNONYM_TEXT = """
express=fast|faster|fastest|expedited|overnight|priority|quick|urgent|rush|next day|next-day|加急|特快
standard=regular|normal|economy|cheapest|ground|basic|普通|标准
shipped=sent|dispatched|on the way|in transit|已发货|已经发货|在路上|运输中
delivered=arrived|received|已送达|已签收|已经送达|已经签收
cancelled=canceled|已取消
canceled=cancelled|已取消
processing=being processed|being prepared|preparing|in progress|not shipped yet|处理中|还没发货|没发货|未发货
pending=unpaid|not paid|awaiting payment|not yet paid|待支付|未支付|待付款
paid=payment succeeded|payment went through|already paid|已支付|支付成功|已付款|已经付款
completed=complete|finished|fulfilled|已完成
open=opened
closed=close
high=urgent|important
low=minor|trivial
celsius=°c|centigrade
fahrenheit=°f
"""
ENUM_SYNONYMS: dict[str, tuple[str, ...]] = {
    value: tuple(forms.split("|"))
    for value, forms in (line.split("=") for line in _SYNONYM_TEXT.split("\n") if line)
}
"""Enum value -> words a user may write for it (one line of ``_SYNONYM_TEXT`` each)."""

# Motives a careful model may restate as a reason (the user's own words, summarised).
MOTIVES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"don'?t want|do not want|no longer (?:want|need)|changed my mind|不要|不想要", re.I),
        "Customer no longer wants the order",
    ),
    (re.compile(r"broken|damaged|defective|faulty|cracked|坏了|损坏|破损", re.I), "Item arrived damaged"),
    (
        re.compile(
            r"never (?:arrived|came|received)|didn'?t (?:arrive|receive)|not (?:arrived|received)|lost|"
            r"没收到|少发|漏发",
            re.I,
        ),
        "Order was not received",
    ),
    (re.compile(r"wrong (?:item|size|colou?r|product)|not what i ordered|发错", re.I), "Wrong item received"),
    (re.compile(r"\blate\b|too slow|delayed|太慢", re.I), "Order was delayed"),
    (
        re.compile(r"duplicate|ordered twice|charged twice|double charged|重复", re.I),
        "Duplicate order or charge",
    ),
)
REASON_RE = re.compile(
    r"\b(?:because|since|due to|as it|as the|reason(?: is|:)?|the reason being)\s+(?P<why>[^.!?\n]{3,})", re.I
)

# Order states the user may state outright ("I paid for ...", "it's still pending").
_UNPAID_TEXT = "pending unpaid awaiting_payment created draft cancelled canceled refunded failed voided"
UNPAID_STATES = frozenset(_UNPAID_TEXT.split())
STATED_UNPAID_RE = re.compile(
    r"\b(?:haven'?t|have not|did not|didn'?t|never) (?:yet )?paid\b|\bnot (?:yet )?paid\b|\bunpaid\b|"
    r"\bstill pending\b|未支付|没付款|没有付款|待支付",
    re.I,
)


def country_code(word: str) -> str | None:
    """ISO alpha-2 code for a country name, alpha-2 or alpha-3 code (any case), or None."""
    key = word.strip().lower()
    if key in COUNTRY_NAMES:
        return COUNTRY_NAMES[key]
    upper = key.upper()
    if upper in ALPHA2:
        return upper
    if upper in ALPHA3:
        return ALPHA3[upper]
    if upper == "UK":
        return "GB"
    return None


@lru_cache(maxsize=2048)
def enum_forms(value: str, with_kind: bool = False) -> list[Any]:
    """Ways a user may write an enum value: itself, spaced, and known synonyms (lowercase).

    With ``with_kind`` each form comes as ``(form, is_synonym)``."""
    base = value.lower()
    forms = [
        (f, False) for f in (base, base.replace("_", " "), base.replace("-", " "), base.replace("_", "-"))
    ]
    forms.extend((f, True) for f in ENUM_SYNONYMS.get(base, ()))
    seen: list[tuple[str, bool]] = []
    for form, synonym in forms:
        if form and all(form != s for s, _ in seen):
            seen.append((form, synonym))
    return seen if with_kind else [form for form, _ in seen]
