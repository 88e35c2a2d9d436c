"""OpenAI error bodies, auth and retry hints, shared by the Chat Completions and Responses adapters.

Both OpenAI dialects (and the OpenAI-compatible servers that copy them) answer a failed request
with ``{"error": {"message", "type", "param", "code"}}``; some local servers send the inner object
flat, or a plain-text body. :func:`parse_openai_error` maps any of these to a canonical
:class:`~fcbench.contract.ProviderErrorOutcome` without raising.

=========================  ===============================================================
HTTP status                canonical code
=========================  ===============================================================
400 about a tool schema    ``schema_rejected`` (``param`` under ``tools``, code
                           ``invalid_function_parameters``, or an "Invalid schema" message)
other 400, 409, 413, 422   ``bad_request``, unless the error ``code`` is more specific
                           (``model_not_found`` -> ``not_found``, ``invalid_api_key`` -> ``auth``)
401, 403                   ``auth``
404                        ``not_found``
408, 504                   ``timeout`` (as Anthropic and Gemini read a gateway timeout)
429                        ``rate_limited`` (also ``insufficient_quota``; the message says which)
500, 502, other 5xx        ``server``, or ``overloaded`` when the message says "overloaded"
                           (OpenAI reports overload as 500 or 503), or ``model_output_invalid``
                           when it says the model's output could not be parsed
                           (:mod:`fcbench.adapters.model_errors`)
503, 529                   ``overloaded``
other 4xx                  ``bad_request``; any other status ``bad_response``
=========================  ===============================================================

An error object without an HTTP status (a mid-stream ``{"error": ...}`` record, a Responses
``error`` event or failed response) is read by its ``code``, then its ``type``
(:data:`ERROR_TYPE_CODES`); a ``server_error`` whose message says "overloaded" is ``overloaded``,
so an in-stream overload gets the code it gets in the other dialects.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fcbench.adapters.common import (
    ERROR_MESSAGE_LIMIT,
    HTTP_STATUS_CODES,
    decode_json_body,
    retry_after_header,
    unstructured_error_message,
)
from fcbench.adapters.model_errors import refine_model_caused
from fcbench.contract import ProviderErrorCode, ProviderErrorOutcome

STATUS_CODES: dict[int, ProviderErrorCode] = {
    **HTTP_STATUS_CODES,
    409: "bad_request",
    413: "bad_request",
    422: "bad_request",
    502: "server",
    529: "overloaded",
}
"""HTTP status -> canonical provider error code (see the module table for the fallbacks)."""

ERROR_TYPE_CODES: dict[str, ProviderErrorCode] = {
    "invalid_function_parameters": "schema_rejected",
    "invalid_api_key": "auth",
    "authentication_error": "auth",
    "permission_error": "auth",
    "model_not_found": "not_found",
    "not_found_error": "not_found",
    "rate_limit_exceeded": "rate_limited",
    "insufficient_quota": "rate_limited",
    "server_error": "server",
    "api_error": "server",
    "overloaded_error": "overloaded",
    "unavailable_error": "overloaded",
    "invalid_request_error": "bad_request",
    "invalid_prompt": "bad_request",
    "context_length_exceeded": "bad_request",
    "exceed_context_size_error": "bad_request",
}
"""Error ``code`` or ``type`` -> canonical code, for errors that arrive without an HTTP status
(mid-stream ``error`` events, failed Responses) and to refine 400s."""

MESSAGE_LIMIT = ERROR_MESSAGE_LIMIT
"""Longest body text kept in an error message."""

_SCHEMA_MESSAGE = re.compile(r"invalid schema|function parameters|json schema|tools\[\d+\]", re.IGNORECASE)
_OVERLOADED_MESSAGE = re.compile(r"\boverloaded\b", re.IGNORECASE)


def auth_headers(api_key: str | None) -> dict[str, str]:
    """``Authorization: Bearer <key>``; no header at all when there is no key (local servers)."""
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def error_object(body: Any) -> dict[str, Any] | None:
    """The inner error object of an OpenAI-style error body, or None.

    Accepts ``{"error": {...}}``, ``{"error": "text"}`` and the flat ``{"message": ..., "type": ...}``
    some compatible servers send (only when the body is not a completion or a response object).
    """
    if not isinstance(body, dict):
        return None
    inner = body.get("error")
    if isinstance(inner, dict) and inner:
        return inner
    if isinstance(inner, str) and inner:
        return {"message": inner}
    if isinstance(body.get("message"), str) and "choices" not in body and "output" not in body:
        return body
    return None


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def describe_error(error: Mapping[str, Any]) -> str:
    """``message [type=…, code=…, param=…]`` with only the fields present."""
    message = error.get("message")
    text = _text(message) if message is not None else "(no message)"
    extras = [f"{key}={_text(error[key])}" for key in ("type", "code", "param") if error.get(key) is not None]
    return f"{text} [{', '.join(extras)}]" if extras else text


def _is_schema_error(error: Mapping[str, Any]) -> bool:
    param = error.get("param")
    if isinstance(param, str) and param.startswith("tools"):
        return True
    if error.get("code") == "invalid_function_parameters":
        return True
    message = error.get("message")
    return isinstance(message, str) and bool(_SCHEMA_MESSAGE.search(message))


def _refine_server(code: ProviderErrorCode, error: Mapping[str, Any] | None) -> ProviderErrorCode:
    """``overloaded`` for a ``server`` error whose message says so, ``model_output_invalid`` for one
    whose message says the model's output could not be parsed, else ``code`` unchanged."""
    message = error.get("message") if error is not None else None
    if code == "server" and isinstance(message, str) and _OVERLOADED_MESSAGE.search(message):
        return "overloaded"
    return refine_model_caused(code, message)


