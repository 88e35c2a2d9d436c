"""Every documented secret kind is found and redacted; look-alikes that are not secrets are kept."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from secret_samples import KINDS

from fcbench.redact import REDACTED, SECRET_PATTERNS, Redactor, is_secret_name, pattern_secrets


def test_thirteen_kinds_and_each_is_tested() -> None:
    assert set(KINDS) == set(SECRET_PATTERNS) and len(SECRET_PATTERNS) >= 13


@pytest.mark.parametrize(
    ("kind", "text", "secret"), [(k, t, s) for k, cases in KINDS.items() for t, s in cases]
)
def test_each_kind_is_found_and_redacted(kind: str, text: str, secret: str) -> None:
    found = {(k, v) for k, v in pattern_secrets(text)}
    assert any(k == kind and secret in v for k, v in found), found
    redacted = Redactor(patterns=True).text(text)
    assert secret not in redacted and REDACTED in redacted
    assert Redactor(patterns=True).text(redacted) == redacted  # redacting twice changes nothing more
    assert Redactor(patterns=True).json({"nested": [text]}) == {"nested": [redacted]}


@pytest.mark.parametrize(
    "text",
    [
        '{"max_tokens": 1024, "input_tokens": 12, "token_count": 3}',
        '"required": ["password", "token"], "password": {"type": "string"}',
        "a sketch of risk-free skies",  # sk- inside a word
        "the bearer of this letter",
        "AKIA123",  # too short for an access key id
        "https://example.com/path:with:colons@nothing",
        "mailto:someone@example.com",
        '{"secret": true, "token": null}',
        "eyJhbGciOiJIUzI1NiJ9 alone is a header, not a token",
    ],
)
def test_look_alikes_are_kept(text: str) -> None:
    assert Redactor(patterns=True).text(text) == text


def test_json_values_under_secret_names_are_withheld_whole() -> None:
    body = {
        "password": "hunter 2 with spaces",
        "headers": {"X-Api-Key": "short", "Cookie": "session=1"},
        "max_tokens": 1024,
        "token_count": "12",
        "properties": {"password": {"type": "string"}},
        "required": ["password"],
    }
    redacted = Redactor(patterns=True).json(body)
    assert redacted["password"] == REDACTED and redacted["headers"]["X-Api-Key"] == REDACTED
    assert redacted["headers"]["Cookie"] == REDACTED
    assert redacted["token_count"] == "12" and redacted["max_tokens"] == 1024
    assert redacted["properties"] == body["properties"] and redacted["required"] == ["password"]
    assert Redactor().json(body) is body  # without patterns only known secrets go


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("password", True),
        ("client_secret", True),
        ("OPENAI_API_KEY", True),
        ("x-api-key", True),
        ("access_token", True),
        ("authorization", True),
        ("max_tokens", False),
        ("token_count", False),
        ("description", False),
    ],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_a_known_key_is_redacted_in_any_case() -> None:
    key = "lab-key-Abc123Def456Ghi789"
    redactor = Redactor([key])
    assert redactor.text(f"echo {key.upper()} and {key.lower()}") == f"echo {REDACTED} and {REDACTED}"
    assert redactor.json({"a": key.swapcase()}) == {"a": REDACTED}
    raw = redactor.raw([("delta", key[:12].upper()), ("delta", key[12:].lower())])
    assert raw == [("delta", REDACTED), ("delta", REDACTED)]


@pytest.mark.parametrize(
    "text", ["a_" * 50_000, "a." * 50_000 + "x", "x://" + "a" * 100_000, "bearer " * 20_000, "key=" * 30_000]
)
def test_long_hostile_inputs_are_scanned_in_linear_time(text: str) -> None:
    # a pattern that backtracks (quadratic in the length) would hold this test for minutes
    assert Redactor(patterns=True).text(text) == text


def test_security_md_lists_exactly_the_kinds_caught() -> None:
    text = (Path(__file__).resolve().parents[2] / "SECURITY.md").read_text(encoding="utf-8")
    section = text.split("## Secrets", 1)[1].split("**Not caught**", 1)[0]
    listed = set(re.findall(r"^\| `([a-z_0-9]+)` \|", section, flags=re.MULTILINE))
    assert listed == set(SECRET_PATTERNS)
