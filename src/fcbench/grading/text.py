"""Reading a text answer: does it ask the user for something, for what, what does it assert?

A text is read sentence by sentence (Latin and CJK punctuation). A sentence *asks* when it has
a question mark (``?``, ``？``, ``¿``), opens like an English question (``what``, ``which``,
``could``, ...), says "let me know your ...", or holds an asking phrase of the built-in lexicon
(:data:`fcbench.grading.lexicon.ASKING`: question and imperative forms in English, Chinese,
Japanese, Spanish, French, German, Portuguese and Korean: "please provide", "请提供",
"教えてください", "indíqueme", "veuillez", "Bitte nennen Sie", "informe", "알려 주세요", ...).
Closing pleasantries ("Let me know if you need anything else.", "还有其他问题吗？",
"¿Algo más?") neither ask nor assert.

What a question asks for is read by :func:`asked_parameters`: the parameters whose words
(:func:`parameter_terms`: the name, the lexicon's concept terms in every language, and a suite's
``asks_about`` terms) an asking sentence holds.

Every other sentence is a statement, and a statement *asserts* a value when it holds a price or
amount with a currency, a date, an order status word (shipped, delivered, 已发货, ...), an order id
or other identifier, or a number, that the conversation so far never gave (:func:`read_text`;
a statement naming the status only as a condition, "if it has shipped", asserts no status).

:func:`written_calls` finds tool calls written in a text instead of being made.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fcbench.contract import AssistantMessage, ToolResultMessage
from fcbench.contract.text_calls import calls_in_text
from fcbench.grading.lexicon import ASKING, CONCEPTS, PLEASANTRIES, concepts_of, phrase_pattern
from fcbench.suite.models import Case

_QUESTION_MARKS = ("?", "？", "¿")
_OPENER = re.compile(
    r"^(what|which|where|when|who|whom|whose|why|how|could|would|can|do|does|did|is|are|should|shall)"
    r"\b(?!\s+not\b|n?['’]t\b)"
)


@functools.cache
def _asking() -> re.Pattern[str]:
    """Every language's asking phrases (:data:`fcbench.grading.lexicon.ASKING`), compiled when first
    read (a pattern of several thousand characters: compiling it at import would delay a run's
    first request)."""
    return phrase_pattern(phrase for phrases in ASKING.values() for phrase in phrases)


_LET_ME_KNOW = re.compile(r"\blet me know\b(?!\s+(?:if|whether|when|once)\b)")
"""Asks in "let me know your postal code", not in "let me know if you need anything else"."""
_PLEASANTRY = re.compile(
    r"\b(?:anything else|something else|any (?:other|further|more) (?:questions?|help|assistance)|"
    r"other questions|further (?:questions|assistance|help))\b"
    r"|还有(?:什么|其他|别的)|其他(?:问题|需要)|(?:如有|如果有)(?:任何|其他)?(?:问题|需要)|随时"
)
"""Offers of more help, which close an answer without asking the user for anything."""


@functools.cache
def _more_pleasantries() -> re.Pattern[str]:
    """Every language's closing pleasantries (:data:`fcbench.grading.lexicon.PLEASANTRIES`),
    compiled when first read."""
    return phrase_pattern(phrase for phrases in PLEASANTRIES.values() for phrase in phrases)


_SENTENCE_SPLIT = re.compile(r"(?<=[.!?:;])\s+|(?<=[。！？：；])|\n+")
_LIST_MARKER = re.compile(r"(?m)^\s*(?:\d{1,2}[.)]|[-*•])\s+")
_EXAMPLE = re.compile(r"\b(?:for example|for instance|e\.g\.|such as|looks? like)\b|例如|比如|譬如")
"""An illustration ("it should look like ORD-000012") asserts nothing."""
_WORD = re.compile(r"[a-z0-9]+")

_CURRENCY_CODES = r"usd|eur|gbp|cny|rmb|jpy|cad|aud|chf|inr"
_AMOUNT = r"\d[\d,]*(?:\.\d+)?"
_PRICE = re.compile(
    rf"[$€£¥￥]\s?{_AMOUNT}|\b(?:{_CURRENCY_CODES})\s?{_AMOUNT}"
    rf"|{_AMOUNT}\s?(?:(?:{_CURRENCY_CODES}|dollars?|euros?|pounds?|yuan)\b|元|美元|欧元|英镑|块)",
    re.IGNORECASE,
)
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE = re.compile(
    rf"\b\d{{4}}-\d{{1,2}}-\d{{1,2}}\b|\b\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTHS}(?=\W|$)|\b{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
    r"|\d{1,2}\s?月\s?\d{1,2}\s?[日号]|\d{4}\s?年",
    re.IGNORECASE,
)
_STATUS = re.compile(
    r"\b(?:shipped|delivered|in transit|out for delivery|dispatched|cancell?ed|refunded|on hold|"
    r"pending|processing|returned)\b"
    r"|已发货|已送达|已签收|运输中|配送中|派送中|已取消|已退款|待付款|未付款|已付款|已支付|处理中|待发货",
    re.IGNORECASE,
)
_CONDITION = re.compile(r"\b(?:if|whether|once|unless|when)\b|是否|还是|如果|一旦|假如", re.IGNORECASE)
"""A statement that names a status only as a condition or an alternative does not assert it."""
_IDENTIFIER = re.compile(
    r"\b[A-Za-z]{2,}[-_]?\d{2,}\b|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b(?=[A-Z]*\d)(?=\d*[A-Z])[A-Z0-9]{6,}\b"
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _sentences(text: str) -> list[str]:
    cleaned = _LIST_MARKER.sub("", text)
    return [s.strip() for s in _SENTENCE_SPLIT.split(cleaned) if s.strip()]


def _is_pleasantry(sentence: str) -> bool:
    lowered = sentence.lower()
    return _PLEASANTRY.search(lowered) is not None or _more_pleasantries().search(lowered) is not None


def _asks(sentence: str) -> bool:
    if any(mark in sentence for mark in _QUESTION_MARKS):
        return True
    lowered = sentence.lower()
    if _OPENER.match(lowered) or _LET_ME_KNOW.search(lowered):
        return True
    return _asking().search(lowered) is not None


def asks_question(text: str | None) -> bool:
    """True when some sentence of ``text`` asks the user a question or requests information.

    Closing pleasantries ("Is there anything else I can help with?") do not count.
    """
    if not text or not text.strip():
        return False
    return any(_asks(s) and not _is_pleasantry(s) for s in _sentences(text))


def _squash(value: str) -> str:
    return re.sub(r"[\s\-_]", "", value.lower())


def _number(token: str) -> float | None:
    try:
        return float(token.replace(",", ""))
    except ValueError:
        return None


def _given_numbers(given: str) -> set[float]:
    numbers = {n for n in (_number(t) for t in _NUMBER.findall(given)) if n is not None}
    return numbers | {n * 1000 for n in numbers} | {n / 1000 for n in numbers}


def _given_amount(price: str, given_numbers: set[float]) -> bool:
    """Whether a price's amount is a number the conversation gave (``25.00 USD`` for ``"total": 25.0``)."""
    amounts = [_number(token) for token in _NUMBER.findall(price)]
    return bool(amounts) and all(amount in given_numbers for amount in amounts)


