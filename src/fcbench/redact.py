"""Redaction of secrets from captured traffic, logs and error messages.

API keys travel in headers (``Authorization``, ``x-api-key``, ``x-goog-api-key``, ``api-key``) or in
query strings (Gemini's ``key=``). A :class:`Redactor` knows the secrets in play and replaces them
wherever they appear: header values, URLs, and any string inside a JSON value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "[REDACTED]"
SECRET_HEADERS = frozenset({"authorization", "x-api-key", "x-goog-api-key", "api-key", "proxy-authorization"})
SECRET_QUERY_KEYS = frozenset({"key", "api_key", "api-key", "access_token"})


class Redactor:
    """Replaces known secret values (and values of well-known secret headers and query keys)."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        # A key pasted with a stray newline or space is also redacted without it: error messages
        # (e.g. "Illegal header value b'Bearer sk-...\\n'") show it escaped or trimmed.
        forms = {form for s in secrets if s for form in (s, s.strip())}
        self._secrets = sorted({s for s in forms if len(s) >= 4}, key=len, reverse=True)

    def with_secret(self, secret: str | None) -> Redactor:
        """A redactor that also knows ``secret``."""
        return Redactor([*self._secrets, secret])

    def text(self, value: str) -> str:
        """``value`` with every known secret replaced."""
        for secret in self._secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value

    def url(self, url: str) -> str:
        """A URL with secret query parameters and known secrets replaced."""
        parts = urlsplit(url)
        if parts.query:
            pairs = [
                (k, REDACTED if k.lower() in SECRET_QUERY_KEYS else v)
                for k, v in parse_qsl(parts.query, keep_blank_values=True)
            ]
            parts = parts._replace(query=urlencode(pairs, safe="[]"))
        return self.text(urlunsplit(parts))

    def headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        """Headers with secret headers' values replaced."""
        return {k: (REDACTED if k.lower() in SECRET_HEADERS else self.text(v)) for k, v in headers.items()}

    def json(self, value: Any) -> Any:
        """A copy of a JSON value with every known secret replaced inside strings (keys included)."""
        if not self._secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.json(v) for v in value]
        if isinstance(value, dict):
            return {self.text(k): self.json(v) for k, v in value.items()}
        return value
