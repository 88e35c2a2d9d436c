"""The interface between the mock's wire front-ends and its simulated models.

Each dialect module of the mock decodes a wire request into a :class:`SimRequest` (the mock's own
neutral form, independent of :mod:`fcbench.contract` and :mod:`fcbench.adapters`), asks the
simulated model named by the request for a :class:`SimReply`, and encodes the reply in its
dialect. Simulated models read only what a real model sees: system text, turns, offered tool
schemas and the tool choice. They never see the expected answer of any case.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol


@dataclass(frozen=True)
class SimTool:
    """A tool as offered in the request."""

    name: str
    description: str
    parameters: dict[str, Any]
    """The JSON Schema the request carried (after the dialect's own encoding is undone)."""


@dataclass(frozen=True)
class SimCall:
    """A call the simulated model makes (or made earlier in the history)."""

    name: str
    arguments_json: str
    """Argument text exactly as it will be put on the wire (may be invalid JSON on purpose)."""
    id: str | None = None
    """Call id; None for calls the model is making now (the wire module assigns ids)."""


@dataclass(frozen=True)
class SimTurn:
    """One turn of the conversation as the model sees it."""

    role: Literal["user", "assistant", "tool"]
    text: str = ""
    calls: tuple[SimCall, ...] = ()
    """Assistant turns: the calls made."""
    call_id: str | None = None
    """Tool turns: which call this result answers."""
    tool_name: str | None = None
    result: Any = None
    """Tool turns: the result value (decoded JSON when the wire carried JSON text)."""
    is_error: bool = False


@dataclass(frozen=True)
class SimRequest:
    """Everything a simulated model may read."""

    model: str
    system: str
    turns: tuple[SimTurn, ...]
    tools: tuple[SimTool, ...]
    tool_choice: str = "auto"
    """``auto``, ``required``, ``none`` or ``tool:NAME``."""
    parallel_allowed: bool = True
    occurrence: int = 0
    """How many identical requests the server saw before this one (seeds run-to-run variation)."""


@dataclass(frozen=True)
class SimReply:
    """What the simulated model decided."""

    kind: Literal["text", "calls", "refusal"]
    text: str = ""
    calls: tuple[SimCall, ...] = field(default_factory=tuple)


class SimModel(Protocol):
    """A rule-based simulated model."""

    name: str

    def respond(self, request: SimRequest) -> SimReply:
        """Decide the next turn from what a real model would see."""
        ...
