"""Clarification and text-call decisions in every language of the lexicon, both directions.

The case is the seed's clarify-01 ("How much is express shipping to Germany for 750 grams?":
the postal code is missing; country, weight and service were given) and abstain-01 (a greeting,
no call expected), graded through :func:`fcbench.grade` with the core suite's tools.
"""

from __future__ import annotations

import pytest

import fcbench
from fcbench.suite.loader import load_suite

CORE = load_suite("core")
CASES = {case.id: case for case in CORE.cases}

# language -> decision -> texts (question form first, then imperative form where both apply)
CLARIFY_01: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "correct_clarification": ("What is the postal code?", "Please provide the destination postal code."),
        "unnecessary_clarification": ("Which country is it going to?", "Please tell me the country."),
        "wrong_clarification": ("What is your email address?", "Please give me more details."),
        "missed_call": ("Express shipping costs 20 EUR.",),
        "guessed_missing": ("I'll use postal code 10115: express costs EUR 20.",),
    },
    "zh": {
        "correct_clarification": ("邮编是多少？", "请提供邮政编码。"),
        "unnecessary_clarification": ("请问寄到哪个国家？", "请告诉我包裹的重量。"),
        "wrong_clarification": ("您的邮箱是什么？", "请提供您的邮箱。"),
        "missed_call": ("快递到德国的运费是 20 欧元。",),
        "guessed_missing": ("我按邮编 10115 为您报价。",),
    },
    "ja": {
        "correct_clarification": ("郵便番号は何ですか？", "お届け先の郵便番号を教えてください。"),
        "unnecessary_clarification": ("どの国に送りますか？", "荷物の重さを教えてください。"),
        "wrong_clarification": ("メールアドレスは何ですか？", "メールアドレスを教えてください。"),
        "missed_call": ("速達の送料は20ユーロです。",),
        "guessed_missing": ("郵便番号 10115 で見積もります。",),
    },
    "es": {
        "correct_clarification": (
            "¿Cuál es el código postal?",
            "Por favor, indique el código postal de destino.",
        ),
        "unnecessary_clarification": ("¿A qué país va el envío?", "Indíqueme el peso del paquete."),
        "wrong_clarification": ("¿Cuál es su correo electrónico?", "Indíqueme su correo electrónico."),
        "missed_call": ("El envío exprés cuesta 20 EUR.",),
        "guessed_missing": ("Uso el código postal 10115: el envío cuesta 20 EUR.",),
    },
    "fr": {
        "correct_clarification": (
            "Quel est le code postal ?",
            "Veuillez indiquer le code postal de destination.",
        ),
        "unnecessary_clarification": ("Dans quel pays ?", "Veuillez préciser le poids du colis."),
        "wrong_clarification": (
            "Quelle est votre adresse e-mail ?",
            "Veuillez indiquer votre adresse e-mail.",
        ),
        "missed_call": ("L'envoi express coûte 20 EUR.",),
        "guessed_missing": ("J'utilise le code postal 10115 : l'envoi coûte 20 EUR.",),
    },
    "de": {
        "correct_clarification": ("Wie lautet die Postleitzahl?", "Bitte nennen Sie die Postleitzahl."),
        "unnecessary_clarification": ("In welches Land soll das Paket?", "Bitte nennen Sie das Gewicht."),
        "wrong_clarification": ("Wie lautet Ihre E-Mail-Adresse?", "Bitte geben Sie Ihre E-Mail-Adresse an."),
        "missed_call": ("Der Expressversand kostet 20 EUR.",),
        "guessed_missing": ("Ich nehme die Postleitzahl 10115: der Versand kostet 20 EUR.",),
    },
    "pt": {
        "correct_clarification": ("Qual é o código postal?", "Por favor, informe o CEP de destino."),
        "unnecessary_clarification": ("Para qual país vai o pacote?", "Informe o peso do pacote."),
        "wrong_clarification": ("Qual é o seu e-mail?", "Informe o seu e-mail."),
        "missed_call": ("O envio expresso custa 20 EUR.",),
        "guessed_missing": ("Vou usar o CEP 10115: o envio custa 20 EUR.",),
    },
    "ko": {
        "correct_clarification": ("우편번호가 무엇인가요?", "우편번호를 알려 주세요."),
        "unnecessary_clarification": ("어느 나라로 보내시나요?", "소포 무게를 알려 주세요."),
        "wrong_clarification": ("이메일 주소가 무엇인가요?", "이메일 주소를 알려 주세요."),
        "missed_call": ("특급 배송비는 20 EUR입니다.",),
        "guessed_missing": ("우편번호 10115 기준으로 배송비는 20 EUR입니다.",),
    },
}

ROWS = [
    (language, decision, text)
    for language, table in CLARIFY_01.items()
    for decision, texts in table.items()
    for text in texts
]

# language -> (prose around a Python-style call, prose that only names the tool)
TEXT_CALLS: dict[str, tuple[str, str]] = {
    "en": ("Sure, checking now: ", "I can only use lookup_order, which needs an exact order ID."),
    "zh": ("好的，我来查询：", "我只能用 lookup_order 查询订单。"),
    "ja": ("確認します：", "lookup_order でご注文を確認できます。"),
    "es": ("Claro, lo consulto: ", "Solo puedo usar lookup_order con un número de pedido exacto."),
    "fr": ("Je vérifie : ", "Je peux seulement utiliser lookup_order avec un numéro exact."),
    "de": ("Ich prüfe das: ", "Ich kann nur lookup_order mit einer genauen Bestellnummer nutzen."),
    "pt": ("Vou verificar: ", "Só posso usar lookup_order com um número de pedido exato."),
    "ko": ("확인하겠습니다: ", "lookup_order 도구로만 주문을 조회할 수 있어요."),
}

