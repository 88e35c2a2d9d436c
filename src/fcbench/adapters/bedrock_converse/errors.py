"""Bedrock Runtime error responses, in-stream exceptions, auth headers and retry hints.

An HTTP error names its type in the ``x-amzn-ErrorType`` header
(``ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/``; only the part
before ``:`` counts) with a body ``{"message": "..."}`` (``Message`` on some gateways; a
``__type`` in the body is read when the header is missing). A stream reports the same errors as
exception frames, named ``exception:<type>`` by the transport with the type spelt
``throttlingException`` (lower camel case); both spellings are one type here. The type decides
the canonical code when it is known, otherwise the HTTP status does:

========================================  ===========  ==================
error type                                HTTP status  canonical code
========================================  ===========  ==================
``ValidationException`` about tools       400          ``schema_rejected``
(``toolConfig``, ``toolSpec``,
``inputSchema``, "JSON schema")
``ValidationException``                   400, 4xx     ``bad_request``
``AccessDeniedException``,                403, 401     ``auth``
``UnrecognizedClientException``,
``MissingAuthenticationTokenException``,
``ExpiredTokenException``,
``InvalidSignatureException``
``ResourceNotFoundException``             404          ``not_found``
``ModelTimeoutException``                 408, 504     ``timeout``
``ModelErrorException``,                  424          ``server``
``ModelStreamErrorException``
``ThrottlingException``,                  429          ``rate_limited``
``ServiceQuotaExceededException``
``ModelNotReadyException``                429          ``overloaded``
``InternalServerException``               500, 5xx     ``server``
``ServiceUnavailableException``           503          ``overloaded``
========================================  ===========  ==================

Bedrock sends no retry hint of its own; a ``retry-after`` header (a gateway's) is honoured.
Auth is a Bedrock API key as ``Authorization: Bearer <key>`` (SigV4 signing is not done here).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from fcbench.adapters import common
from fcbench.contract import ProviderErrorCode, ProviderErrorOutcome

ERROR_TYPE_HEADER = "x-amzn-errortype"
"""The response header naming the error type (lower case, as the transport passes headers)."""

ERROR_TYPES: dict[str, ProviderErrorCode] = {
    "ValidationException": "bad_request",
    "AccessDeniedException": "auth",
    "UnrecognizedClientException": "auth",
    "MissingAuthenticationTokenException": "auth",
    "ExpiredTokenException": "auth",
    "InvalidSignatureException": "auth",
    "ResourceNotFoundException": "not_found",
    "ModelTimeoutException": "timeout",
    "ModelErrorException": "server",
    "ModelStreamErrorException": "server",
    "ThrottlingException": "rate_limited",
    "ServiceQuotaExceededException": "rate_limited",
    "ModelNotReadyException": "overloaded",
    "InternalServerException": "server",
    "ServiceUnavailableException": "overloaded",
}
"""Error type (upper camel case) -> canonical code."""

STATUS_CODES: dict[int, ProviderErrorCode] = {**common.HTTP_STATUS_CODES, 424: "server"}
"""HTTP status -> canonical code, used when no known error type is named."""

MESSAGE_LIMIT = common.ERROR_MESSAGE_LIMIT
"""Longest error text kept in a message."""

_SCHEMA_MESSAGE = re.compile(r"toolConfig|toolSpec|inputSchema|input_schema|json schema", re.IGNORECASE)


def auth_headers(api_key: str | None) -> dict[str, str]:
    """``Authorization: Bearer <key>`` (a Bedrock API key); nothing when there is no key."""
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def error_type(name: Any) -> str | None:
    """The upper-camel-case error type of a header, body or exception-frame name, or None."""
    if not isinstance(name, str):
        return None
    base = name.split(":", 1)[0].rsplit("#", 1)[-1].strip()
    return base[:1].upper() + base[1:] if base else None


def _message(body: Any) -> str | None:
    if isinstance(body, dict):
        for key in ("message", "Message"):
            if isinstance(body.get(key), str):
                text: str = body[key]
                return text
    return None


def error_outcome(kind: str | None, body: Any, status: int | None = None) -> ProviderErrorOutcome:
    """A provider error for error type ``kind`` (None when unnamed) with body ``body``."""
    message = _message(body)
    code: ProviderErrorCode | None = ERROR_TYPES.get(kind) if kind is not None else None
    if code is None and status is not None:
        code = common.status_code(STATUS_CODES, status)
    code = code or "server"
    if code == "bad_request" and message is not None and _SCHEMA_MESSAGE.search(message):
        code = "schema_rejected"
    if message is None:
        text = common.unstructured_error_message(body, status)
    else:
        text = f"{message} [type={kind}]" if kind else message
    return ProviderErrorOutcome(code=code, message=text[:MESSAGE_LIMIT], status=status)


def parse_error(status: int, body: Any, headers: Mapping[str, str]) -> ProviderErrorOutcome:
    """Map an HTTP error response to a canonical provider error (never raises)."""
    decoded = common.decode_json_body(body)
    lower = {k.lower(): v for k, v in headers.items()}
    kind = error_type(lower.get(ERROR_TYPE_HEADER))
    if kind is None and isinstance(decoded, dict):
        kind = error_type(decoded.get("__type"))
    return error_outcome(kind, decoded, status)


def exception_outcome(kind: str, data: str) -> ProviderErrorOutcome:
    """A provider error for an in-stream exception (or error) frame of type ``kind`` carrying ``data``."""
    try:
        body: Any = json.loads(data)
    except (ValueError, RecursionError):
        body = data
    return error_outcome(error_type(kind), body)


def retry_after_seconds(status: int, body: Any, headers: Mapping[str, str]) -> float | None:
    """A ``retry-after-ms``/``retry-after`` header, in seconds (Bedrock itself sends none)."""
    return common.retry_after_header(headers)
