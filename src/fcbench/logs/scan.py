"""Find secrets and obvious personal data in logged text, for review before a case is kept.

Secrets (every kind of :data:`fcbench.redact.SECRET_PATTERNS`, and string values under a name
that says secret) are redacted with :class:`~fcbench.redact.Redactor` once found;
personal data (e-mail addresses, phone numbers) is kept and flagged, since the prompt may need
it to mean anything. The patterns are deliberately plain: they find the obvious, and everything
they find goes to a person (``fcbench cases review``), so a false alarm costs one look.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from fcbench.redact import is_secret_name, pattern_secrets

PII_PATTERNS: Mapping[str, re.Pattern[str]] = {
    "email": re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"),
    "phone": re.compile(
        r"(?<![\w-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?|\d{2,4}[ .-])\d{3,4}[ .-]\d{3,4}(?![\w-])"
        r"|(?<![\w-])\+\d{8,15}(?![\w-])"
    ),
}
"""Kind -> pattern of obvious personal data (flagged, kept)."""

SECRET_TAG = "needs-review:secret"
"""Tag of a case in which a secret was found (and redacted)."""
PII_TAG = "needs-review:pii"
"""Tag of a case in which personal data was found (kept)."""


@dataclass(frozen=True)
class Findings:
    """What a scan found in one case's text."""

    secrets: dict[str, list[str]]
    """Kind -> the secret values found (to redact; never written anywhere)."""
    pii: dict[str, int]
    """Kind -> how many occurrences were found."""

    @property
    def secret_values(self) -> list[str]:
        """Every secret value found, longest first."""
        return sorted({v for values in self.secrets.values() for v in values}, key=len, reverse=True)

    @property
    def tags(self) -> list[str]:
        """The review tags this scan calls for."""
        return [tag for tag, hit in ((SECRET_TAG, self.secrets), (PII_TAG, self.pii)) if hit]

    def describe(self) -> str:
        """``secret (bearer_token) redacted; personal data kept: email 1, phone 2``, or empty."""
        parts = []
        if self.secrets:
            parts.append(f"secret ({', '.join(sorted(self.secrets))}) redacted")
        if self.pii:
            parts.append("personal data kept: " + ", ".join(f"{k} {n}" for k, n in sorted(self.pii.items())))
        return "; ".join(parts)


def strings_in(value: Any) -> Iterator[str]:
    """Every string inside a JSON value (dict keys included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_in(item)


def named_secrets(value: Any) -> Iterator[str]:
    """Every non-empty string value, inside a JSON value, of a key whose name says secret."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and item and isinstance(key, str) and is_secret_name(key):
                yield item
            else:
                yield from named_secrets(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from named_secrets(item)


def scan_json(value: Any) -> Findings:
    """Secrets and personal data in the strings of a JSON value (:func:`scan`), and the string
    values of keys named like secrets (kind ``secret_assignment``)."""
    return scan(strings_in(value), named=named_secrets(value))


def scan(texts: Iterable[str], named: Iterable[str] = ()) -> Findings:
    """Secrets and personal data in ``texts``; ``named`` are values known to be secret by their name."""
    secrets: dict[str, set[str]] = {}
    pii: dict[str, int] = {}
    for value in named:
        secrets.setdefault("secret_assignment", set()).add(value)
    for text in texts:
        for kind, found in pattern_secrets(text):
            secrets.setdefault(kind, set()).add(found)
        masked = text
        for values in secrets.values():
            for value in values:
                masked = masked.replace(value, " ")
        for kind, pattern in PII_PATTERNS.items():
            count = len(pattern.findall(masked))
            if count:
                pii[kind] = pii.get(kind, 0) + count
    return Findings({k: sorted(v) for k, v in sorted(secrets.items())}, dict(sorted(pii.items())))


__all__ = [
    "PII_PATTERNS",
    "PII_TAG",
    "SECRET_TAG",
    "Findings",
    "named_secrets",
    "scan",
    "scan_json",
    "strings_in",
]
