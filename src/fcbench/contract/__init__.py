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
* :class:`Usage` and :class:`Anomaly`, with the one anomaly vocabulary (:data:`ANOMALY_CODES`)
* :class:`SchemaChange`: one edit a dialect's schema transform made to a tool
* :func:`canonical_json` and :func:`json_type`: the one canonical JSON text of a value (keys,
  hashes, signatures) and the one name of its JSON type (:mod:`fcbench.contract.values`)
  (a call written as JSON text instead of made is read by :mod:`fcbench.contract.text_calls`)
* :data:`MODES`: the one mode table (how each mode observes, and whether its records can be re-graded)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter

from fcbench.contract.values import canonical_json as canonical_json
from fcbench.contract.values import json_type as json_type

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
    "too_large",
    "model_output_invalid",
]
"""Why a request produced no model output. Every one of these is coverage loss, never a model error
(``model_output_invalid``: the server could not parse what the model wrote, the model's behaviour
rather than an infrastructure fault, so reports count it apart: :data:`MODEL_CAUSED_ERRORS`)."""
MODEL_CAUSED_ERRORS: frozenset[ProviderErrorCode] = frozenset({"model_output_invalid"})


Continuation = Literal["stateless", "stateful"]
"""How multi-turn modes send a conversation's later turns (``continuation``).

``stateless`` (the default) replays the whole conversation on every turn, provider state (thought
signatures, reasoning items, thinking blocks) byte for byte; ``stateful`` sends only the new
messages with the id of the provider's stored previous turn, on dialects that can
(``Capabilities.stateful_continuation``: OpenAI Responses ``previous_response_id``, Gemini
Interactions ``previous_interaction_id``); other dialects stay stateless, and each record says
which way it went."""


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

    @property
    def writes(self) -> bool:
        """Whether the tool writes: its ``side_effect`` says ``write``. The one reading of write-ness
        (the grader's unexpected writes, the fake tools' idempotent replays): a tool's name never
        makes it a write, so a user's read-only ``create_refund`` is a read."""
        return self.side_effect == "write"


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
    sent_position: int | None = Field(default=None, ge=0, exclude_if=lambda position: position is None)
    """Where among its turn's results this one is sent, from 0, when the harness sends them out of
    call order (tool fault ``reorder_results``); None (the default, left out of the serialised
    form): in the order of the calls. Matching stays by ``call_id``."""


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


def _unreported(count: int | None) -> bool:
    return count is None


class Usage(_Model):
    """Token usage of one request, the same way in every dialect (null when not reported).

    ``input_tokens`` counts every input token: those read from a prompt cache and those written to
    one are parts of it, never added on top, whatever the dialect's own field means (an
    anthropic-messages ``input_tokens`` leaves both out, so its adapter adds them back). The two
    parts are kept apart so a cost can price each one (:meth:`fcbench.pricing.PriceTable.cost`).
    """

    input_tokens: int | None = None
    """All input tokens of the request: fresh, read from a cache and written to one."""
    output_tokens: int | None = None
    """Output tokens, reasoning (thought) tokens included."""
    cache_read_input_tokens: int | None = Field(default=None, exclude_if=_unreported)
    """The part of ``input_tokens`` read from the provider's prompt cache (left out when the
    dialect does not report it)."""
    cache_creation_input_tokens: int | None = Field(default=None, exclude_if=_unreported)
    """The part of ``input_tokens`` written to the provider's prompt cache (left out when the
    dialect does not report it)."""

    @property
    def uncached_input_tokens(self) -> int | None:
        """Input tokens neither read from nor written to a cache (null when ``input_tokens`` is)."""
        if self.input_tokens is None:
            return None
        cached = (self.cache_read_input_tokens or 0) + (self.cache_creation_input_tokens or 0)
        return self.input_tokens - cached


