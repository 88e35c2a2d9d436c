"""Redaction of secrets, and sanitising of printed text: the one place every output goes through.

A :class:`Redactor` knows two things:

* **the secrets in play** (the user's API keys): replaced wherever they appear, in any letter
  case (a provider may echo a key upper-cased), as they are and trimmed of stray whitespace;
* with ``patterns=True``, **the documented secret kinds** of :data:`SECRET_PATTERNS` (keys by
  their well-known prefixes, JWTs, ``Authorization`` values, passwords in URLs, private key
  blocks, ``name=value`` pairs whose name says secret) and, in JSON, every string value of a key
  whose name says secret (:data:`SECRET_NAME`). For data read from elsewhere (logs, replays,
  error messages), where the secrets are not known in advance.

It replaces them wherever they appear: header values, URLs, and any string inside a JSON value or
any container the adapters keep (lists, tuples such as stream events, dicts, keys included).

A provider that echoes a key back in a stream may split it across deltas, so the raw events
hold it in pieces. In raw captures (:meth:`Redactor.raw`), besides every whole secret, any run
of at least :data:`MIN_FRAGMENT` characters of a secret (of at least
:data:`MIN_FRAGMENT_SECRET` characters) inside a string value is redacted too, in any case: each
piece of a key split in two or three is caught. Pieces shorter than that (a key streamed a few
characters at a time) stay in the raw events; the assembled text, where the key is whole, is
always redacted. Canonical values (outcomes, messages) get whole-secret redaction only, so their
structure is never touched.

Most captures hold no secret at all, so a JSON value is first encoded as UTF-8 JSON once
(msgspec, C speed), lower-cased (ASCII, one pass) and searched; only a value whose text holds a
secret (or a piece of one, or a pattern's anchor) is walked and copied.
A secret with a character JSON escapes (a quote, a backslash, a control character) or a
character outside ASCII would not appear in that text as it is, so such secrets always take the
walk.

:func:`sanitize` is the one cleaning of data printed to a terminal: control characters (C0 but
tab and newline, DEL, C1, so ESC and every ANSI or OSC sequence), bidirectional overrides and
line or paragraph separators are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec

REDACTED = "[REDACTED]"
SECRET_HEADERS = frozenset(
    {"authorization", "x-api-key", "x-goog-api-key", "api-key", "proxy-authorization", "cookie", "set-cookie"}
)
SECRET_QUERY_KEYS = frozenset({"key", "api_key", "api-key", "access_token"})
MIN_FRAGMENT = 8
"""Shortest run of a secret's characters redacted on its own (a piece of a key split across deltas)."""
MIN_FRAGMENT_SECRET = 16
"""Secrets shorter than this are redacted only whole (their pieces are too short to be telling)."""
PROBE = 5
PROBE_STEP = MIN_FRAGMENT - PROBE + 1
"""Windows of a secret the fast path looks for: ``PROBE`` characters every ``PROBE_STEP``, so
every run of :data:`MIN_FRAGMENT` characters of it holds one (a gram found means a walk)."""
JSON_ESCAPED = re.compile(r'["\\\x00-\x1f]')
"""Characters JSON writes escaped (every other character is written as its UTF-8 bytes)."""
ENCODE = msgspec.json.Encoder()

_NAMES = (
    r"(?:api[_-]?key|apikey|access[_-]?key|secret(?:[_-]?key)?|private[_-]?key"
    r"|password|passwd|pwd|token|credentials?)"
)
SECRET_NAME = re.compile(rf"(?:[a-z0-9]+[_-])*{_NAMES}", re.IGNORECASE | re.ASCII)
"""A name that says its value is secret (matched whole): ``password``, ``api_key``, ``X-Api-Key``,
``client_secret``, ``access_token``, ``OPENAI_API_KEY``; not ``max_tokens`` nor ``token_count``."""

