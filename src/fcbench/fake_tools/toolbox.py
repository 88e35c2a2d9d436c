"""The fake tools' registry and the executor that runs one model call against them.

:data:`REGISTRY` maps a tool name to its implementation. :class:`FakeToolbox` executes one call
the way a careful application would:

1. a tool that was not offered is ``UNKNOWN_TOOL``; one without a fake is ``NOT_IMPLEMENTED``;
2. the arguments, exactly as produced, are validated against the offered tool's schema
   (no coercion, no defaults); any violation is ``INVALID_ARGUMENTS`` with one detail per error;
3. a write call (the offered tool says ``side_effect: write``: :meth:`FakeToolbox.writes`) is
   looked up by its idempotency key (:func:`idempotency_key`): a replay returns the first result
   and never makes a second side effect;
4. the implementation runs against the conversation's :class:`FakeStore`, and a success it
   returns gets its ``evidence`` (:func:`~fcbench.fake_tools.results.with_evidence`): the fake's
   :attr:`FakeTool.source` and the time of the execution (the toolbox's ``clock``, UTC).

The registry a toolbox uses is :data:`REGISTRY` unless it is given another: a suite's scripted
fakes (:func:`fcbench.fake_tools.scripted.scripted_registry`) are layered over it, so scripted
and built-in fakes go through this one path. Every call of an offered tool with a fake gets its
number (the Nth call of that tool in the conversation, :meth:`FakeStore.call_number`) before its
arguments are checked, so an invalid call counts too and a redelivered call keeps its number.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from fcbench.contract import Tool, ToolCall, canonical_json
from fcbench.fake_tools import orders, shipping
from fcbench.fake_tools.results import ToolFailure, fail, is_ok, is_retryable, utc_now, with_evidence
from fcbench.fake_tools.store import CallContext, FakeStore
from fcbench.schema.validate import ValidatorCache

Implementation = Callable[[FakeStore, dict[str, Any], CallContext], dict[str, Any]]
"""A fake tool: (store, validated arguments, call context) -> result envelope."""


@dataclass(frozen=True)
class FakeTool:
    """One fake tool implementation."""

    name: str
    """The tool name the fake answers for."""
    run: Implementation
    """The implementation."""
    latency_ms: float = 0.0
    """How long the tool takes to answer; the caller waits this long (a real wait) after running it."""
    evidence_source: str | None = None
    """The ``evidence.source`` of its success results (None: :attr:`source`'s default)."""

    @property
    def source(self) -> str:
        """The ``evidence.source`` of its success results: ``evidence_source``, else ``fake:<name>``."""
        return self.evidence_source or f"fake:{self.name}"


REGISTRY: Mapping[str, FakeTool] = MappingProxyType(
    {
        tool.name: tool
        for tool in (
            FakeTool("lookup_order", orders.lookup_order),
            FakeTool("search_orders", orders.search_orders),
            FakeTool("get_shipping_quote", shipping.get_shipping_quote),
            FakeTool("query_order", orders.query_order),
            FakeTool("cancel_order", orders.cancel_order),
            FakeTool("create_refund", orders.create_refund),
        )
    }
)
"""Tool name -> fake implementation, for every built-in tool.

Whether a tool writes is not the fake's to say: it is the offered tool's ``side_effect`` (the
built-in suites declare ``write`` on ``cancel_order`` and ``create_refund``, the two fakes that
change the store), the one source the grader reads too."""


def idempotency_key(conversation_id: str, call_id: str, tool: str, arguments: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of the conversation id, call id, tool name and arguments."""
    material = canonical_json(
        {"conversation": conversation_id, "call": call_id, "tool": tool, "arguments": arguments}
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Execution:
    """What executing one call produced."""

    call_id: str
    """The id the result answers (the provider's id, or the synthetic one the caller supplied)."""
    tool: str
    content: dict[str, Any]
    """The result envelope sent back to the model."""
    side_effect: bool = False
    """True when this call changed the store."""
    replayed: bool = False
    """True when the result came from the idempotency table (no execution)."""
    key: str | None = None
    """Idempotency key (write tools only)."""
    latency_ms: float = 0.0
    """How long the caller waits before taking the result (the fake's latency; 0 when the tool did
    not run: a replay, an unknown tool, invalid arguments)."""

    @property
    def ok(self) -> bool:
        """True for a success envelope."""
        return is_ok(self.content)


class FakeToolbox:
    """Executes calls against the fake tools for one conversation."""

    def __init__(
        self,
        tools: Sequence[Tool],
        store: FakeStore,
        *,
        conversation_id: str,
        validators: ValidatorCache | None = None,
        registry: Mapping[str, FakeTool] = REGISTRY,
        clock: Callable[[], str] = utc_now,
    ) -> None:
        self.offered = {tool.name: tool for tool in tools}
        self.clock = clock
        """The ``evidence.retrieved_at`` of an execution (an RFC 3339 UTC timestamp)."""
        self.store = store
        self.conversation_id = conversation_id
        self.validators = validators or ValidatorCache()
        self.registry = registry

    def writes(self, name: str) -> bool:
        """True when the offered tool ``name`` says ``side_effect: write`` (its calls are then
        idempotent by key). The one source of write-ness, as for the grader
        (:func:`fcbench.grading.writes.write_tools`): a fake of that name does not make a tool
        offered as ``read`` a write."""
        tool = self.offered.get(name)
        return tool is not None and tool.writes

    def execute(self, call: ToolCall, call_id: str | None = None) -> Execution:
        """Execute ``call``; ``call_id`` overrides ``call.id`` (for calls the provider sent without one)."""
        answer_id = call_id or call.id or ""
        tool = self.offered.get(call.name)
        if tool is None:
            offered = ", ".join(sorted(self.offered))
            message = f"There is no tool named {call.name!r}. Available tools: {offered}."
            return Execution(answer_id, call.name, fail("UNKNOWN_TOOL", message, [f"name: {call.name!r}"]))
        fake = self.registry.get(call.name)
        if fake is None:
            message = (
                f"Tool {call.name!r} has no fake implementation; it cannot be executed in this benchmark."
            )
            return Execution(answer_id, call.name, fail("NOT_IMPLEMENTED", message))
        key = idempotency_key(self.conversation_id, answer_id, call.name, call.arguments)
        number = self.store.call_number(call.name, key)
        problems = self._argument_problems(tool, call)
        if problems:
            message = "The tool arguments did not match the schema."
            return Execution(answer_id, call.name, fail("INVALID_ARGUMENTS", message, problems))
        arguments: dict[str, Any] = call.arguments
        writes = self.writes(call.name)
        if writes and key in self.store.replays:
            self.store.replayed += 1
            return Execution(answer_id, call.name, self.store.replays[key], replayed=True, key=key)
        before = self.store.side_effect_count
        context = CallContext(
            conversation_id=self.conversation_id, call_id=answer_id, tool=call.name, key=key, number=number
        )
        try:
            content = fake.run(self.store, arguments, context)
        except ToolFailure as failure:
            content = failure.envelope
        content = with_evidence(content, fake.source, self.clock())
        if writes and not is_retryable(content):
            self.store.replays[key] = content
        changed = self.store.side_effect_count > before
        return Execution(
            answer_id,
            call.name,
            content,
            side_effect=changed,
            key=key if writes else None,
            latency_ms=fake.latency_ms,
        )

    def _argument_problems(self, tool: Tool, call: ToolCall) -> list[str]:
        if call.parse_error is not None:
            return [f"(root): the arguments are not valid JSON: {call.parse_error}"]
        if not isinstance(call.arguments, dict):
            return [f"(root): the arguments must be a JSON object, got {type(call.arguments).__name__}"]
        return self.validators.validate(tool.parameters, call.arguments).errors
