"""Anthropic error bodies, auth headers and retry hints (protocols.md §3.1, §3.5, §7.2).

An error is ``{"type": "error", "error": {"type", "message"}, "request_id"}``. The error ``type``
decides the canonical code when it is known; otherwise the HTTP status does:

=========================================  ===============  ================
error type                                 HTTP status      canonical code
=========================================  ===============  ================
``invalid_request_error`` about tools      400              ``schema_rejected``
(``tools.N…``, ``input_schema``, "JSON
schema")
``invalid_request_error``,                 400, 413, 4xx    ``bad_request``
``request_too_large``
``authentication_error``,                  401, 402, 403    ``auth``
``permission_error``, ``billing_error``
``not_found_error``                        404              ``not_found``
``rate_limit_error``                       429              ``rate_limited``
``api_error``                              500, other 5xx   ``server``
``timeout_error``                          408, 504         ``timeout``
``overloaded_error``                       529, 503         ``overloaded``
=========================================  ===============  ================
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from fcbench.adapters import common
from fcbench.adapters.model_errors import refine_model_caused
from fcbench.contract import ProviderErrorCode, ProviderErrorOutcome

ANTHROPIC_VERSION = "2023-06-01"
"""The documented ``anthropic-version`` header value."""

ERROR_TYPES: dict[str, ProviderErrorCode] = {
    "invalid_request_error": "bad_request",
    "request_too_large": "bad_request",
    "authentication_error": "auth",
    "permission_error": "auth",
    "billing_error": "auth",
    "not_found_error": "not_found",
    "rate_limit_error": "rate_limited",
    "api_error": "server",
    "timeout_error": "timeout",
    "overloaded_error": "overloaded",
}
"""``error.type`` -> canonical code."""

STATUS_CODES: dict[int, ProviderErrorCode] = {
    **common.HTTP_STATUS_CODES,
    402: "auth",
    413: "bad_request",
    529: "overloaded",
}
"""HTTP status -> canonical code, used when the body names no known error type."""

MESSAGE_LIMIT = common.ERROR_MESSAGE_LIMIT
"""Longest error text kept in a message."""

_SCHEMA_MESSAGE = re.compile(r"\btools\.\d+|input_schema|json schema", re.IGNORECASE)


def auth_headers(api_key: str | None) -> dict[str, str]:
    """``x-api-key`` and ``anthropic-version``; only the version header when there is no key."""
    headers = {"anthropic-version": ANTHROPIC_VERSION}
    if api_key:
        headers["x-api-key"] = api_key
    return headers


def error_object(body: Any) -> dict[str, Any] | None:
    """The inner ``error`` object of an Anthropic error body, or None."""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        inner: dict[str, Any] = body["error"]
        return inner
    return None


def _describe(error: Mapping[str, Any], request_id: Any) -> str:
    message = error.get("message")
    text = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False, default=str)
    extras = [f"type={error['type']}"] if isinstance(error.get("type"), str) else []
    if isinstance(request_id, str):
        extras.append(f"request_id={request_id}")
    return (f"{text} [{', '.join(extras)}]" if extras else text)[:MESSAGE_LIMIT]


def _code(error: Mapping[str, Any] | None, status: int | None) -> ProviderErrorCode:
    kind = error.get("type") if error is not None else None
    code: ProviderErrorCode | None = ERROR_TYPES.get(kind) if isinstance(kind, str) else None
    if code is None and status is not None:
        code = common.status_code(STATUS_CODES, status)
    code = code or "server"
    message = error.get("message") if error is not None else None
    if code == "bad_request" and isinstance(message, str) and _SCHEMA_MESSAGE.search(message):
        return "schema_rejected"
    return refine_model_caused(code, message)


def error_outcome(body: Any, status: int | None = None) -> ProviderErrorOutcome:
    """A provider error from an error body (HTTP error, 2xx error body or stream ``error`` event)."""
    error = error_object(body)
    if error is not None:
        message = _describe(error, body.get("request_id"))
    else:
        message = common.unstructured_error_message(body, status)
    return ProviderErrorOutcome(code=_code(error, status), message=message, status=status)


def parse_error(status: int, body: Any, headers: Mapping[str, str]) -> ProviderErrorOutcome:
    """Map an HTTP error response to a canonical provider error (never raises)."""
    return error_outcome(common.decode_json_body(body), status)


def retry_after_seconds(status: int, body: Any, headers: Mapping[str, str]) -> float | None:
    """The ``retry-after-ms`` or ``retry-after`` header, in seconds (Anthropic puts no hint in bodies)."""
    return common.retry_after_header(headers)