ANOMALY_CODES: Mapping[str, str] = {
    "missing_call_id": "a tool call came without an id",
    "duplicate_call_id": "two tool calls share one id",
    "tool_not_offered": "the model called a tool that was not offered",
    "unparseable_arguments": "the argument string is not valid JSON",
    "empty_arguments": "the argument string is empty",
    "arguments_not_object": "arguments parsed to something other than a JSON object",
    "arguments_type_mismatch": "arguments came as an object where the dialect sends a string, or the reverse",
    "finish_reason_mismatch": "the finish/stop reason contradicts the content",
    "json_call_in_text": "the text writes a tool call (JSON, Python-style, a call tag) instead of making it",
    "refusal_field": "the provider set a refusal field",
    "unknown_event": "a stream event the adapter does not know",
    "stream_incomplete": "the stream ended before its terminal event",
    "empty_response": "the response carried neither text nor calls",
    "unknown_content": "a content part of an unknown type",
    "tool_choice_ignored": "the requested tool choice was not honoured",
    "malformed_call": "the provider reported a tool call it could not parse (e.g. MALFORMED_FUNCTION_CALL)",
    "implausible_usage": "a token count or its cost is beyond what a number can hold; it is left out (null)",
}
"""The one anomaly vocabulary: every code an adapter or the grader may record, with its meaning.

Each deviation is recorded once, under one code, by whoever notices it first (the adapter when it
parses the wire, the grader for outcomes built elsewhere)."""


class Anomaly(_Model):
    """A deviation the adapter noticed and recorded instead of fixing."""

    code: str
    """Stable machine code, one of :data:`ANOMALY_CODES` (older records may hold other codes)."""
    detail: str = ""
    """Human-readable explanation with the offending value."""


class SchemaChange(_Model):
    """One change a dialect's schema transform made to a tool schema, recorded for the report."""

    tool: str
    """The tool whose parameters were changed."""
    path: str
    """JSON pointer-like path inside the tool's parameters, e.g. ``/properties/order_id``."""
    keyword: str
    """The JSON Schema keyword that was changed (``format``, ``additionalProperties``, ...)."""
    action: Literal["removed", "added", "rewritten", "moved"]
    """What the transform did to it."""
    reason: str
    """Why: the dialect rule that forced the change."""


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


ModeKind = Literal["single_turn", "conversation", "probe"]
"""How a mode observes: one request per observation built from the case (``single_turn``), a
multi-turn conversation over fake tools (``conversation``), or one request shaped by a compat
probe (``probe``). The runner binds each kind to its observer (:mod:`fcbench.run.modes`)."""


class ModeInfo(_Model):
    """One mode of observation: how it asks, what it runs on, and how its records are scored."""

    name: str
    """The mode's name, as written in configs, on the command line and in every record."""
    kind: ModeKind
    """How the mode observes (see :data:`ModeKind`)."""
    tool_choice: Literal["auto", "required", "none"] = "auto"
    """Tool choice of a ``single_turn`` mode's request."""
    stream: bool = False
    """Whether a ``single_turn`` mode asks for a streamed reply."""
    regradable: bool = False
    """Whether a record can be graded again from its outcome alone under another profile."""
    summary: str = ""
    """One line for ``--help`` and the README."""

    @property
    def multi_turn(self) -> bool:
        """True for modes that play recovery scenarios (cases with ``recovery`` set) and only those."""
        return self.kind == "conversation"


MODES: Mapping[str, ModeInfo] = MappingProxyType(
    {
        info.name: info
        for info in (
            ModeInfo(
                name="selection",
                kind="single_turn",
                regradable=True,
                summary="tool choice auto: the primary comparison",
            ),
            ModeInfo(
                name="forced",
                kind="single_turn",
                tool_choice="required",
                regradable=True,
                summary="tool choice required: a separate experiment, so forced calls never inflate recall",
            ),
            ModeInfo(
                name="stream",
                kind="single_turn",
                stream=True,
                regradable=True,
                summary="selection over the streaming protocol",
            ),
            ModeInfo(
                name="recovery",
                kind="conversation",
                summary="multi-turn scenarios: does the model repair a call after a tool error",
            ),
            ModeInfo(
                name="compat",
                kind="probe",
                summary="schema-keyword and capability probes (fcbench compat)",
            ),
        )
    }
)
"""The one mode table: every mode name, how it observes and whether it re-grades. Configs,
records, the plan, regrade and the runner all derive their mode names from it."""


def check_mode(name: str) -> str:
    """``name`` if it is a mode of :data:`MODES`; else a ``ValueError`` naming the known modes."""
    if name not in MODES:
        raise ValueError(f"unknown mode {name!r}; known: {', '.join(MODES)}")
    return name


ModeName = Annotated[str, AfterValidator(check_mode)]
"""A mode name checked against :data:`MODES` (for pydantic fields of configs and records)."""


def wire_text(content: Any) -> str:
    """Plain text of a wire content value: a string, or a list of parts (strings, or objects
    carrying ``text``); anything else has none."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
        return "".join(texts)
    return ""