def _invented(sentence: str, given: str, given_numbers: set[float]) -> list[tuple[str, str]]:
    """``(kind, value)`` of the values a statement asserts that ``given`` never held.

    Kinds: ``price``, ``date``, ``identifier``, ``status``, ``number``.
    """
    squashed = _squash(given)
    found: list[tuple[str, str]] = []
    rest = sentence
    for kind, pattern in (("price", _PRICE), ("date", _DATE), ("identifier", _IDENTIFIER)):
        for match in pattern.finditer(rest):
            value = match.group(0).strip()
            if _squash(value) in squashed or (kind == "price" and _given_amount(value, given_numbers)):
                continue
            found.append((kind, value))
        rest = pattern.sub(" ", rest)
    if not _CONDITION.search(sentence):
        for match in _STATUS.finditer(sentence):
            if match.group(0).lower() not in given.lower():
                found.append(("status", match.group(0)))
    for token in _NUMBER.findall(rest):
        number = _number(token)
        if number is not None and number not in given_numbers:
            found.append(("number", token))
    return found


_GUESS_KINDS: dict[str, frozenset[str]] = {
    "price": frozenset({"amount", "price", "total", "cost"}),
    "status": frozenset({"status", "state"}),
    "date": frozenset({"date", "day", "time", "when", "since", "until"}),
}
"""Kinds of asserted values that guess a parameter only when its name has one of these words (a
quoted price is no guess of a postal code); identifiers and numbers guess any parameter the
sentence names."""


def _names_parameter(sentence: str, name: str) -> bool:
    lowered = sentence.lower()
    words = _name_words(name)
    if name.lower() in lowered or words & set(_WORD.findall(lowered)):
        return True
    return phrase_pattern(parameter_terms(name)).search(lowered) is not None


def _all_name_words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).lower()
    return _WORD.findall(spaced)


