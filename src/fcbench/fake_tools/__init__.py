"""Deterministic fake tools for the recovery suite.

The model's calls are executed here, never against a real system: every built-in tool has a fake
(:data:`REGISTRY`) over a small fixed data set of orders and shipping zones. Each conversation
gets its own :class:`FakeStore`; a :class:`FakeToolbox` validates each call against the offered
schema, runs it, and returns a result envelope (``{"ok": true, "result": ...}`` or
``{"ok": false, "error": {"code", "message", "details", "retryable"}}``); a success carries
``evidence`` (``{"source", "retrieved_at"}``: which fake answered, and when). Write calls are
idempotent by :func:`idempotency_key`, and the store counts every side effect. A suite's
scripted fakes (``fakes.json``) become fake tools layered over :data:`REGISTRY`
(:func:`scripted_registry`).
"""

from __future__ import annotations

from fcbench.fake_tools.results import (
    ERROR_CODES,
    LIMIT_EXCEEDED,
    RETRYABLE_CODES,
    ErrorCode,
    ToolFailure,
    error_code,
    fail,
    failure,
    is_ok,
    is_retryable,
    limit_exceeded,
    lost_result_timeout,
    ok,
    result_bytes,
    truncated,
    utc_now,
    with_evidence,
)
from fcbench.fake_tools.scripted import scripted_registry
from fcbench.fake_tools.store import CallContext, FakeStore, SideEffect, load_dataset
from fcbench.fake_tools.toolbox import (
    REGISTRY,
    Execution,
    FakeTool,
    FakeToolbox,
    Implementation,
    idempotency_key,
)

__all__ = [
    "ERROR_CODES",
    "LIMIT_EXCEEDED",
    "REGISTRY",
    "RETRYABLE_CODES",
    "CallContext",
    "ErrorCode",
    "Execution",
    "FakeStore",
    "FakeTool",
    "FakeToolbox",
    "Implementation",
    "SideEffect",
    "ToolFailure",
    "error_code",
    "fail",
    "failure",
    "idempotency_key",
    "is_ok",
    "is_retryable",
    "limit_exceeded",
    "load_dataset",
    "lost_result_timeout",
    "ok",
    "result_bytes",
    "scripted_registry",
    "truncated",
    "utc_now",
    "with_evidence",
]
