"""Scripted fake tools: per-tool behaviour declared as data in a suite (``fakes.json`` or ``fakes:``).

A suite may script how each of its tools answers in multi-turn modes, so recovery scenarios work
on a user's own tools with no Python::

    {"get_weather": {
        "responses": [
            {"when": {"city": "Paris"}, "result": {"temp_c": 12}},
            {"when": {"city": "Atlantis"}, "error": {"code": "NOT_FOUND", "message": "no such city"}}
        ],
        "default": {"result": {"temp_c": 20}},
        "fail_on_call": [{"call": 1, "error": {"code": "TEMPORARILY_UNAVAILABLE", "message": "busy"}}],
        "latency_ms": 50,
        "evidence_source": "weather-api"
    }}

A call is answered by the first of ``fail_on_call`` that names its position (the Nth call of the
tool in one conversation), else the first of ``responses`` whose ``when`` holds, else
``default``; a call nothing answers gets ``NOT_FOUND``. ``when`` holds when every key it names is
present in the arguments with an equal JSON value (``1`` and ``1.0`` are equal, ``true`` and
``1`` are not). Whether a tool writes comes from its ``side_effect`` in the tool list.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, RootModel, model_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScriptedError(_Strict):
    """A failure the fake tool answers with (the body of a failure envelope's ``error``)."""

    code: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$")
    """Error code, e.g. ``INVALID_ARGUMENTS``, ``NOT_FOUND``, ``CONFLICT``, ``TEMPORARILY_UNAVAILABLE``."""
    message: str = ""
    """What the model reads."""
    details: list[Any] = Field(default_factory=list)
    """Per-problem details (``"weight_grams: must be an integer"``)."""
    retryable: bool | None = None
    """Whether the same call may succeed later; null: true only for ``TEMPORARILY_UNAVAILABLE``."""


class ScriptedAnswer(_Strict):
    """One answer of a fake tool: a result or an error, exactly one of them."""

    result: Any = None
    """The value sent back inside a success envelope (``{"ok": true, "result": ...}``)."""
    error: ScriptedError | None = None
    """The failure sent back instead of a result."""

    @model_validator(mode="before")
    @classmethod
    def _exactly_one(cls, data: Any) -> Any:
        if isinstance(data, dict) and ("result" in data) == ("error" in data):
            raise ValueError("give exactly one of 'result' and 'error'")
        return data


class ScriptedResponse(ScriptedAnswer):
    """An answer given when the call's arguments match ``when``."""

    when: dict[str, Any] = Field(default_factory=dict)
    """Argument values that must all be present and equal (an empty object matches every call)."""


class InjectedFailure(_Strict):
    """An error answered on the Nth call of the tool in one conversation, whatever its arguments."""

    call: int = Field(ge=1)
    """Which call of the tool (1 = the first) fails."""
    error: ScriptedError
    """The failure sent back."""


class ToolScript(_Strict):
    """How one fake tool answers."""

    responses: list[ScriptedResponse] = Field(default_factory=list)
    """Answers by argument match, tried in order."""
    default: ScriptedAnswer | None = None
    """The answer when no response matches (absent: a ``NOT_FOUND`` error)."""
    fail_on_call: list[InjectedFailure] = Field(default_factory=list)
    """Errors injected on given calls, checked before ``responses``."""
    latency_ms: float = Field(default=0.0, ge=0.0, le=60_000.0)
    """How long the tool takes to answer (a real wait in the conversation)."""
    evidence_source: str | None = Field(default=None, min_length=1, max_length=200)
    """The ``evidence.source`` of its success results (absent: ``scripted:<tool name>``)."""


class FakeScripts(RootModel[dict[str, ToolScript]]):
    """A suite's scripted fake tools, by tool name."""

    root: dict[str, ToolScript] = Field(default_factory=dict)
    """Tool name -> its script."""


__all__ = [
    "FakeScripts",
    "InjectedFailure",
    "ScriptedAnswer",
    "ScriptedError",
    "ScriptedResponse",
    "ToolScript",
]
