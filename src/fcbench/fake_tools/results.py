"""The result envelope every fake tool returns, and its error codes.

Success::

    {"ok": true, "result": {...}}

Failure::

    {"ok": false, "error": {"code": "NOT_FOUND", "message": "...", "details": [...], "retryable": false}}

The envelope is plain JSON (it is sent back to the model as the tool result). ``retryable`` tells
the model whether the same call may succeed later unchanged; only ``TEMPORARILY_UNAVAILABLE`` is.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

ErrorCode = Literal[
    "INVALID_ARGUMENTS",
    "NOT_FOUND",
    "CONFLICT",
    "TEMPORARILY_UNAVAILABLE",
    "PERMISSION_DENIED",
    "UNKNOWN_TOOL",
    "NOT_IMPLEMENTED",
]
"""Why a fake tool failed.

* ``INVALID_ARGUMENTS``: the arguments break the tool's schema or a value rule (``details`` lists each);
* ``NOT_FOUND``: the order, customer or destination does not exist;
* ``CONFLICT``: the action is not allowed in the object's current state (refund of an unpaid order);
* ``TEMPORARILY_UNAVAILABLE``: a transient failure; the same call may succeed when retried;
* ``PERMISSION_DENIED``: the action is not allowed for this object at all (an order on hold);
* ``UNKNOWN_TOOL``: the model called a tool that was not offered;
* ``NOT_IMPLEMENTED``: the tool was offered but has no fake implementation (a harness gap).
"""

ERROR_CODES: tuple[str, ...] = get_args(ErrorCode)
"""Every error code, in a stable order."""

RETRYABLE_CODES: frozenset[str] = frozenset({"TEMPORARILY_UNAVAILABLE"})
"""Codes whose call may succeed when repeated unchanged."""


def ok(result: dict[str, Any]) -> dict[str, Any]:
    """A success envelope around ``result``."""
    return {"ok": True, "result": result}


def fail(code: ErrorCode, message: str, details: list[Any] | None = None) -> dict[str, Any]:
    """A failure envelope; ``details`` defaults to an empty list."""
    return failure(code, message, details)


def failure(
    code: str, message: str, details: list[Any] | None = None, *, retryable: bool | None = None
) -> dict[str, Any]:
    """A failure envelope with any error code (a suite's scripted fakes name their own codes);
    ``retryable`` None: true only for the codes in :data:`RETRYABLE_CODES`."""
    return {
        "ok": False,
        "error": {
            "code": code,
            "message": message,
            "details": list(details or []),
            "retryable": code in RETRYABLE_CODES if retryable is None else retryable,
        },
    }


class ToolFailure(Exception):
    """Raised inside a fake tool to return a failure envelope from wherever the rule is checked."""

    def __init__(self, envelope: dict[str, Any]) -> None:
        super().__init__(envelope.get("error", {}).get("message", "tool failure"))
        self.envelope = envelope


def is_ok(envelope: Any) -> bool:
    """True when ``envelope`` is a success envelope."""
    return isinstance(envelope, dict) and envelope.get("ok") is True


def error_code(envelope: Any) -> str | None:
    """The error code of a failure envelope; None for a success or anything that is not an envelope."""
    if not isinstance(envelope, dict) or envelope.get("ok") is not False:
        return None
    error = envelope.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, str) else "UNKNOWN"


def is_retryable(envelope: Any) -> bool:
    """True for a failure the same call may get past by retrying (a transient error): the
    envelope's ``retryable`` when it is a boolean, else whether its code is in :data:`RETRYABLE_CODES`."""
    code = error_code(envelope)
    if code is None:
        return False
    flagged = envelope.get("error", {}).get("retryable") if isinstance(envelope.get("error"), dict) else None
    return flagged if isinstance(flagged, bool) else code in RETRYABLE_CODES
