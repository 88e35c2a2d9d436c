"""Reading a text answer: does it ask the user for something, and does it name what is missing?

Detection is deliberately lenient and language-light: a question mark anywhere, a sentence that
opens like a question, or a polite request for information ("please provide", "let me know").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_QUESTION_MARKS = ("?", "？", "¿")
_OPENER = re.compile(
    r"^(what|which|where|when|who|whom|whose|why|how|could|would|can|do|does|did|is|are|should|shall)"
    r"\b(?!\s+not\b|n?['’]t\b)"
)
_REQUESTS = (
    "please provide",
    "please share",
    "please tell",
    "please specify",
    "please confirm",
    "please send",
    "please give",
    "please enter",
    "please let me know",
    "let me know",
    "i need your",
    "i need the",
    "i'll need",
    "i will need",
    "i would need",
    "i'd need",
)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!:;\n])\s+")
_WORD = re.compile(r"[a-z0-9]+")


def asks_question(text: str | None) -> bool:
    """True when ``text`` asks the user a question or requests information from them."""
    if not text or not text.strip():
        return False
    if any(mark in text for mark in _QUESTION_MARKS):
        return True
    lowered = text.lower()
    if any(phrase in lowered for phrase in _REQUESTS):
        return True
    return any(_OPENER.match(sentence) for sentence in _SENTENCE_SPLIT.split(lowered.strip()))


def _name_words(name: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).lower()
    return {word for word in _WORD.findall(spaced) if len(word) >= 3}


def unmentioned(text: str | None, names: Sequence[str]) -> list[str]:
    """The ``names`` (argument names such as ``postal_code``) that ``text`` does not mention.

    A name counts as mentioned when the text contains the name itself or any of its words of
    three letters or more (``postal`` or ``code`` for ``postal_code``).
    """
    lowered = (text or "").lower()
    words = set(_WORD.findall(lowered))
    missing: list[str] = []
    for name in names:
        if name.lower() in lowered:
            continue
        if _name_words(name) & words:
            continue
        missing.append(name)
    return missing
