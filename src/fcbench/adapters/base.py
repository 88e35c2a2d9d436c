"""The adapter protocol: one pure translator per wire dialect.

An adapter does no I/O. It turns one canonical request into the dialect's wire request
(:meth:`Adapter.build_request`), and the dialect's wire response, JSON or stream, back into one
canonical outcome with the anomalies it noticed (:meth:`Adapter.parse_response`,
:meth:`Adapter.parse_stream`). It also knows the dialect's URL path, auth headers and error
bodies, so the transport stays dialect-neutral.

Everything else a dialect's wire knowledge holds belongs to its adapter too, as optional members
read with :func:`getattr`: ``read_request(body)``, reading a logged request of the dialect back into
canonical form (:mod:`fcbench.adapters.logged`), or ``unread_logs``, why its logs cannot be read;
and ``tool_list_format``, the dialect's way of writing a tool list, for tool import
(:mod:`fcbench.adapters.tool_lists`).

A dialect's tool-schema rules belong to its adapter (:attr:`Adapter.transform_schema`, built-ins in
``fcbench.adapters.<dialect>.schema`` on :mod:`fcbench.schema.transform`); :func:`wire_schema` is
what to call for any adapter, including one that brings no rules (its tools go out unchanged).
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import sys
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType
from typing import Any, Literal, NamedTuple, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from fcbench.adapters.logged import RequestReader
from fcbench.adapters.tool_lists import ToolListFormat
from fcbench.contract import (
    Anomaly,
    AssistantMessage,
    Message,
    Outcome,
    ProviderErrorOutcome,
    SchemaChange,
    Tool,
    ToolCall,
    ToolResultMessage,
    Usage,
)

ToolChoiceMode = Literal["auto", "required", "none"]

SchemaTransform = Callable[[Tool, bool], tuple[dict[str, Any], list[SchemaChange]]]
"""``(tool, strict) -> (parameters to send, changes made)``; must not modify ``tool.parameters``."""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolChoice(_Frozen):
    """Canonical tool choice: ``auto``, ``required`` (any tool), ``none``, or one named tool."""

    mode: Literal["auto", "required", "none", "named"] = "auto"
    name: str | None = None
    """The tool to force when ``mode`` is ``named``."""

    @classmethod
    def parse(cls, value: str | ToolChoice | None) -> ToolChoice:
        """Accept ``auto|required|none`` or ``tool:NAME`` (or an existing ToolChoice)."""
        if isinstance(value, ToolChoice):
            return value
        if value is None:
            return cls()
        if value.startswith("tool:"):
            return cls(mode="named", name=value[5:])
        return cls(mode=value)


class RequestOptions(_Frozen):
    """Per-request settings every dialect understands in its own way."""

    model: str
    temperature: float | None = 0.0
    max_tokens: int = 1024
    stream: bool = False
    parallel_tool_calls: bool | None = None
    """None leaves the provider default; False asks for at most one call where the dialect can."""
    strict: bool = False
    """Ask for strict (constrained) tool arguments where the dialect supports it."""
    seed: int | None = None
    previous_response_id: str | None = None
    """Stateful continuation: the provider's id of the previous turn (``ParsedTurn.response_id``).

    Set only for dialects whose :attr:`Capabilities.stateful_continuation` is true. The messages
    passed are still the whole conversation; the adapter sends the id plus only the messages after
    the last assistant turn, and the provider supplies the rest from its stored state.
    """


class CanonicalRequest(NamedTuple):
    """One canonical request, as :meth:`Adapter.build_request` is given it (a dialect's
    ``request.build_request`` takes it whole)."""

    system: str | None
    """The system prompt, if any."""
    messages: Sequence[Message]
    """The conversation so far."""
    tools: Sequence[Tool]
    """The tools offered."""
    tool_choice: ToolChoice
    """What the model may or must call."""
    options: RequestOptions
    """Model, sampling, streaming and the rest."""


class BuiltRequest(_Frozen):
    """A wire request ready for the transport, plus what the translation had to give up."""

    path: str
    """Path appended to the endpoint's base URL (e.g. ``/chat/completions``)."""
    body: dict[str, Any]
    stream: bool = False
    query: dict[str, str] = Field(default_factory=dict)
    """Extra query parameters (e.g. Gemini's ``alt=sse``)."""
    schema_changes: list[SchemaChange] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    """Semantics that could not be mapped exactly (e.g. a tool_choice the dialect lacks)."""


