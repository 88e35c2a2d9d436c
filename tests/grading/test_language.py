"""The language detector: scripts first, then common words and marks of Latin-script languages."""

from __future__ import annotations

import pytest

from fcbench.grading.language import LANGUAGES, UNDETERMINED, detect_language
from fcbench.grading.lexicon import ASKING


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Where is my order ORD-104821?", "en"),
        ("我的订单 ORD-104821 在哪里？", "zh"),
        ("取消订单 ORD-104821; DROP TABLE orders; --", "zh"),
        ("Please refund the 手机 I ordered last week", "en"),
        ("注文 ORD-104821 はどこですか", "ja"),
        ("주문 ORD-104821 어디 있나요?", "ko"),
        ("¿Dónde está mi pedido ORD-104821?", "es"),
        ("Où est ma commande ORD-104821 ?", "fr"),
        ("Wo ist meine Bestellung ORD-104821?", "de"),
        ("Onde está o meu pedido? Não chegou.", "pt"),
        ("ORD-104821", UNDETERMINED),
        ("12345 !!", UNDETERMINED),
        ("", UNDETERMINED),
    ],
)
def test_detects_the_language(text: str, language: str) -> None:
    assert detect_language(text) == language


def test_answers_in_the_lexicon_languages_only() -> None:
    assert (*ASKING, UNDETERMINED) == LANGUAGES
    assert {detect_language(t) for t in ("hello there, my order", "bonjour le monde")} <= set(LANGUAGES)


def test_a_tie_goes_to_the_first_latin_language() -> None:
    assert detect_language("de") == "es"  # "de" is a common word of es, fr and pt: es is listed first
