"""The language of a user message, by plain, deterministic rules (no model, no randomness).

It answers in the lexicon's eight languages (:data:`fcbench.grading.lexicon.ASKING`: ``en``,
``zh``, ``ja``, ``es``, ``fr``, ``de``, ``pt``, ``ko``) or ``und`` (undetermined), in two steps:

1. **Script.** Hangul letters make the text Korean (``ko``); else kana (hiragana or katakana)
   make it Japanese (``ja``); else Han characters make it Chinese (``zh``) when there are at
   least as many of them as words in other scripts (an order id or an SQL fragment inside a
   Chinese sentence does not make it English, one Chinese product name inside an English
   sentence does not make it Chinese). Text with no letter at all is ``und``.
2. **Latin script.** Each lower-cased word that is one of a language's common words
   (:data:`COMMON_WORDS`) scores one for that language, and so does each letter only that
   language's spelling uses (:data:`MARKS`: ``ñ`` Spanish, ``ß`` German, ``ã`` Portuguese, ...).
   The highest score wins; a tie goes to the language listed first in :data:`LATIN_ORDER`; no
   score at all is ``und`` (``ORD-1042 status`` says nothing about its language).

The same text always gets the same answer; ``fcbench coverage`` applies it alike to a case's prompt
and to a logged request's last user message, so both sides of a comparison agree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from fcbench.grading.lexicon import ASKING

UNDETERMINED = "und"
"""The answer for text whose language the rules cannot tell (the BCP 47 code for it)."""

LANGUAGES: tuple[str, ...] = (*ASKING, UNDETERMINED)
"""Every answer :func:`detect_language` can give: the lexicon's languages, then ``und``."""

LATIN_ORDER: tuple[str, ...] = ("en", "es", "fr", "de", "pt")
"""The Latin-script languages, in the order that breaks a tie."""


def _words(joined: str) -> frozenset[str]:
    """Words written one after another, separated by spaces."""
    return frozenset(joined.split())


COMMON_WORDS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "en": _words(
            "the a an is are was has have been my me i i'm you your it it's this that of to for in on "
            "and or with what where when how can could please order orders refund cancel check status "
            "want need look up yet already now right delivered shipped"
        ),
        "es": _words(
            "el la los las un una es son mi mis yo usted su de del para por en y con que qué "
            "cuál dónde cómo quiero necesito pedido pedidos reembolso cancelar estado favor"
        ),
        "fr": _words(
            "le la les un une est sont mon ma mes je vous votre de du des pour en et avec que "
            "quel quelle où comment veux voudrais commande commandes remboursement annuler"
        ),
        "de": _words(
            "der die das ein eine ist sind mein meine ich sie ihr ihre von zu für in und mit "
            "was wo wie bitte möchte bestellung bestellungen erstattung stornieren nicht"
        ),
        "pt": _words(
            "o os as um uma é são meu minha eu você seu sua de do da para por em e com que "
            "qual onde como quero preciso pedido pedidos reembolso cancelar não"
        ),
    }
)
"""Per Latin-script language, common words (articles, pronouns, prepositions, and the words of
ordering, refunding and cancelling); a word several languages share scores for each."""

MARKS: Mapping[str, str] = MappingProxyType({"es": "ñ¿¡", "fr": "œèêëàâîôûùç", "de": "ßäöü", "pt": "ãõç"})
"""Per Latin-script language, letters its spelling uses and English does not (one point each)."""

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LETTER = re.compile(r"[^\W\d_]")


def _latin(text: str) -> str:
    lowered = text.lower()
    scores = dict.fromkeys(LATIN_ORDER, 0)
    for word in _WORD.findall(lowered):
        for language in LATIN_ORDER:
            if word in COMMON_WORDS[language]:
                scores[language] += 1
    for language, letters in MARKS.items():
        scores[language] += sum(lowered.count(letter) for letter in letters)
    best = max(LATIN_ORDER, key=lambda language: (scores[language], -LATIN_ORDER.index(language)))
    return best if scores[best] else UNDETERMINED


def detect_language(text: str) -> str:
    """The language of ``text``, one of :data:`LANGUAGES` (see the module for the rules)."""
    letters = len(_LETTER.findall(text))
    if not letters:
        return UNDETERMINED
    if _HANGUL.search(text):
        return "ko"
    if _KANA.search(text):
        return "ja"
    han = len(_HAN.findall(text))
    if han and han >= len(_WORD.findall(_HAN.sub(" ", text))):
        return "zh"
    return _latin(text)


__all__ = ["COMMON_WORDS", "LANGUAGES", "LATIN_ORDER", "MARKS", "UNDETERMINED", "detect_language"]
