"""Fuzzing the redactor: generated secrets of every kind in generated text, and the user's own key
echoed back whole, split across stream deltas and in other letter cases, never survive."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fcbench.redact import MIN_FRAGMENT, REDACTED, SECRET_PATTERNS, Redactor

ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def word(alphabet: str, low: int, high: int) -> st.SearchStrategy[str]:
    return st.text(st.sampled_from(alphabet), min_size=low, max_size=high)


def framed(prefix: str, body: st.SearchStrategy[str]) -> st.SearchStrategy[tuple[str, str]]:
    """(text, secret) for a secret that is ``prefix + body`` on its own."""
    return body.map(lambda b: (prefix + b, prefix + b))


def named(template: str, value: st.SearchStrategy[str]) -> st.SearchStrategy[tuple[str, str]]:
    """(text, secret) where the secret is the value in ``template`` (``{}``)."""
    return value.map(lambda v: (template.format(v), v))


JSON_LITERALS = ("true", "false", "null")
"""Values a secret assignment keeps as they are (a flag, not a secret); ``FALSE`` is redacted."""
SECRETS: dict[str, st.SearchStrategy[tuple[str, str]]] = {
    "openai_key": st.sampled_from(["sk-", "sk-proj-"]).flatmap(
        lambda p: framed(p, word(ALNUM + "_-", 20, 60))
    ),
    "anthropic_key": framed("sk-ant-api03-", word(ALNUM + "_-", 20, 60)),
    "google_api_key": framed("AIza", word(ALNUM + "_-", 35, 35)),
    "aws_access_key_id": st.sampled_from(["AKIA", "ASIA"]).flatmap(
        lambda p: framed(p, word(UPPER_DIGITS, 16, 16))
    ),
    "aws_secret_access_key": named("aws_secret_access_key={}", word(ALNUM + "/+", 40, 40)),
    "github_token": st.sampled_from(["ghp_", "gho_", "ghs_", "ghu_"]).flatmap(
        lambda p: framed(p, word(ALNUM, 36, 36))
    ),
    "stripe_key": st.sampled_from(["sk_live_", "rk_live_", "sk_test_"]).flatmap(
        lambda p: framed(p, word(ALNUM, 24, 40))
    ),
    "slack_token": st.sampled_from(["xoxb-", "xoxp-", "xoxa-"]).flatmap(
        lambda p: framed(p, word(ALNUM + "-", 10, 40))
    ),
    "jwt": st.tuples(word(ALNUM, 10, 30), word(ALNUM, 10, 30), word(ALNUM + "_-", 10, 40)).map(
        lambda t: ("eyJ" + t[0] + ".eyJ" + t[1] + "." + t[2],) * 2
    ),
    "authorization_value": st.one_of(
        named("Authorization: Bearer {}", word(ALNUM + "._~+/-", 16, 60)),
        named("Authorization: Basic {}", word(ALNUM + "+/", 8, 40)),
    ),
    "url_password": named("postgres://app:{}@db.internal:5432/shop", word(ALNUM + "!$%*", 3, 30)),
    "private_key_block": named(
        "-----BEGIN EC PRIVATE KEY-----\n{}\n-----END EC PRIVATE KEY-----", word(ALNUM + "+/=\n", 20, 80)
    ),
    "secret_assignment": st.sampled_from(["password", "api_key", "client_secret", "refresh_token"]).flatmap(
        lambda name: st.one_of(
            named('{{"' + name + '": "{}"}}', word(ALNUM + " -", 1, 40).filter(lambda v: v.strip(" -"))),
            named(name + "={}&next=1", word(ALNUM, 3, 30).filter(lambda v: v not in JSON_LITERALS)),
        )
    ),
}
PROSE = st.text(st.sampled_from(ALNUM + " .,;:()\n\u00e9\u4e2d"), max_size=30)


def test_every_kind_is_fuzzed() -> None:
    assert set(SECRETS) == set(SECRET_PATTERNS)


@settings(max_examples=400, deadline=None)
@given(kind=st.sampled_from(sorted(SECRETS)), data=st.data(), before=PROSE, after=PROSE)
def test_a_secret_of_every_kind_in_any_text_is_redacted(
    kind: str, data: Any, before: str, after: str
) -> None:
    text, secret = data.draw(SECRETS[kind])
    whole = f"{before} {text} {after}"
    assume(whole.count(secret.strip()) == 1)  # the text around it does not hold it by chance
    redacted = Redactor(patterns=True).text(whole)
    assert secret.strip() not in redacted.replace(REDACTED, " "), (kind, whole, redacted)
    as_json = Redactor(patterns=True).json({"messages": [{"content": whole}], "n": 1})
    assert as_json == {"messages": [{"content": redacted}], "n": 1}


KEYS = word(ALNUM + "_-", 24, 64).map(lambda s: "sk-" + s)
CASES = st.sampled_from([str, str.upper, str.lower, str.swapcase])


@settings(max_examples=300, deadline=None)
@given(key=KEYS, cut=st.floats(0.2, 0.8), first_case=CASES, second_case=CASES, before=PROSE, after=PROSE)
def test_the_users_key_echoed_split_and_in_other_cases_leaves_no_piece(
    key: str, cut: float, first_case: Any, second_case: Any, before: str, after: str
) -> None:
    at = max(MIN_FRAGMENT, min(len(key) - MIN_FRAGMENT, int(len(key) * cut)))
    first, second = first_case(key[:at]), second_case(key[at:])
    events = [(None, json.dumps({"delta": before + first})), (None, json.dumps({"delta": second + after}))]
    for redactor in (Redactor([key]), Redactor([key], patterns=True)):
        raw = json.dumps(redactor.raw({"events": events}), ensure_ascii=False).lower()
        assert first.lower() not in raw and second.lower() not in raw
        whole = redactor.json({"text": before + first_case(key) + after, "again": second_case(key)})
        assert key.lower() not in json.dumps(whole, ensure_ascii=False).lower()
        assert REDACTED in whole["text"] and whole["again"] == REDACTED
