"""The built-in multilingual lexicon of clarification questions: how a question asks, and for what.

Two tables, in English, Chinese, Japanese, Spanish, French, German, Portuguese and Korean:

* :data:`ASKING`: phrases that make a sentence ask the user for something, in question form
  ("können Sie mir … sagen", "¿cuál es …", "주문 번호가 무엇인가요") and imperative form ("Bitte
  nennen Sie …", "教えてください", "알려 주세요", "indique …"); a question mark asks in any language;
* :data:`CONCEPTS`: common parameter concepts (postal code, weight, e-mail, order id, date,
  amount, address, quantity, country, service, reason, status, phone) with the words that name
  them in each language. A parameter has a concept when a word of its name is one of the
  concept's keys (``postal_code`` -> ``postal``; ``weight_grams`` -> ``weight``).

A suite extends the lexicon per case (``expected.asks_about``: parameter -> terms) or per tool
property (an ``asks_about`` list in the property's schema). Terms written in a script with
letters (Latin, Cyrillic, Greek) match as whole words, case-insensitively; Chinese, Japanese and
Korean terms match anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType


def _terms(joined: str) -> tuple[str, ...]:
    """Terms written one after another, separated by ``|``."""
    return tuple(term for term in joined.split("|") if term)


ASKING: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "en": _terms(
            "please provide|please share|please tell|please specify|please confirm|please send|please give|"
            "please enter|please let me know|tell me your|tell me the|could you|can you|would you|will you|"
            "what is your|what's your|may i have|i need to know|like to know|i need your|i need the|"
            "i'll need|i will need|i would need|i'd need"
        ),
        "zh": _terms(
            "吗|呢|请提供|请告诉|请问|请确认|请输入|请说明|请发送|请给|能否|可否|可以告诉|可以提供|"
            "麻烦提供|麻烦告诉|需要您提供|需要你提供|哪个|哪一"
        ),
        "ja": _terms(
            "教えてください|教えて下さい|教えていただけ|お教えください|お知らせください|お知らせいただけ|"
            "ご提供ください|提供してください|ご入力ください|入力してください|お聞かせください|"
            "ご記入ください|お伝えください|ご確認ください|ですか|ますか|でしょうか|どの|どちら|何ですか"
        ),
        "es": _terms(
            "por favor, indique|por favor indique|indíqueme|indiqueme|indique|proporcione|proporcióneme|"
            "facilíteme|facilite|dígame|digame|necesito saber|necesito su|necesito el|necesito la|podría|"
            "podria|puede darme|puede decirme|envíeme|compártame|cuál es|cual es"
        ),
        "fr": _terms(
            "pourriez-vous|pouvez-vous|veuillez|indiquez|merci de m'indiquer|merci de préciser|"
            "merci de fournir|j'ai besoin de|quel est|quelle est|donnez-moi|précisez|communiquez-moi|"
            "auriez-vous"
        ),
        "de": _terms(
            "bitte nennen sie|nennen sie|bitte geben sie|geben sie mir|teilen sie mir|bitte teilen|"
            "können sie|könnten sie|ich benötige|ich brauche|bitte senden|wie lautet|bitte angeben|"
            "bitte um|sagen sie mir"
        ),
        "pt": _terms(
            "por favor, informe|por favor informe|informe|poderia|pode me informar|pode informar|"
            "pode me dizer|me diga|diga-me|forneça|forneca|preciso saber|preciso do|preciso da|preciso de|"
            "qual é|qual e|envie"
        ),
        "ko": _terms(
            "알려주세요|알려 주세요|알려주시겠|알려 주시겠|말씀해 주세요|말씀해주세요|입력해 주세요|"
            "입력해주세요|제공해 주세요|제공해주세요|주시겠어요|주실 수 있|무엇인가요|어떻게 되나요|인가요|"
            "습니까|까요"
        ),
    }
)
"""Per language, phrases that make a sentence ask the user for information (matched lower-cased)."""

PLEASANTRIES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "ja": _terms("他に|ほかに|その他"),
        "es": _terms("algo más|algo mas|otra cosa|otra pregunta"),
        "fr": _terms("autre chose|autre question|d'autres questions"),
        "de": _terms("sonst noch|weitere fragen|noch etwas"),
        "pt": _terms("mais alguma coisa|algo mais|outra pergunta"),
        "ko": _terms("다른 도움|더 필요|다른 질문"),
    }
)
"""Per language (besides English and Chinese, in :mod:`fcbench.grading.text`), offers of more help."""

CONCEPTS: Mapping[str, tuple[frozenset[str], tuple[str, ...]]] = MappingProxyType(
    {
        "postal_code": (
            frozenset(_terms("plz|postal|postalcode|postcode|zip|zipcode")),
            _terms(
                "postal code|zip code|postcode|zip|邮政编码|邮编|郵便番号|código postal|codigo postal|"
                "code postal|postleitzahl|plz|cep|우편번호|우편 번호"
            ),
        ),
        "weight": (
            frozenset(_terms("gram|grams|kg|kilograms|mass|weight")),
            _terms(
                "weight|how heavy|weigh|grams|kilograms|重量|多重|几公斤|重さ|グラム|peso|pesa|gramos|"
                "poids|pèse|grammes|gewicht|wie schwer|gramm|gramas|무게|중량"
            ),
        ),
        "email": (
            frozenset(_terms("e-mail|email|mail")),
            _terms(
                "email address|e-mail address|email|e-mail|邮箱|电子邮件|邮件地址|メールアドレス|メール|"
                "correo electrónico|correo electronico|correo|courriel|adresse e-mail|adresse mail|"
                "e-mail-adresse|mailadresse|endereço de e-mail|이메일|메일 주소"
            ),
        ),
        "order_id": (
            frozenset(_terms("order")),
            _terms(
                "order id|order number|order|订单号|订单编号|订单|注文番号|注文|número de pedido|"
                "numero de pedido|pedido|numéro de commande|commande|bestellnummer|bestellung|"
                "número do pedido|주문 번호|주문번호|주문"
            ),
        ),
        "date": (
            frozenset(_terms("date|day|since|until|when")),
            _terms("date|which day|日期|哪天|哪一天|日付|何日|fecha|datum|data|날짜"),
        ),
        "amount": (
            frozenset(_terms("amount|cost|price|sum|total")),
            _terms("amount|金额|多少钱|金額|importe|monto|montant|betrag|valor|montante|금액"),
        ),
        "address": (
            frozenset(_terms("address|street")),
            _terms("address|street|地址|住所|dirección|direccion|adresse|anschrift|endereço|주소"),
        ),
        "quantity": (
            frozenset(_terms("count|items|qty|quantity")),
            _terms(
                "quantity|how many|数量|几个|多少个|個数|いくつ|cantidad|cuántos|quantité|combien|menge|"
                "anzahl|wie viele|quantidade|quantos|수량|몇 개"
            ),
        ),
        "country": (
            frozenset(_terms("country")),
            _terms("country|国家|哪个国家|国|país|pais|pays|land|zielland|lieferland|국가|나라"),
        ),
        "service": (
            frozenset(_terms("method|service|speed")),
            _terms(
                "service|express|standard|shipping speed|shipping method|服务|加急|特快|标准|配送方法|"
                "サービス|速達|servicio|urgente|exprés|versandart|serviço|expresso|서비스|배송 방법|특급"
            ),
        ),
        "reason": (
            frozenset(_terms("reason|why")),
            _terms(
                "reason|why|原因|理由|为什么|motivo|razón|razon|por qué|raison|motif|pourquoi|grund|warum|"
                "razão|por que|이유|사유"
            ),
        ),
        "status": (
            frozenset(_terms("state|status")),
            _terms("status|状态|ステータス|状態|estado|statut|état|situação|상태"),
        ),
        "phone": (
            frozenset(_terms("mobile|phone|telephone")),
            _terms(
                "phone number|phone|电话|手机号|電話番号|teléfono|telefono|téléphone|telefonnummer|telefon|"
                "telefone|전화번호"
            ),
        ),
    }
)
"""Parameter concepts: name -> (words of a parameter name that give it the concept, terms naming it)."""

_LETTER = "0-9A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff"
"""Characters of scripts with letters: a term of such letters matches only as a whole word."""


def phrase_pattern(terms: Iterable[str]) -> re.Pattern[str]:
    """One case-insensitive pattern matching any of ``terms``, the longest first at a position.

    A term that starts (ends) with a letter of :data:`_LETTER` must not touch another such letter
    there ("land" is not in "Deutschland"); other terms (Chinese, Japanese, Korean) match anywhere.
    The pattern is an alternation of literals, so a search is linear in the text.
    """
    pieces = []
    for term in sorted({t.strip().lower() for t in terms if t.strip()}, key=lambda t: (-len(t), t)):
        head = f"(?<![{_LETTER}])" if re.match(f"[{_LETTER}]", term) else ""
        tail = f"(?![{_LETTER}])" if re.match(f"[{_LETTER}]", term[-1]) else ""
        pieces.append(head + re.escape(term) + tail)
    return re.compile("|".join(pieces) or "(?!)", re.IGNORECASE)


def concepts_of(words: Iterable[str]) -> list[str]:
    """The :data:`CONCEPTS` a parameter whose name has these (lower-case) words belongs to."""
    given = set(words)
    return [name for name, (keys, _) in CONCEPTS.items() if keys & given]


__all__ = ["ASKING", "CONCEPTS", "PLEASANTRIES", "concepts_of", "phrase_pattern"]
