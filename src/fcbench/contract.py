"""The provider-neutral contract: tools, messages, tool calls, outcomes and usage.

Every adapter translates between these shapes and one wire dialect; the grader, the runner,
the records and the reports only ever see these shapes. They are public and versioned
(:data:`CONTRACT_VERSION`): they serialise to and from JSON without loss.

Shapes (see DESIGN.md):

* :class:`Tool` ``{"name", "description", "parameters", "side_effect"}``
* :class:`ToolCall` ``{"id", "name", "arguments", "raw_arguments", "parse_error"}``
* Outcome, one of :class:`ToolCallsOutcome`, :class:`TextOutcome`, :class:`RefusalOutcome`,
  :class:`ProviderErrorOutcome`, discriminated by ``kind``
* Message, one of :class:`SystemMessage`, :class:`UserMessage`, :class:`AssistantMessage`,
  :class:`ToolResultMessage`, discriminated by ``role``
* :class:`Usage` and :class:`Anomaly`
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

CONTRACT_VERSION = "1"

ProviderErrorCode = Literal[
    "schema_rejected",
    "auth",
    "rate_limited",
    "timeout",
    "server",
    "overloaded",
    "bad_response",
    "not_found",
    "bad_request",
    "harness",
]
"""Why a request produced no model output. Every one of these is coverage loss, never a model error."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Tool(_Model):
    """A tool offered to the model, in canonical form."""

    name: str
    """Tool (function) name, as the model must call it."""
    description: str = ""
    """Natural-language description shown to the model."""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    """JSON Schema (Draft 2020-12) of the arguments object."""
    side_effect: Literal["read", "write"] = "read"
    """``write`` tools change state; the runner only ever executes them against fake tools."""


class ToolCall(_Model):
    """One call a model proposed, exactly as produced (normalised, never repaired)."""

    id: str | None = None
    """The provider's call id (``call_…``, ``toolu_…``, Gemini's optional id); null when absent."""
    name: str
    """The tool name the model asked for (may name a tool that was never offered)."""
    arguments: Any = None
    """Arguments parsed from JSON exactly as produced (any JSON type), or null when unparseable."""
    raw_arguments: str | None = None
    """The argument text as it came off the wire (JSON text of the object for object-native dialects)."""
    parse_error: str | None = None
    """Why ``raw_arguments`` did not parse as JSON; null when it did."""


class ToolCallsOutcome(_Model):
    """The model proposed one or more tool calls (possibly with some text beside them)."""

    kind: Literal["tool_calls"] = "tool_calls"
    calls: list[ToolCall]
    """Calls in the order the provider returned them."""
    text: str | None = None
    """Any text the model produced beside the calls."""


class TextOutcome(_Model):
    """The model answered in text (an abstention, a clarification question or an answer)."""

    kind: Literal["text"] = "text"
    text: str


class RefusalOutcome(_Model):
    """The model refused (a provider refusal field or stop reason)."""

    kind: Literal["refusal"] = "refusal"
    text: str | None = None


class ProviderErrorOutcome(_Model):
    """No model output: the provider or the harness failed. Coverage loss, never a model failure."""

    kind: Literal["provider_error"] = "provider_error"
    code: ProviderErrorCode
    message: str
    status: int | None = None
    """HTTP status when there was one."""


Outcome = Annotated[
    ToolCallsOutcome | TextOutcome | RefusalOutcome | ProviderErrorOutcome,
    Field(discriminator="kind"),
]
"""What a model did in one turn, provider-neutral."""

OUTCOME_ADAPTER: TypeAdapter[Outcome] = TypeAdapter(Outcome)


def parse_outcome(data: Any) -> Outcome:
    """Build an outcome from its JSON dict (or return an outcome model unchanged)."""
    if isinstance(data, ToolCallsOutcome | TextOutcome | RefusalOutcome | ProviderErrorOutcome):
        return data
    return OUTCOME_ADAPTER.validate_python(data)


class SystemMessage(_Model):
    """System instructions."""

    role: Literal["system"] = "system"
    content: str


class UserMessage(_Model):
    """A user turn."""

    role: Literal["user"] = "user"
    content: str


class AssistantMessage(_Model):
    """A model turn in the history: text and/or the calls it proposed."""

    role: Literal["assistant"] = "assistant"
    content: str | None = None
    calls: list[ToolCall] = Field(default_factory=list)
    provider_state: dict[str, Any] | None = None
    """Opaque per-dialect data that must be replayed (for example Gemini thought signatures)."""


class ToolResultMessage(_Model):
    """The application's answer to one tool call, matched to it by ``call_id``."""

    role: Literal["tool"] = "tool"
    call_id: str | None
    """The id of the call this answers; the only key used for matching (never position)."""
    name: str
    """The tool that was called (Gemini matches function responses by name)."""
    content: Any
    """The tool's result (any JSON value); serialised to text where the dialect needs text."""
    is_error: bool = False
    """True when the tool failed (validation or execution error)."""


Message = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolResultMessage,
    Field(discriminator="role"),
]
"""One turn of a conversation in canonical form."""

MESSAGE_ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)


def parse_message(data: Any) -> Message:
    """Build a message from its JSON dict (or return a message model unchanged)."""
    if isinstance(data, SystemMessage | UserMessage | AssistantMessage | ToolResultMessage):
        return data
    return MESSAGE_ADAPTER.validate_python(data)


class Usage(_Model):
    """Token usage of one request as the provider reported it (null when not reported)."""

    input_tokens: int | None = None
    output_tokens: int | None = None


class Anomaly(_Model):
    """A deviation the adapter noticed and recorded instead of fixing."""

    code: str
    """Stable machine code, e.g. ``finish_reason_mismatch``, ``missing_call_id``, ``tool_not_offered``."""
    detail: str = ""
    """Human-readable explanation with the offending value."""


def normalise_arguments(raw: Any) -> tuple[Any, str | None, str | None]:
    """Normalise arguments as produced, without repair.

    A JSON string is parsed; any other value is kept exactly as it is. Units, types, case, keys
    and defaults are never touched. Returns ``(arguments, raw_arguments, parse_error)``.
    """
    if isinstance(raw, str):
        try:
            return json.loads(raw), raw, None
        except (ValueError, RecursionError) as exc:
            return None, raw, f"invalid JSON: {exc}"
    return raw, json.dumps(raw, ensure_ascii=False, separators=(",", ":")), None


def make_call(call_id: str | None, name: str, raw: Any) -> ToolCall:
    """Build a :class:`ToolCall` from a wire value (string or already-decoded JSON), normalising only."""
    arguments, raw_arguments, parse_error = normalise_arguments(raw)
    return ToolCall(
        id=call_id, name=name, arguments=arguments, raw_arguments=raw_arguments, parse_error=parse_error
    )