def parameter_terms(
    name: str, schema: Mapping[str, Any] | None = None, extra: Iterable[str] = ()
) -> tuple[str, ...]:
    """The words that name parameter ``name`` in a question, in every language of the lexicon.

    Its name as written and spaced (``postal_code``, ``postal code``), the terms of its concepts
    (:data:`fcbench.grading.lexicon.CONCEPTS`), the ``asks_about`` list of its property
    ``schema``, and ``extra`` (a case's ``expected.asks_about`` terms).
    """
    words = _all_name_words(name)
    terms = [name, " ".join(words)]
    for concept in concepts_of(words):
        terms += CONCEPTS[concept][1]
    listed = schema.get("asks_about") if schema is not None else None
    if isinstance(listed, list):
        terms += [term for term in listed if isinstance(term, str)]
    terms += list(extra)
    return tuple(dict.fromkeys(term for term in terms if term.strip()))


def asked_parameters(sentences: Iterable[str], terms: Mapping[str, Sequence[str]]) -> list[str]:
    """The parameters (keys of ``terms``) that ``sentences`` name, in the order of ``terms``.

    Longer terms win at a position ("email address" is the e-mail, not an address); a term
    shared by several parameters names each of them.
    """
    owners: dict[str, set[str]] = {}
    for name, named_by in terms.items():
        for term in named_by:
            owners.setdefault(term.strip().lower(), set()).add(name)
    pattern = phrase_pattern(owners)
    found: set[str] = set()
    for sentence in sentences:
        for match in pattern.finditer(sentence):
            found |= owners.get(match.group(0).lower(), set())
    return [name for name in terms if name in found]


@dataclass(frozen=True)
class TextReading:
    """What a text answer does: asks, asserts values never given, or guesses a missing one."""

    asks: bool
    """Some sentence asks the user for something."""
    asserted: tuple[str, ...] = ()
    """Values stated that the conversation never gave (a price, a date, a status, an id, a number)."""
    guessed: tuple[str, ...] = ()
    """``name = value`` for asserted values stated in a sentence naming a missing parameter."""
    asking: tuple[str, ...] = ()
    """The sentences that ask (closing pleasantries left out), for :func:`asked_parameters`."""

    @property
    def clarifies(self) -> bool:
        """A clarification: asks for something and asserts nothing the user never gave."""
        return self.asks and not self.asserted


def read_text(text: str | None, given: str, missing: Sequence[str] = ()) -> TextReading:
    """Read ``text`` against ``given`` (everything the conversation said before the answer).

    ``missing`` names the parameters the user did not supply: a value asserted in a sentence
    that names one of them is a guess of it.
    """
    if not text or not text.strip():
        return TextReading(asks=False)
    numbers = _given_numbers(given)
    asking: list[str] = []
    asserted: list[str] = []
    guessed: list[str] = []
    for sentence in _sentences(text):
        if _is_pleasantry(sentence):
            continue
        if _asks(sentence):
            asking.append(sentence)
            continue
        if _EXAMPLE.search(sentence):
            continue
        values = _invented(sentence, given, numbers)
        asserted += [value for _, value in values]
        for name in missing:
            if not values or not _names_parameter(sentence, name):
                continue
            words = _name_words(name)
            guessed += [
                f"{name} = {value}"
                for kind, value in values
                if kind not in _GUESS_KINDS or _GUESS_KINDS[kind] & words
            ]
    return TextReading(
        asks=bool(asking),
        asserted=tuple(dict.fromkeys(asserted)),
        guessed=tuple(guessed),
        asking=tuple(asking),
    )


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    return json.dumps(content, ensure_ascii=False, default=str)


def given_text(case: Case) -> str:
    """Everything the conversation said before the model's answer: history (texts, calls, tool
    results) and the prompt, one part per line."""
    parts: list[str] = []
    for message in case.history:
        if isinstance(message, AssistantMessage):
            parts.append(message.content or "")
            parts += [_content_text(call.arguments) for call in message.calls]
        elif isinstance(message, ToolResultMessage):
            parts.append(_content_text(message.content))
        else:
            parts.append(message.content)
    parts.append(case.prompt)
    return "\n".join(parts)


def written_calls(
    text: str | None, offered: Iterable[str], anomalies: Sequence[str] = ()
) -> list[str] | None:
    """Names of the tool calls ``text`` writes out instead of making them; None when none.

    The grader reads the text itself (:func:`fcbench.contract.text_calls.calls_in_text`, every
    syntax, names offered or not), so an outcome graded without the adapter (an older record, an
    outcome built by hand) is judged the same; an adapter's ``json_call_in_text`` anomaly counts
    too (its names may then be unknown: an empty list).
    """
    names = [call.name for call in calls_in_text(text, list(offered))]
    if names:
        return list(dict.fromkeys(names))
    return [] if "json_call_in_text" in anomalies else None


def _name_words(name: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).lower()
    return {word for word in _WORD.findall(spaced) if len(word) >= 3}
