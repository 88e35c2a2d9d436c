"""Interactions error bodies, read with the ``gemini`` dialect's mapping (protocols.md §4.5, §4.6).

The google-genai types give an Interactions error as ``{"error": {"code": "<status name>",
"message"}}`` (``code`` a string such as ``resource_exhausted``), in HTTP error bodies and in the
stream's ``error`` event; Google's usual ``{"error": {"code": 429, "status": ...}}`` is read too.
A string ``code`` is taken as the ``status`` name, then :mod:`fcbench.adapters.gemini.errors`
decides the canonical code (its table), the retry hint (``RetryInfo`` in ``details``) and the
auth header.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fcbench.adapters.common import decode_json_body
from fcbench.adapters.gemini.errors import auth_headers, error_object, error_outcome, retry_after_seconds
from fcbench.contract import ProviderErrorOutcome


def google_shape(error: Mapping[str, Any]) -> dict[str, Any]:
    """``error`` with a string ``code`` moved to ``status`` (upper case), as Google's shape has it."""
    inner = dict(error)
    code = inner.get("code")
    if isinstance(code, str):
        inner.pop("code")
        inner.setdefault("status", code.upper())
    return {"error": inner}


def interactions_error_outcome(error: Mapping[str, Any], status: int | None = None) -> ProviderErrorOutcome:
    """A provider error from one Interactions ``Error`` object."""
    return error_outcome(google_shape(error), status)


def parse_error(status: int, body: Any, headers: Mapping[str, str]) -> ProviderErrorOutcome:
    """Map an HTTP error response to a canonical provider error (never raises)."""
    decoded = decode_json_body(body)
    error = error_object(decoded)
    if error is None:
        return error_outcome(decoded, status)
    return interactions_error_outcome(error, status)


__all__ = ["auth_headers", "google_shape", "interactions_error_outcome", "parse_error", "retry_after_seconds"]
