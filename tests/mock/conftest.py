"""Fixtures of the mock-provider tests.

``inspector`` is a server with two test models. ``sim-echo`` answers with a JSON summary of
the decoded request. ``sim-inspector`` reports what it was given: with
no tool result in the conversation it calls the first offered tool with ``{"city": "Paris"}``;
after a tool result it answers with a JSON text describing the decoded tool turn, so a test can
check that every dialect's result message reached the model intact.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from fcbench.mock.server import MockServer
from fcbench.mock.sim.base import SimCall, SimReply, SimRequest

WEATHER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


class InspectorModel:
    """Test model: calls the first tool, then describes the tool result it received."""

    name = "sim-inspector"

    def respond(self, request: SimRequest) -> SimReply:
        """Call the first tool, or describe the decoded tool turns after a result."""
        tool_turns = [turn for turn in request.turns if turn.role == "tool"]
        if tool_turns:
            seen = [
                {"call_id": t.call_id, "tool_name": t.tool_name, "result": t.result, "is_error": t.is_error}
                for t in tool_turns
            ]
            return SimReply(
                kind="text", text=json.dumps({"tool_turns": seen, "occurrence": request.occurrence})
            )
        if request.tools and request.tool_choice != "none":
            return SimReply(kind="calls", calls=(SimCall(request.tools[0].name, '{"city": "Paris"}'),))
        return SimReply(kind="text", text=json.dumps(summarise(request)))


def summarise(request: SimRequest) -> dict[str, Any]:
    """What a model was shown, as JSON-able data."""
    return {
        "system": request.system,
        "turns": [turn.role for turn in request.turns],
        "tool_choice": request.tool_choice,
        "tools": {tool.name: tool.parameters for tool in request.tools},
        "parallel": request.parallel_allowed,
        "occurrence": request.occurrence,
    }


class EchoModel:
    """Test model: always answers with a JSON summary of the decoded request."""

    name = "sim-echo"

    def respond(self, request: SimRequest) -> SimReply:
        """Describe the request."""
        return SimReply(kind="text", text=json.dumps(summarise(request)))


@pytest.fixture(scope="session")
def inspector() -> Iterator[MockServer]:
    """A mock server with ``sim-inspector``, ``sim-echo`` and the built-in ``sim-scripted``."""
    with MockServer(models={"sim-inspector": InspectorModel(), "sim-echo": EchoModel()}) as server:
        yield server


@pytest.fixture
def weather_schema() -> dict[str, Any]:
    """A strict-compatible one-property tool schema."""
    return json.loads(json.dumps(WEATHER_SCHEMA))


@pytest.fixture
def scripted() -> Callable[..., dict[str, str]]:
    """Build the ``X-Fcbench-Sim-Reply`` header: ``scripted("calls", calls=[("name", "{...}")])``."""

    def build(kind: str, text: str = "", calls: list[tuple[str, str]] | None = None) -> dict[str, str]:
        reply: dict[str, Any] = {"kind": kind, "text": text}
        if calls is not None:
            reply["calls"] = [{"name": name, "arguments_json": args} for name, args in calls]
        return {"X-Fcbench-Sim-Reply": json.dumps(reply)}

    return build
