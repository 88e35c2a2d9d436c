"""Each adapter reads back what it builds: ``read_request(build_request(x))`` gives x again.

The reader (``read_request``, used by ``import logs`` and ``replay``) and the builder live in the
same adapter package; this checks they agree on every dialect that has a reader: the system
prompt, each message (text, calls with their arguments, tool results tied to their calls), the
tools and the tool choice survive the trip through the wire.
"""

from __future__ import annotations

import pytest

from fcbench.adapters import get, read_request, request_readers
from fcbench.adapters.base import BuiltRequest, RequestOptions, ToolChoice
from fcbench.adapters.logged import LoggedRequest
from fcbench.contract import (
    AssistantMessage,
    Message,
    Tool,
    ToolResultMessage,
    UserMessage,
    make_call,
)

SYSTEM = "You are the order desk of an online shop."
TOOLS = [
    Tool(
        name="lookup_order",
        description="Find an order by its id.",
        parameters={
            "type": "object",
            "properties": {"order_id": {"type": "string", "description": "Like ORD-104821."}},
            "required": ["order_id"],
        },
    ),
    Tool(
        name="cancel_order",
        description="Cancel an order.",
        parameters={
            "type": "object",
            "properties": {"order_id": {"type": "string"}, "reason": {"type": "string"}},
            "required": ["order_id"],
        },
        side_effect="write",
    ),
]
MESSAGES: list[Message] = [
    UserMessage(content="Where is order ORD-104821, and cancel ORD-2?"),
    AssistantMessage(
        content="Looking both up.",
        calls=[
            make_call("call_1", "lookup_order", {"order_id": "ORD-104821"}),
            make_call("call_2", "cancel_order", {"order_id": "ORD-2", "reason": "late"}),
        ],
    ),
    ToolResultMessage(call_id="call_1", name="lookup_order", content="shipped"),
    ToolResultMessage(call_id="call_2", name="cancel_order", content="not allowed", is_error=True),
    UserMessage(content="Thanks. Why not?"),
]


def _shape(messages: list[Message], error_flag: bool = True) -> list[tuple[object, ...]]:
    """What a conversation says, without what a wire may spell its own way (raw argument text);
    without ``error_flag``, as a wire without an error flag on tool results carries it."""
    shaped: list[tuple[object, ...]] = []
    for m in messages:
        if isinstance(m, AssistantMessage):
            shaped.append(("assistant", m.content, [(c.id, c.name, c.arguments) for c in m.calls]))
        elif isinstance(m, ToolResultMessage):
            shaped.append(("tool", m.call_id, m.name, m.content, m.is_error and error_flag))
        else:
            shaped.append((m.role, m.content))
    return shaped


def _round_trip(dialect: str, choice: str) -> tuple[BuiltRequest, LoggedRequest]:
    built = get(dialect).build_request(
        SYSTEM, MESSAGES, TOOLS, ToolChoice.parse(choice), RequestOptions(model="m-1")
    )
    return built, read_request(dialect, built.body)


@pytest.mark.parametrize("dialect", sorted(request_readers()))
def test_a_built_request_reads_back_as_the_request_it_was_built_from(dialect: str) -> None:
    built, read = _round_trip(dialect, "auto")
    assert read.system == SYSTEM
    # a dialect without an error flag on tool results says so in a note when it drops one
    error_flag = not any("is_error" in note for note in built.notes)
    assert _shape(read.messages) == _shape(MESSAGES, error_flag)
    assert [(t.name, t.description, t.parameters) for t in read.tools] == [
        (t.name, t.description, t.parameters) for t in TOOLS
    ]
    assert read.notes == []


@pytest.mark.parametrize("dialect", sorted(request_readers()))
@pytest.mark.parametrize("choice", ["required", "tool:cancel_order"])
def test_the_tool_choice_reads_back(dialect: str, choice: str) -> None:
    assert _round_trip(dialect, choice)[1].tool_choice == choice
