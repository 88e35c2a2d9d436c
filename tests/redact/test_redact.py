"""Secrets are replaced in headers, query strings and JSON bodies."""

from __future__ import annotations

from fcbench.redact import REDACTED, Redactor


def test_redacts_headers_urls_and_bodies() -> None:
    r = Redactor(["sk-very-secret-123"])
    assert r.headers(
        {"Authorization": "Bearer abc", "x-goog-api-key": "zzz", "X-Trace": "sk-very-secret-123"}
    ) == {
        "Authorization": REDACTED,
        "x-goog-api-key": REDACTED,
        "X-Trace": REDACTED,
    }
    url = r.url("https://h/v1beta/models/m:generateContent?alt=sse&key=AIzaSECRET")
    assert "AIzaSECRET" not in url and "alt=sse" in url
    body = r.json({"echo": ["prefix sk-very-secret-123 suffix"], "sk-very-secret-123": 1})
    assert "sk-very-secret-123" not in repr(body)
    assert body["echo"] == [f"prefix {REDACTED} suffix"]


def test_short_or_empty_secrets_are_ignored() -> None:
    r = Redactor(["", None, "ab"])
    assert r.text("ab cd") == "ab cd"
