"""The result envelope every fake tool returns, and its error codes.

Success::

    {"ok": true, "result": {...},
     "evidence": {"source": "fake:lookup_order", "retrieved_at": "2026-01-05T09:30:00.123Z"}}

``evidence`` (:func:`with_evidence`) says where the result came from and when (RFC 3339, UTC):
every success a fake tool executes carries it (:class:`~fcbench.fake_tools.toolbox.FakeToolbox`
adds it; a replay from the idempotency table carries the first execution's evidence).

Failure::

    {"ok": false, "error": {"code": "NOT_FOUND", "message": "...", "details": [...], "retryable": false}}

A result larger than the conversation's ``max_result_bytes`` (of canonical JSON) is sent as a
truncation envelope instead (:func:`truncated`)::

    {"ok": true, "truncated": true, "original_bytes": 40213, "max_result_bytes": 16384,
     "partial": "{\"evidence\":...", "evidence": {...}}

The envelope is plain JSON (it is sent back to the model as the tool result). ``retryable`` tells
the model whether the same call may succeed later unchanged; ``TEMPORARILY_UNAVAILABLE`` is, and
so is a call the harness did not execute because of ``max_calls_per_turn`` (``LIMIT_EXCEEDED``,
:func:`limit_exceeded`: the same call in a later turn is executed).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal, get_args

from fcbench.contract import canonical_json

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
"""Every error code the fake tools answer with, in a stable order."""

LIMIT_EXCEEDED = "LIMIT_EXCEEDED"
"""The error code of a call the conversation loop did not execute because its turn made more calls
than the scenario's ``max_calls_per_turn`` (:func:`limit_exceeded`; retryable: the same call in a
later turn is executed). Never answered by a fake tool, so not in :data:`ERROR_CODES`."""

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


def utc_now() -> str:
    """The current UTC time as an RFC 3339 timestamp with milliseconds (``2026-01-05T09:30:00.123Z``)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def with_evidence(envelope: dict[str, Any], source: str, retrieved_at: str) -> dict[str, Any]:
    """``envelope`` with ``evidence: {source, retrieved_at}`` when it is a success; a failure
    (nothing was retrieved) or an envelope that already carries evidence is returned unchanged."""
    if not is_ok(envelope) or "evidence" in envelope:
        return envelope
    return envelope | {"evidence": {"source": source, "retrieved_at": retrieved_at}}


def limit_exceeded(made: int, limit: int) -> dict[str, Any]:
    """The result of a call not executed because its turn made ``made`` calls, over ``limit``."""
    message = (
        f"This turn made {made} tool calls; at most {limit} are executed per turn, and this call was "
        "not executed. Make it again in a later turn if it is still needed."
    )
    return failure(LIMIT_EXCEEDED, message, [f"max_calls_per_turn: {limit}"], retryable=True)


def lost_result_timeout(tool: str) -> dict[str, Any]:
    """The result a model gets for a write whose real result was lost after it committed (tool
    fault ``lost_result``): a timeout that says nothing of whether the write happened, as a
    gateway's would."""
    message = f"The call to {tool} timed out: no answer came back from the service in time."
    return failure("TEMPORARILY_UNAVAILABLE", message, ["timeout_ms: 30000"], retryable=True)


def result_bytes(envelope: Any) -> int:
    """The size of ``envelope`` as sent: bytes of its canonical JSON (UTF-8)."""
    return len(canonical_json(envelope).encode("utf-8"))


def truncated(envelope: dict[str, Any], max_bytes: int) -> dict[str, Any] | None:
    """The truncation envelope sent instead of ``envelope`` when its canonical JSON is larger than
    ``max_bytes``, else None.

    It keeps ``ok``, the error's code and ``retryable`` (a failure), the ``evidence``, says
    ``truncated: true`` with the ``original_bytes`` and the ``max_result_bytes``, and carries as
    ``partial`` a prefix of the original's canonical JSON (cut at a character boundary), as
    long as the whole envelope stays within ``max_bytes``.
    """
    size = result_bytes(envelope)
    if size <= max_bytes:
        return None
    text = canonical_json(envelope)
    shell: dict[str, Any] = {"ok": envelope.get("ok") is True, "truncated": True}
    if not is_ok(envelope):
        shell["error"] = {
            "code": error_code(envelope),
            "message": "The result was too large and was cut; see partial.",
            "details": [],
            "retryable": is_retryable(envelope),
        }
    shell |= {"original_bytes": size, "max_result_bytes": max_bytes}
    if isinstance(envelope.get("evidence"), dict):
        shell["evidence"] = envelope["evidence"]
    keep = max(0, max_bytes - result_bytes(shell | {"partial": ""}))
    while True:
        cut = shell | {"partial": text[:keep]}
        over = result_bytes(cut) - max_bytes
        if over <= 0 or keep == 0:
            return cut
        keep = max(0, keep - max(1, over // 6))  # escapes may take up to six bytes per character


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
