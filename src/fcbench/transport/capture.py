"""What is kept of an exchange: the response headers worth keeping, and turns and captures made
storable (secrets redacted, every string valid UTF-8)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fcbench.adapters.base import ParsedTurn
from fcbench.contract import ProviderErrorOutcome
from fcbench.redact import Redactor, json_bytes

KEEP_RESPONSE_HEADERS = (
    "content-type",
    "retry-after",
    "retry-after-ms",
    "x-request-id",
    "request-id",
    "x-amzn-requestid",
    "x-amzn-errortype",
)


def error_turn(code: str, message: str, status: int | None = None) -> ParsedTurn:
    """A turn whose outcome is the provider error ``code`` (coverage loss)."""
    return ParsedTurn(outcome=ProviderErrorOutcome(code=code, message=message, status=status))


def kept_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The response headers a raw capture keeps (:data:`KEEP_RESPONSE_HEADERS`)."""
    return {k: v for k, v in headers.items() if k.lower() in KEEP_RESPONSE_HEADERS}


def unsendable_headers(headers: Mapping[str, str]) -> list[str]:
    """The names of the headers whose value holds a line break or NUL (it would end the header,
    or the request, early: no client sends it)."""
    return [name for name, value in headers.items() if _HEADER_BREAK.search(value)]


_SURROGATE = re.compile("[\ud800-\udfff]")
_HEADER_BREAK = re.compile("[\r\n\0]")


def valid_unicode(value: Any) -> Any:
    """A JSON value whose strings can all be written as UTF-8 (``value`` itself when they can).

    JSON escapes can carry UTF-16 surrogates, e.g. an emoji whose two halves a server sent in two
    stream chunks. Such halves are joined into the character they encode; a lone surrogate becomes
    U+FFFD, as an undecodable byte would. A value that encodes as UTF-8 JSON holds none, and is
    returned without being walked.
    """
    if not isinstance(value, str) and json_bytes(value) is not None:
        return value
    return _valid_strings(value)


def _valid_strings(value: Any) -> Any:
    if isinstance(value, str):
        if _SURROGATE.search(value) is None:
            return value
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if isinstance(value, list):
        return [_valid_strings(v) for v in value]
    if isinstance(value, dict):
        return {_valid_strings(k): _valid_strings(v) for k, v in value.items()}
    return value


def clean_turn(turn: ParsedTurn, redactor: Redactor) -> ParsedTurn:
    """``turn`` with secrets redacted (a provider may echo the key back) and every string storable."""
    data = turn.model_dump()
    clean = redactor.json(valid_unicode(data))
    return turn if clean == data else ParsedTurn.model_validate(clean)
