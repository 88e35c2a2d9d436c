"""Redaction of secrets from captured traffic, logs and error messages.

API keys travel in headers (``Authorization``, ``x-api-key``, ``x-goog-api-key``, ``api-key``) or in
query strings (Gemini's ``key=``). A :class:`Redactor` knows the secrets in play and replaces them
wherever they appear: header values, URLs, and any string inside a JSON value or any container
the adapters keep (lists, tuples such as stream events, dicts, keys included).

A provider that echoes a key back in a stream may split it across deltas, so the raw events
hold it in pieces. In raw captures (:meth:`Redactor.raw`), besides every whole secret, any run
of at least :data:`MIN_FRAGMENT` characters of a secret (of at least
:data:`MIN_FRAGMENT_SECRET` characters) inside a string value is redacted too: each piece of a
key split in two or three is caught. Pieces shorter than that (a key streamed a few characters
at a time) stay in the raw events; the assembled text, where the key is whole, is always
redacted. Canonical values (outcomes, messages) get whole-secret redaction only, so their
structure is never touched.

Most captures hold no secret at all, so a JSON value is first encoded as UTF-8 JSON once
(msgspec, C speed) and searched; only a value whose text holds a secret (or a piece of one) is
walked and copied.
A secret with a character JSON escapes (a quote, a backslash, a control character) would not
appear in that text as it is, so such secrets always take the walk.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec

REDACTED = "[REDACTED]"
SECRET_HEADERS = frozenset({"authorization", "x-api-key", "x-goog-api-key", "api-key", "proxy-authorization"})
SECRET_QUERY_KEYS = frozenset({"key", "api_key", "api-key", "access_token"})
MIN_FRAGMENT = 8
"""Shortest run of a secret's characters redacted on its own (a piece of a key split across deltas)."""
MIN_FRAGMENT_SECRET = 16
"""Secrets shorter than this are redacted only whole (their pieces are too short to be telling)."""
JSON_ESCAPED = re.compile(r'["\\\x00-\x1f]')
"""Characters JSON writes escaped (every other character is written as its UTF-8 bytes)."""
ENCODE = msgspec.json.Encoder()


def json_bytes(value: Any) -> bytes | None:
    """``value`` as UTF-8 JSON (tuples as arrays), or None when it is not JSON or holds a string
    UTF-8 cannot encode (a lone surrogate)."""
    try:
        return ENCODE.encode(value)
    except (TypeError, ValueError, OverflowError, UnicodeEncodeError, msgspec.EncodeError):
        return None


class Redactor:
    """Replaces known secret values (and values of well-known secret headers and query keys)."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        # A key pasted with a stray newline or space is also redacted without it: error messages
        # (e.g. "Illegal header value b'Bearer sk-...\\n'") show it escaped or trimmed.
        forms = {form for s in secrets if s for form in (s, s.strip())}
        self._secrets = sorted({s for s in forms if len(s) >= 4}, key=len, reverse=True)
        long_ones = [s for s in self._secrets if len(s) >= MIN_FRAGMENT_SECRET]
        grams = sorted({s[i : i + MIN_FRAGMENT] for s in long_ones for i in range(len(s) - MIN_FRAGMENT + 1)})
        self._fragment = re.compile("|".join(map(re.escape, grams))) if grams else None
        self._long = long_ones
        self._searchable = not any(JSON_ESCAPED.search(s) for s in self._secrets)
        self._secret_bytes = [s.encode("utf-8", "surrogatepass") for s in self._secrets]
        self._gram_bytes = [g.encode("utf-8", "surrogatepass") for g in grams]

    def with_secret(self, secret: str | None) -> Redactor:
        """A redactor that also knows ``secret`` (this one when it knows it already: the transport
        asks once per request, so the piece pattern is not rebuilt each time)."""
        if not secret or all(form in self._secrets or len(form) < 4 for form in (secret, secret.strip())):
            return self
        return Redactor([*self._secrets, secret])

    def text(self, value: str) -> str:
        """``value`` with every known secret replaced."""
        for secret in self._secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value

    def text_and_pieces(self, value: str) -> str:
        """``value`` with every known secret, and every long enough piece of one, replaced."""
        value = self.text(value)
        if self._fragment is None or not self._fragment.search(value):
            return value
        return self._pieces_redacted(value)

    def _pieces_redacted(self, value: str) -> str:
        """Replace each maximal run of characters that is a substring of a long secret."""
        assert self._fragment is not None
        out: list[str] = []
        end = 0
        for match in self._fragment.finditer(value):
            start = max(match.start(), end)
            if start >= match.end():
                continue
            stop = match.end()
            while stop < len(value) and any(value[start : stop + 1] in s for s in self._long):
                stop += 1
            out.append(value[end:start] + REDACTED)
            end = stop
        out.append(value[end:])
        return "".join(out)

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
        """A copy of a value with every known secret replaced inside strings (keys included), in
        dicts, lists and tuples at any depth."""
        if not self._secrets or self._holds_none(value, pieces=False):
            return value
        return self._walk(value, self.text)

    def raw(self, value: Any) -> Any:
        """Like :meth:`json`, and string values also lose every long enough piece of a secret
        (a key a provider echoed back split across stream deltas). For raw captures."""
        if not self._secrets or self._holds_none(value, pieces=True):
            return value
        return self._walk(value, self.text_and_pieces)

    def _holds_none(self, value: Any, pieces: bool) -> bool:
        """Whether ``value``'s JSON text shows no secret (and, with ``pieces``, no piece of one):
        then walking it would change nothing. False whenever that cannot be told from the text."""
        if isinstance(value, str) or not self._searchable:
            return False
        text = json_bytes(value)
        if text is None or any(secret in text for secret in self._secret_bytes):
            return False
        return not (pieces and any(gram in text for gram in self._gram_bytes))

    def _walk(self, value: Any, strings: Callable[[str], str]) -> Any:
        if isinstance(value, str):
            return strings(value)
        if isinstance(value, list):
            return [self._walk(v, strings) for v in value]
        if isinstance(value, tuple):  # stream events are kept as (event name, data) pairs
            return tuple(self._walk(v, strings) for v in value)
        if isinstance(value, dict):
            return {self.text(k): self._walk(v, strings) for k, v in value.items()}
        return value