SECRET_PATTERNS: Mapping[str, re.Pattern[str]] = {
    "anthropic_key": re.compile(r"\bsk-ant-[A-Za-z0-9_-]{16,}"),
    "openai_key": re.compile(r"\bsk-(?!ant-)[A-Za-z0-9_-]{16,}"),
    "google_api_key": re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"),
    "aws_access_key_id": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "aws_secret_access_key": re.compile(
        r"(?ai)aws[_-]?secret(?:[_-]?access)?[_-]?key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
    ),
    "github_token": re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
    "stripe_key": re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    "slack_token": re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    "jwt": re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    "authorization_value": re.compile(
        r"(?ai)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)"
        r"|authorization[\"']?\s*[:=]\s*[\"']?(?:basic|digest|token)\s+([A-Za-z0-9._~+/-]{6,}=*)"
    ),
    "url_password": re.compile(r"(?ai)(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,30}://[^\s:/@\"']+:([^\s@/\"']+)@"),
    "private_key_block": re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)"
    ),
    "secret_assignment": re.compile(
        rf"(?ai)(?<![A-Za-z0-9_-]){SECRET_NAME.pattern}\\?[\"']?\s*[:=]\s*"
        r"(?!(?-i:true|false|null)\b|\[REDACTED\])"  # JSON's literals (lower case) are not secrets
        r"(?:\\?\"([^\"\\\n]{1,256})\\?\"|'([^'\n]{1,256})'|([^\s\"'\\&,;{}\[\]()<>]{3,}))"
    ),
}
"""Kind -> pattern of a secret (the documented list: SECURITY.md). Where a pattern has groups, the
secret is the group that matched (the value of ``password=...``) and the rest stays."""

_ANCHORS = re.compile(
    rb"sk-|sk_|rk_|aiza|akia|asia|gh[pousr]_|github_pat_|xox|eyj|bearer|authorization|://|private key"
    rb"|key|secret|passw|pwd|token|credential"
)
"""Lower-cased text every :data:`SECRET_PATTERNS` match (and every secret name) contains: a JSON
text without any of them needs no walk."""

_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
"""Control characters but tab and newline (ESC, CSI, BEL, CR, DEL, C1), bidirectional marks,
overrides and isolates, and line and paragraph separators."""


def sanitize(text: object) -> str:
    """``text`` safe to print: no character that moves the cursor, starts an escape sequence,
    reorders the line or breaks it in another place than a newline."""
    return _UNPRINTABLE.sub("", str(text))


def _secret_span(match: re.Match[str]) -> tuple[int, int]:
    """Where the secret of a pattern's match is: the group that matched, else the whole match."""
    for group in range(1, (match.re.groups or 0) + 1):
        if match.group(group) is not None:
            return match.span(group)
    return match.span()


def pattern_secrets(text: str) -> Iterator[tuple[str, str]]:
    """``(kind, secret)`` of every :data:`SECRET_PATTERNS` match in ``text``."""
    for kind, pattern in SECRET_PATTERNS.items():
        for match in pattern.finditer(text):
            start, end = _secret_span(match)
            yield kind, text[start:end]


def redact_patterns(text: str) -> str:
    """``text`` with the secret of every :data:`SECRET_PATTERNS` match replaced."""
    if not _ANCHORS.search(text.lower().encode("utf-8", "surrogatepass")):
        return text
    for pattern in SECRET_PATTERNS.values():
        if pattern.search(text):
            text = pattern.sub(lambda m: _replace_secret(m), text)
    return text


def _replace_secret(match: re.Match[str]) -> str:
    start, end = _secret_span(match)
    whole = match.group(0)
    offset = match.start()
    return whole[: start - offset] + REDACTED + whole[end - offset :]


def is_secret_name(name: str) -> bool:
    """Whether a JSON key or header name says its value is secret (:data:`SECRET_HEADERS`,
    :data:`SECRET_NAME`)."""
    return name.lower() in SECRET_HEADERS or SECRET_NAME.fullmatch(name) is not None


def json_bytes(value: Any) -> bytes | None:
    """``value`` as UTF-8 JSON (tuples as arrays), or None when it is not JSON or holds a string
    UTF-8 cannot encode (a lone surrogate)."""
    try:
        return ENCODE.encode(value)
    except (TypeError, ValueError, OverflowError, UnicodeEncodeError, msgspec.EncodeError):
        return None