class ParsedTurn(BaseModel):
    """The canonical reading of one wire response."""

    model_config = ConfigDict(extra="forbid")

    outcome: Outcome
    anomalies: list[Anomaly] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str | None = None
    """The provider's finish/stop reason, verbatim."""
    assistant: AssistantMessage | None = None
    """The turn as a canonical history message (with any opaque state to replay), when not an error."""
    response_id: str | None = None


class Capabilities(_Frozen):
    """What a dialect can express on the wire."""

    tool_choice: dict[str, str]
    """Canonical mode -> how it maps (``exact``, or a note on the approximation or absence)."""
    parallel_control: bool
    """The request can disable parallel calls."""
    strict_mode: bool
    streaming: bool = True
    stream_framing: Literal["sse", "aws-eventstream"] = "sse"
    """How a streamed response is framed on the wire: server-sent events (``text/event-stream``),
    or AWS event-stream binary messages (``application/vnd.amazon.eventstream``, decoded by
    :mod:`fcbench.adapters.eventstream`). Either way ``parse_stream`` gets ``(event, data)`` pairs."""
    stateful_continuation: bool = False
    """The provider can continue a stored conversation by id (:attr:`RequestOptions.previous_response_id`)."""


def tool_choices(**approximations: str) -> dict[str, str]:
    """:attr:`Capabilities.tool_choice` for a dialect that maps every mode ``exact`` but those
    named (``named="exact; finish_reason is 'stop'"``)."""
    return {mode: approximations.get(mode, "exact") for mode in ("auto", "required", "named", "none")}


@runtime_checkable
class Adapter(Protocol):
    """The interface every dialect adapter implements (pure functions, no I/O)."""

    dialect: str
    capabilities: Capabilities

    @property
    def transform_schema(self) -> SchemaTransform | None:
        """The dialect's tool-schema rules: ``transform_schema(tool, strict) -> (parameters, changes)``.

        Implement it as a method, or set it to ``None`` (an adapter written before this member
        existed may leave it out) to send every tool's canonical schema unchanged; either way
        call it through :func:`wire_schema`.
        """
        ...

    def build_request(
        self,
        system: str | None,
        messages: Sequence[Message],
        tools: Sequence[Tool],
        tool_choice: ToolChoice,
        options: RequestOptions,
    ) -> BuiltRequest:
        """Translate a canonical request into the dialect's wire request."""
        ...

    def parse_response(self, body: Any, offered_tools: Sequence[str] | None = None) -> ParsedTurn:
        """Translate one non-streamed wire response (decoded JSON) into a canonical turn."""
        ...

    def parse_stream(
        self, events: Iterable[tuple[str | None, str]], offered_tools: Sequence[str] | None = None
    ) -> ParsedTurn:
        """Assemble a stream of ``(event_name, data)`` pairs, as they came off the wire, into a turn."""
        ...

    def tool_result_messages(
        self, calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
    ) -> list[dict[str, Any]]:
        """The dialect's wire message(s) carrying ``results`` for ``calls``, matched by call id."""
        ...

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """Headers that authenticate a request (the transport redacts them from captures)."""
        ...

    def parse_error(self, status: int, body: Any, headers: dict[str, str]) -> ProviderErrorOutcome:
        """Map an HTTP error response to a canonical provider error."""
        ...

    def retry_after_seconds(self, status: int, body: Any, headers: dict[str, str]) -> float | None:
        """The provider's retry hint (header or body), in seconds, if any."""
        ...


PACKAGE_MODULES = ("request", "schema", "response", "stream", "errors", "logged", "tool_list")
"""The modules of a dialect package (``adapters/<dialect>/``) a :class:`PackageAdapter` is made of;
``logged`` and ``tool_list`` may be absent."""


