"""Gemini error bodies, auth headers and retry hints (protocols.md §4.5, §7.3).

An error is ``{"error": {"code", "message", "status", "details"}}``, sometimes wrapped in a
one-element list. The ``status`` name decides the canonical code when it is known, else the
HTTP status (or ``error.code``) does:

======================================  ============  ===================
``error.status``                        HTTP status   canonical code
======================================  ============  ===================
``INVALID_ARGUMENT`` with ErrorInfo     400           ``auth``
``API_KEY_INVALID`` (or "API key not
valid")
``INVALID_ARGUMENT`` about function     400           ``schema_rejected``
declarations (``function_declarations``,
``tools[N]``, ``parameters``, schema)
``INVALID_ARGUMENT``,                   400, 4xx      ``bad_request``
``FAILED_PRECONDITION``, ``OUT_OF_RANGE``
``UNAUTHENTICATED``,                    401, 403      ``auth``
``PERMISSION_DENIED``
``NOT_FOUND``                           404           ``not_found``
``RESOURCE_EXHAUSTED``                  429           ``rate_limited``
``INTERNAL``, ``UNKNOWN``               500, 5xx      ``server``
``UNAVAILABLE``                         503           ``overloaded``
``DEADLINE_EXCEEDED``                   408, 504      ``timeout``
======================================  ============  ===================

The retry hint is ``RetryInfo.retryDelay`` (``"37s"``) in ``details``, else a ``retry-after``
header.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from fcbench.adapters import common
from fcbench.adapters.model_errors import refine_model_caused
from fcbench.contract import ProviderErrorCode, ProviderErrorOutcome

STATUS_NAMES: dict[str, ProviderErrorCode] = {
    "INVALID_ARGUMENT": "bad_request",
    "FAILED_PRECONDITION": "bad_request",
    "OUT_OF_RANGE": "bad_request",
    "UNAUTHENTICATED": "auth",
    "PERMISSION_DENIED": "auth",
    "NOT_FOUND": "not_found",
    "RESOURCE_EXHAUSTED": "rate_limited",
    "INTERNAL": "server",
    "UNKNOWN": "server",
    "UNAVAILABLE": "overloaded",
    "DEADLINE_EXCEEDED": "timeout",
}
"""``error.status`` -> canonical code."""

STATUS_CODES: Mapping[int, ProviderErrorCode] = common.HTTP_STATUS_CODES
"""HTTP status -> canonical code, used when the body names no known status."""

MESSAGE_LIMIT = common.ERROR_MESSAGE_LIMIT
"""Longest error text kept in a message."""

_SCHEMA_MESSAGE = re.compile(
    r"function_declarations|functionDeclarations|parameters_json_schema|parametersJsonSchema|tools\[\d+\]|\bschema\b",
    re.IGNORECASE,
)
_RETRY_DELAY = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def auth_headers(api_key: str | None) -> dict[str, str]:
    """``x-goog-api-key``; nothing when there is no key."""
    return {"x-goog-api-key": api_key} if api_key else {}


def error_object(body: Any) -> dict[str, Any] | None:
    """The inner ``error`` object of a Gemini error body (plain or in a one-element list), or None."""
    if isinstance(body, list) and len(body) == 1:
        body = body[0]
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        inner: dict[str, Any] = body["error"]
        return inner
    return None


def _details(error: Mapping[str, Any]) -> list[dict[str, Any]]:
    details = error.get("details")
    return [d for d in details if isinstance(d, dict)] if isinstance(details, list) else []


def _bad_key(error: Mapping[str, Any]) -> bool:
    if any(d.get("reason") == "API_KEY_INVALID" for d in _details(error)):
        return True
    message = error.get("message")
    return isinstance(message, str) and "api key not valid" in message.lower()


def _code(error: Mapping[str, Any] | None, status: int | None) -> ProviderErrorCode:
    if error is None:
        name, number = None, status
    else:
        name = error.get("status")
        number = status if status is not None else error.get("code")
    code: ProviderErrorCode | None = STATUS_NAMES.get(name) if isinstance(name, str) else None
    if code is None and isinstance(number, int):
        code = common.status_code(STATUS_CODES, number)
    code = code or "server"
    if code == "bad_request" and error is not None:
        message = error.get("message")
        if _bad_key(error):
            return "auth"
        if isinstance(message, str) and _SCHEMA_MESSAGE.search(message):
            return "schema_rejected"
    return refine_model_caused(code, error.get("message") if error is not None else None)


def _describe(error: Mapping[str, Any]) -> str:
    message = error.get("message")
    text = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False, default=str)
    reasons = [d["reason"] for d in _details(error) if isinstance(d.get("reason"), str)]
    extras = [f"status={error['status']}"] if isinstance(error.get("status"), str) else []
    extras += [f"reason={r}" for r in reasons]
    return (f"{text} [{', '.join(extras)}]" if extras else text)[:MESSAGE_LIMIT]


def error_outcome(body: Any, status: int | None = None) -> ProviderErrorOutcome:
    """A provider error from an error body (HTTP error, 2xx error body or stream chunk)."""
    error = error_object(body)
    message = _describe(error) if error is not None else common.unstructured_error_message(body, status)
    return ProviderErrorOutcome(code=_code(error, status), message=message, status=status)


def parse_error(status: int, body: Any, headers: Mapping[str, str]) -> ProviderErrorOutcome:
    """Map an HTTP error response to a canonical provider error (never raises)."""
    return error_outcome(common.decode_json_body(body), status)


def retry_after_seconds(status: int, body: Any, headers: Mapping[str, str]) -> float | None:
    """``RetryInfo.retryDelay`` from the error details, else the ``retry-after`` header."""
    error = error_object(common.decode_json_body(body))
    for detail in _details(error) if error is not None else []:
        delay = detail.get("retryDelay")
        if isinstance(delay, str) and (match := _RETRY_DELAY.match(delay)):
            return float(match.group(1))
    return common.retry_after_header(headers)