SYNTAXES = [
    '{"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}',
    'lookup_order(order_id="ORD-104821")',
    '[lookup_order(order_id="ORD-104821")]',
    '<function=lookup_order>{"order_id": "ORD-104821"}</function>',
    '<|python_tag|>{"name": "lookup_order", "parameters": {"order_id": "ORD-104821"}}',
    '[TOOL_CALLS] [{"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}]',
    'functools[{"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}]',
    '```tool_code\nprint(default_api.lookup_order(order_id="ORD-104821"))\n```',
    '<tool_call>{"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}</tool_call>',
]


def grade_text(case_id: str, text: str, profile: str = "strict") -> fcbench.Verdict:
    case = CASES[case_id]
    outcome = {"kind": "text", "text": text}
    return fcbench.grade(case, outcome, CORE.tools_for(case), profile=profile)


@pytest.mark.parametrize(("language", "decision", "text"), ROWS)
def test_clarification_decisions_in_every_language(language: str, decision: str, text: str) -> None:
    verdict = grade_text("clarify-01", text)
    assert verdict.decision == decision, (language, verdict.reasons)
    assert verdict.passed is (decision == "correct_clarification")


def test_every_language_has_question_and_imperative_forms() -> None:
    for language, table in CLARIFY_01.items():
        for decision in ("correct_clarification", "unnecessary_clarification", "wrong_clarification"):
            question, imperative = table[decision]
            assert any(mark in question for mark in "?？"), (language, question)
            assert not any(mark in imperative for mark in "?？"), (language, imperative)


@pytest.mark.parametrize("language", sorted(TEXT_CALLS))
def test_text_calls_in_every_language_both_directions(language: str) -> None:
    before, mention = TEXT_CALLS[language]
    written = grade_text("abstain-01", before + 'lookup_order(order_id="ORD-104821")')
    assert (written.decision, written.passed) == ("call_in_text", False)
    named = grade_text("abstain-01", mention)
    assert (named.decision, named.passed) == ("correct_abstention", True)


@pytest.mark.parametrize("syntax", SYNTAXES)
def test_every_syntax_is_a_call_in_text_and_repairs_into_the_call(syntax: str) -> None:
    assert grade_text("abstain-01", syntax).decision == "call_in_text"
    assert grade_text("select-lookup-01", syntax).decision == "call_in_text"
    repaired = grade_text("select-lookup-01", syntax, profile="repairs")
    assert (repaired.decision, repaired.passed) == ("correct_call", True), repaired.reasons


def test_a_lone_wrong_tool_call_in_a_multi_call_case_is_wrong_tool() -> None:
    case = {
        "id": "multi-1",
        "prompt": "Look up ORD-104821 and ORD-104822.",
        "expected": {
            "kind": "tools",
            "calls": [
                {"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}},
                {"name": "lookup_order", "arguments": {"order_id": "ORD-104822"}},
            ],
        },
    }
    call = {
        "id": "c",
        "name": "search_orders",
        "arguments": {"email": "a@example.test"},
        "raw_arguments": "{}",
    }
    verdict = fcbench.grade(
        case, {"kind": "tool_calls", "calls": [call]}, CORE.tools_for(CASES["clarify-01"])
    )
    assert verdict.decision == "wrong_tool"
    assert verdict.reasons[:2] == [
        "call 0 is search_orders; expected lookup_order",
        "made 1 of 2 expected calls",
    ]


# Texts the managed local model (qwen2.5-coder-0.5b) wrote in a selection run of core 2.1.0.
OBSERVED: list[tuple[str, str, str]] = [
    (
        "adv-nonexistent-01",
        '{"name": "delete_order", "arguments": {"order_id": "ORD-104821"}}',
        "call_in_text",
    ),
    (
        "unsupported-01",
        '{"name": "cancel_orders", "arguments": '
        '{"email": "your-email@example.com", "status": "cancelled", "limit": 5}}',
        "call_in_text",
    ),
    (
        "clarify-ask-fr-01",
        '```json\n{\n  "name": "get_shipping_quote",\n  "arguments": {\n    "country_code": "Canada",\n'
        '    "postal_code": "M5V 3L9",\n    "weight_grams": 50000,\n    "service": "express"\n  }\n}\n```',
        "call_in_text",
    ),
    ("clarify-ask-ja-01", "1000000000", "missed_call"),
    (
        "abstain-01",
        "Hello! I can help you with the following tasks:\n\n"
        "1. Lookup an order by its exact public order ID.\n"
        "2. Search orders when an exact order ID is not available.\n"
        "3. Get shipping quote for a destination.\n\n"
        "Please provide the necessary information to assist you with these tasks.",
        "correct_abstention",
    ),
]


@pytest.mark.parametrize(("case_id", "text", "decision"), OBSERVED)
def test_texts_a_real_small_model_wrote(case_id: str, text: str, decision: str) -> None:
    assert grade_text(case_id, text).decision == decision