class PackageAdapter:
    """An adapter made of its dialect package's modules (``adapters/<dialect>/``): each method calls
    the function of the same name in :attr:`request`, :attr:`schema`, :attr:`response`,
    :attr:`stream`, :attr:`errors` or :attr:`logged`.

    A built-in dialect subclasses it in its package's ``__init__`` with its ``dialect`` and
    ``capabilities``; every module of :data:`PACKAGE_MODULES` the class does not name is taken
    from the package itself. It overrides a method only where its dialect needs more. Stateless:
    one instance serves every request.
    """

    dialect: str
    capabilities: Capabilities
    request: ModuleType
    """``build_request(canonical)`` (a :class:`CanonicalRequest`) and
    ``tool_result_messages(calls, results)``."""
    schema: ModuleType
    """``transform_schema(tool, strict)``: the dialect's tool-schema rules."""
    response: ModuleType
    """``parse_response(body, offered_tools)``."""
    stream: ModuleType
    """``parse_stream(events, offered_tools)``."""
    errors: ModuleType
    """``auth_headers(api_key)``, ``parse_error(status, body, headers)`` and
    ``retry_after_seconds(status, body, headers)``."""
    logged: ModuleType | None = None
    """``read_request(body)``: a logged request of the dialect in canonical form (None: not read)."""
    tool_list: ModuleType | None = None
    """``FORMAT``: how the dialect writes a tool list, for tool import (None: it has no such format)."""
    unread_logs: str | None = None
    """Why logged requests of this dialect cannot be read back, when :attr:`logged` is None."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        package = cls.__module__
        if not hasattr(sys.modules.get(package), "__path__"):
            return
        for name in PACKAGE_MODULES:
            wanted = f"{package}.{name}"
            if getattr(cls, name, None) is None and importlib.util.find_spec(wanted) is not None:
                setattr(cls, name, importlib.import_module(wanted))

    @property
    def read_request(self) -> RequestReader | None:
        """Read one decoded logged request body of the dialect (None when the dialect has no reader)."""
        reader: RequestReader | None = None if self.logged is None else self.logged.read_request
        return reader

    @property
    def tool_list_format(self) -> ToolListFormat | None:
        """The dialect's way of writing a tool list (None when it has none)."""
        found: ToolListFormat | None = None if self.tool_list is None else self.tool_list.FORMAT
        return found

    def build_request(
        self,
        system: str | None,
        messages: Sequence[Message],
        tools: Sequence[Tool],
        tool_choice: ToolChoice,
        options: RequestOptions,
    ) -> BuiltRequest:
        """Translate a canonical request into the dialect's wire request."""
        canonical = CanonicalRequest(system, messages, tools, tool_choice, options)
        built: BuiltRequest = self.request.build_request(canonical)
        return built

    def transform_schema(self, tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
        """The parameters schema the dialect sends for ``tool``, and every change its rules made."""
        sent: tuple[dict[str, Any], list[SchemaChange]] = self.schema.transform_schema(tool, strict)
        return sent

    def parse_response(self, body: Any, offered_tools: Sequence[str] | None = None) -> ParsedTurn:
        """Read one non-streamed body into a canonical turn."""
        turn: ParsedTurn = self.response.parse_response(body, offered_tools)
        return turn

    def parse_stream(
        self, events: Iterable[tuple[str | None, str]], offered_tools: Sequence[str] | None = None
    ) -> ParsedTurn:
        """Assemble a stream of ``(event_name, data)`` pairs into a canonical turn."""
        turn: ParsedTurn = self.stream.parse_stream(events, offered_tools)
        return turn

    def tool_result_messages(
        self, calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
    ) -> list[dict[str, Any]]:
        """The wire message(s) carrying ``results`` for ``calls``, matched by call id."""
        wire: list[dict[str, Any]] = self.request.tool_result_messages(calls, results)
        return wire

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """Headers that authenticate a request."""
        headers: dict[str, str] = self.errors.auth_headers(api_key)
        return headers

    def parse_error(self, status: int, body: Any, headers: dict[str, str]) -> ProviderErrorOutcome:
        """Map an HTTP error response to a canonical provider error."""
        outcome: ProviderErrorOutcome = self.errors.parse_error(status, body, headers)
        return outcome

    def retry_after_seconds(self, status: int, body: Any, headers: dict[str, str]) -> float | None:
        """The provider's retry hint, in seconds, if any."""
        hint: float | None = self.errors.retry_after_seconds(status, body, headers)
        return hint


def wire_schema(adapter: object, tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
    """The parameters schema ``adapter`` sends for ``tool``, and every change its rules made.

    Uses the adapter's :attr:`~Adapter.transform_schema`; an adapter without one (``None`` or
    absent) gets a copy of the canonical schema and no changes.
    """
    transform: SchemaTransform | None = getattr(adapter, "transform_schema", None)
    if transform is None:
        return copy.deepcopy(tool.parameters), []
    return transform(tool, strict)