def _either_case(secrets: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern finding any of ``secrets`` in any letter case (longest first), or None."""
    ordered = sorted(set(secrets), key=len, reverse=True)
    return re.compile("|".join(map(re.escape, ordered)), re.IGNORECASE) if ordered else None


class Redactor:
    """Replaces known secret values in any letter case (and values of well-known secret headers
    and query keys); with ``patterns``, every secret of a documented kind too."""

    def __init__(self, secrets: Iterable[str | None] = (), *, patterns: bool = False) -> None:
        # A key pasted with a stray newline or space is also redacted without it: error messages
        # (e.g. "Illegal header value b'Bearer sk-...\\n'") show it escaped or trimmed.
        forms = {form for s in secrets if s for form in (s, s.strip())}
        self._secrets = sorted({s for s in forms if len(s) >= 4}, key=len, reverse=True)
        self._patterns = patterns
        self._lowered = [s.lower() for s in self._secrets]
        self._whole = _either_case(self._secrets)
        long_ones = [s.lower() for s in self._secrets if len(s) >= MIN_FRAGMENT_SECRET]
        grams = {s[i : i + MIN_FRAGMENT] for s in long_ones for i in range(len(s) - MIN_FRAGMENT + 1)}
        self._fragment = _either_case(grams)
        self._long = long_ones
        self._searchable = not any(JSON_ESCAPED.search(s) or not s.isascii() for s in self._secrets)
        self._secret_bytes = [s.encode("ascii", "replace") for s in self._lowered]
        # Any run of MIN_FRAGMENT characters of a secret holds one of its PROBE-character windows
        # starting at a multiple of PROBE_STEP: the fast path searches for those few, not every gram.
        probes = {s[i : i + PROBE] for s in long_ones for i in range(0, len(s) - PROBE + 1, PROBE_STEP)}
        self._probe_bytes = [p.encode("ascii", "replace") for p in sorted(probes)]

    @property
    def patterns(self) -> bool:
        """Whether the documented secret kinds are redacted too (not only the known secrets)."""
        return self._patterns

    def with_secret(self, secret: str | None) -> Redactor:
        """A redactor that also knows ``secret`` (this one when it knows it already: the transport
        asks once per request, so the piece pattern is not rebuilt each time)."""
        if not secret or all(form in self._secrets or len(form) < 4 for form in (secret, secret.strip())):
            return self
        return Redactor([*self._secrets, secret], patterns=self._patterns)

    def text(self, value: str) -> str:
        """``value`` with every known secret (in any case) replaced, and with ``patterns`` every
        secret of a documented kind."""
        if self._whole is not None and len(value) >= len(self._secrets[-1]):
            lowered = value.lower()
            if any(secret in lowered for secret in self._lowered):
                value = self._whole.sub(REDACTED, value)
        return redact_patterns(value) if self._patterns else value

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
        lowered = value.lower()
        if len(lowered) != len(value):  # a character whose lower case is longer: compare as written
            lowered = value
        for match in self._fragment.finditer(value):
            start = max(match.start(), end)
            if start >= match.end():
                continue
            stop = match.end()
            while stop < len(value) and any(lowered[start : stop + 1] in s for s in self._long):
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
        dicts, lists and tuples at any depth; with ``patterns``, also every string value of a key
        whose name says secret (:func:`is_secret_name`)."""
        if not (self._secrets or self._patterns) or self._holds_none(value, pieces=False):
            return value
        return self._walk(value, self.text)

    def raw(self, value: Any) -> Any:
        """Like :meth:`json`, and string values also lose every long enough piece of a secret
        (a key a provider echoed back split across stream deltas). For raw captures."""
        if not (self._secrets or self._patterns) or self._holds_none(value, pieces=True):
            return value
        return self._walk(value, self.text_and_pieces)

    def _holds_none(self, value: Any, pieces: bool) -> bool:
        """Whether ``value``'s JSON text shows no secret (and, with ``pieces``, no piece of one;
        with ``patterns``, no pattern's anchor): then walking it would change nothing. False
        whenever that cannot be told from the text."""
        if isinstance(value, str) or not self._searchable:
            return False
        text = json_bytes(value)
        if text is None:
            return False
        text = text.lower()
        if any(secret in text for secret in self._secret_bytes):
            return False
        if self._patterns and _ANCHORS.search(text):
            return False
        return not (pieces and any(probe in text for probe in self._probe_bytes))

    def _walk(self, value: Any, strings: Callable[[str], str]) -> Any:
        if isinstance(value, str):
            return strings(value)
        if isinstance(value, list):
            return [self._walk(v, strings) for v in value]
        if isinstance(value, tuple):  # stream events are kept as (event name, data) pairs
            return tuple(self._walk(v, strings) for v in value)
        if isinstance(value, dict):
            return {self.text(k): self._value_of(k, v, strings) for k, v in value.items()}
        return value

    def _value_of(self, key: Any, value: Any, strings: Callable[[str], str]) -> Any:
        """A dict's value: withheld whole when it is a string under a secret name (with patterns)."""
        if (
            self._patterns
            and isinstance(value, str)
            and value
            and isinstance(key, str)
            and is_secret_name(key)
        ):
            return REDACTED
        return self._walk(value, strings)


__all__ = [
    "MIN_FRAGMENT",
    "MIN_FRAGMENT_SECRET",
    "REDACTED",
    "SECRET_HEADERS",
    "SECRET_NAME",
    "SECRET_PATTERNS",
    "SECRET_QUERY_KEYS",
    "Redactor",
    "is_secret_name",
    "json_bytes",
    "pattern_secrets",
    "redact_patterns",
    "sanitize",
]