def code_for_error(error: Mapping[str, Any], default: ProviderErrorCode = "server") -> ProviderErrorCode:
    """Canonical code of an error object that came without an HTTP status (by its code, then type)."""
    code = default
    for key in ("code", "type"):
        value = error.get(key)
        if isinstance(value, str) and value in ERROR_TYPE_CODES:
            code = ERROR_TYPE_CODES[value]
            break
    return _refine_server(code, error)


def _code_for_status(status: int, error: Mapping[str, Any] | None) -> ProviderErrorCode:
    if status == 400 and error is not None and _is_schema_error(error):
        return "schema_rejected"
    if status in STATUS_CODES:
        code = STATUS_CODES[status]
    elif 400 <= status < 500:
        code = "bad_request"
    elif status >= 500:
        code = "server"
    else:
        return "bad_response"
    detail = error.get("code") if error is not None else None
    if code == "bad_request" and isinstance(detail, str) and detail in ERROR_TYPE_CODES:
        return ERROR_TYPE_CODES[detail]
    return _refine_server(code, error)


def parse_error(status: int, body: Any, headers: Mapping[str, str] | None = None) -> ProviderErrorOutcome:
    """Map an HTTP error response of an OpenAI-style API to a canonical provider error (the body
    says everything; ``headers`` are not needed)."""
    decoded = decode_json_body(body)
    error = error_object(decoded)
    message = describe_error(error) if error is not None else unstructured_error_message(decoded, status)
    return ProviderErrorOutcome(
        code=_code_for_status(status, error), message=message[:MESSAGE_LIMIT], status=status
    )


def error_outcome(error: Mapping[str, Any], status: int | None = None) -> ProviderErrorOutcome:
    """A provider error from an error object found inside a 2xx body or a stream."""
    return ProviderErrorOutcome(
        code=code_for_error(error), message=describe_error(error)[:MESSAGE_LIMIT], status=status
    )


def retry_after_seconds(
    status: int, body: Any, headers: Mapping[str, str], now: datetime | None = None
) -> float | None:
    """The retry hint of ``retry-after-ms`` (first) or ``retry-after`` (seconds or an HTTP date);
    OpenAI's bodies carry none."""
    return retry_after_header(headers, now)
