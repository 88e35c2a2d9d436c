"""Conversations of content blocks, the shape Anthropic Messages and Bedrock Converse share.

Both send a history as ``user``/``assistant`` messages of blocks: text, a tool use (id, name,
input object) and, in the next user message, one tool result per call, matched by id. They differ
only in how each block is spelt (``{"type": "tool_use", "id": ...}`` or ``{"toolUse":
{"toolUseId": ...}}``), which a :class:`BlockSpelling` says; :func:`block_messages` builds the
history once for both.

:func:`reply_turn` is the other direction's: it reads a reply's blocks into text and calls (what
each block is, and the names of its fields, a :class:`ReplySpelling` says), checks the stop
reason against them, and :func:`blocks_turn` decides the outcome the same way for both.

Rules: leading and interleaved system messages become system text; consecutive tool results are
one user message (a user message right after them joins it, as a text block); an assistant turn
parsed from the same dialect is replayed from its ``provider_state`` exactly; a history call
without an id gets a stand-in id (noted), and arguments that are not an object are sent as
``{}`` (noted); an empty assistant turn is not sent (noted).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.common import (
    BadResponse,
    anomaly,
    bad_response,
    check_calls,
    pair_results,
    text_call_anomaly,
)
from fcbench.contract import (
    Anomaly,
    AssistantMessage,
    Message,
    Outcome,
    RefusalOutcome,
    SystemMessage,
    TextOutcome,
    ToolCall,
    ToolCallsOutcome,
    ToolResultMessage,
    Usage,
    UserMessage,
    make_call,
)


@dataclass(frozen=True)
class BlockSpelling:
    """How one dialect spells the blocks of a conversation."""

    dialect: str
    """The dialect's name: the ``provider_state`` key of the turns it parsed."""
    id_prefix: str
    """Start of the stand-in id of a history call that has none (``toolu_``, ``tooluse_``)."""
    id_field: str
    """What the dialect calls a tool use's id, for notes (``tool_use id``, ``toolUseId``)."""
    text: Callable[[str], dict[str, Any]]
    """A text block."""
    tool_use: Callable[[str, str, dict[str, Any]], dict[str, Any]]
    """A tool-use block from ``(id, name, input)``."""
    result_block: Callable[[str, ToolResultMessage], dict[str, Any]]
    """The tool-result block of a user message for ``(tool-use id, result)``."""
    user_content: Callable[[str], Any]
    """A user message's ``content`` for its text (a string, or a list of blocks)."""


def result_blocks(
    spelling: BlockSpelling,
    calls: Sequence[ToolCall],
    results: Sequence[ToolResultMessage],
    keys: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """The result blocks for ``results``, in call order, each carrying the tool-use id of its call
    (``keys``, when the history gave id-less calls stand-in ids)."""
    wire_ids = list(keys) if keys is not None else [c.id or "" for c in calls]
    return [
        spelling.result_block(wire_ids[index] if index is not None else (result.call_id or ""), result)
        for index, result in pair_results(calls, results, wire_ids)
    ]


def call_keys(spelling: BlockSpelling, message_index: int, calls: Sequence[ToolCall]) -> list[str]:
    """The tool-use id of each call: its own id, or a stand-in when the history has none."""
    return [call.id or f"{spelling.id_prefix}fcbench_{message_index}_{i}" for i, call in enumerate(calls)]


def assistant_blocks(
    spelling: BlockSpelling, message: AssistantMessage, keys: Sequence[str], notes: list[str]
) -> list[dict[str, Any]] | None:
    """An assistant turn's blocks (its own, replayed, when this dialect parsed it); None when empty."""
    state = (message.provider_state or {}).get(spelling.dialect)
    if isinstance(state, dict) and isinstance(state.get("content"), list):
        replay: list[dict[str, Any]] = state["content"]
        return replay
    blocks: list[dict[str, Any]] = [spelling.text(message.content)] if message.content else []
    for call, key in zip(message.calls, keys, strict=True):
        if call.id is None:
            notes.append(f"history call {call.name!r} had no id; sent as {spelling.id_field} {key!r}")
        arguments = call.arguments
        if not isinstance(arguments, dict):
            notes.append(f"history call {key} ({call.name}) arguments are not an object; sent as {{}}")
            arguments = {}
        blocks.append(spelling.tool_use(key, call.name, arguments))
    return blocks or None


def block_messages(
    spelling: BlockSpelling, messages: Sequence[Message], notes: list[str]
) -> tuple[list[str], list[dict[str, Any]]]:
    """System texts and the ``messages`` array for a canonical history."""
    system: list[str] = []
    wire: list[dict[str, Any]] = []
    calls: list[ToolCall] = []
    keys: list[str] = []
    pending: list[ToolResultMessage] = []
    results_message: dict[str, Any] | None = None

    def flush() -> None:
        nonlocal results_message
        if pending:
            results_message = {"role": "user", "content": result_blocks(spelling, calls, pending, keys)}
            wire.append(results_message)
            pending.clear()

    for index, message in enumerate(messages):
        if isinstance(message, ToolResultMessage):
            pending.append(message)
            continue
        flush()
        if isinstance(message, SystemMessage):
            system.append(message.content)
        elif isinstance(message, UserMessage):
            if results_message is not None and wire and wire[-1] is results_message:
                results_message["content"].append(spelling.text(message.content))
            else:
                wire.append({"role": "user", "content": spelling.user_content(message.content)})
        elif isinstance(message, AssistantMessage):
            calls, keys = list(message.calls), call_keys(spelling, index, message.calls)
            content = assistant_blocks(spelling, message, keys, notes)
            if content is None:
                notes.append(f"history message {index} is an empty assistant turn; not sent")
            else:
                wire.append({"role": "assistant", "content": content})
    flush()
    return system, wire


def blocks_turn(
    spelling: BlockSpelling,
    blocks: list[Any],
    text: str,
    calls: list[ToolCall],
    *,
    stop_field: str,
    stop_reason: str | None,
    refused: bool,
    stop_anomalies: Sequence[Anomaly],
    usage: Usage,
    offered_tools: Sequence[str] | None,
    anomalies: Sequence[Anomaly] = (),
    response_id: str | None = None,
) -> ParsedTurn:
    """The turn of a reply whose ``blocks`` were read into ``text`` and ``calls``.

    A refusal stop (``refused``) makes a refusal whatever the blocks hold; else calls win over
    text; empty text is ``empty_response`` (naming ``stop_field``) and a JSON call in text is
    flagged. The anomalies are, in order: what reading found (``anomalies``), the calls checked
    against ``offered_tools``, the stop reason's own (``stop_anomalies``), then the outcome's. The
    blocks are kept as the turn's state, to replay.
    """
    found = [*anomalies, *check_calls(calls, offered_tools), *stop_anomalies]
    outcome: Outcome
    if refused:
        outcome = RefusalOutcome(text=text or None)
    elif calls:
        outcome = ToolCallsOutcome(calls=calls, text=text or None)
    else:
        outcome = TextOutcome(text=text)
        if not text:
            found.append(anomaly("empty_response", f"{stop_field} {stop_reason!r}"))
        elif (in_text := text_call_anomaly(text, offered_tools)) is not None:
            found.append(in_text)
    return ParsedTurn(
        outcome=outcome,
        anomalies=found,
        usage=usage,
        finish_reason=stop_reason,
        assistant=AssistantMessage(
            content=text or None, calls=calls, provider_state={spelling.dialect: {"content": blocks}}
        ),
        response_id=response_id,
    )


BlockKind = tuple[Literal["text", "use", "replayed", "unknown"], Any]
"""What one reply block is: ``("text", its text)``, ``("use", the object holding the tool use)``,
``("replayed", None)`` (not output, kept to replay) or ``("unknown", how to name it)``."""


@dataclass(frozen=True)
class ReplySpelling:
    """How one dialect spells a reply's blocks and stop reasons, for :func:`reply_turn`."""

    spelling: BlockSpelling
    """The dialect's conversation spelling (its turns' ``provider_state`` key)."""
    stop_field: str
    """What the dialect calls the stop reason (``stop_reason``, ``stopReason``)."""
    use_kind: str
    """What it calls a tool-use block, for messages (``tool_use``, ``toolUse``)."""
    id_key: str
    """The tool use's id field (``id``, ``toolUseId``)."""
    kind_of: Callable[[dict[str, Any]], BlockKind]
    """What a block is."""
    refusals: frozenset[str]
    """Stop reasons that make the turn a refusal."""
    malformed: frozenset[str] = frozenset()
    """Stop reasons that say the provider could not read the model's call."""


def read_use(
    reply: ReplySpelling, where: str, use: Any, raw_input: str | None, found: list[Anomaly]
) -> ToolCall:
    """The call of one tool-use object; ``raw_input``, a stream's argument text, wins over its ``input``."""
    if not isinstance(use, dict):
        raise BadResponse(f"{where}: {reply.use_kind} is not an object")
    name = use.get("name")
    if not isinstance(name, str):
        raise BadResponse(f"{where}: {reply.use_kind} without a string name")
    call_id = use.get(reply.id_key)
    if call_id is not None and not isinstance(call_id, str):
        raise BadResponse(
            f"{where}: {reply.use_kind} {reply.id_key} is {type(call_id).__name__}, not a string"
        )
    if raw_input is not None:
        return make_call(call_id, name, raw_input)
    if "input" not in use:
        return ToolCall(id=call_id, name=name, parse_error="input missing")
    value = use["input"]
    if isinstance(value, str):
        found.append(anomaly("arguments_type_mismatch", f"{where} ({name}): input sent as a string"))
    return make_call(call_id, name, value)


def stop_anomalies(reply: ReplySpelling, stop_reason: str | None, calls: Sequence[ToolCall]) -> list[Anomaly]:
    """What the stop reason says against the calls read (or a malformed call)."""
    field, uses = reply.stop_field, f"{reply.use_kind} blocks"
    if stop_reason in reply.malformed:
        return [anomaly("malformed_call", f"{field} {stop_reason!r}")]
    if calls and (stop_reason in ("end_turn", "stop_sequence") or stop_reason in reply.refusals):
        return [anomaly("finish_reason_mismatch", f"{field} {stop_reason!r} beside {uses}")]
    if calls and stop_reason == "max_tokens" and any(c.parse_error for c in calls):
        return [anomaly("finish_reason_mismatch", f"{field} 'max_tokens': tool input cut off")]
    if not calls and stop_reason == "tool_use":
        return [anomaly("finish_reason_mismatch", f"{field} 'tool_use' but no {uses}")]
    return []


def reply_turn(
    reply: ReplySpelling,
    blocks: Any,
    stop_reason: Any,
    usage: Usage,
    offered_tools: Sequence[str] | None,
    raw_inputs: Mapping[int, str] | None = None,
    anomalies: Sequence[Anomaly] = (),
    response_id: str | None = None,
) -> ParsedTurn:
    """The canonical turn for one reply's ``content`` blocks (JSON, or assembled from a stream).

    ``raw_inputs`` maps a block position to the argument text a stream delivered for it, which
    is parsed instead of the block's ``input``. A body that is not well formed is ``bad_response``.
    """
    found = list(anomalies)
    texts: list[str] = []
    calls: list[ToolCall] = []
    try:
        if not isinstance(blocks, list):
            raise BadResponse(f"content is {type(blocks).__name__}, not an array")
        if stop_reason is not None and not isinstance(stop_reason, str):
            raise BadResponse(f"{reply.stop_field} is {type(stop_reason).__name__}, not a string")
        for index, block in enumerate(blocks):
            if not isinstance(block, dict):
                raise BadResponse(f"content[{index}] is {type(block).__name__}, not an object")
            kind, value = reply.kind_of(block)
            if kind == "text":
                if not isinstance(value, str):
                    raise BadResponse(f"content[{index}]: text block without a string text")
                texts.append(value)
            elif kind == "use":
                calls.append(
                    read_use(reply, f"content[{index}]", value, (raw_inputs or {}).get(index), found)
                )
            elif kind == "unknown":
                found.append(anomaly("unknown_content", f"content[{index}] of {value}"))
    except BadResponse as exc:
        return bad_response(str(exc), found)
    return blocks_turn(
        reply.spelling,
        blocks,
        "".join(texts),
        calls,
        stop_field=reply.stop_field,
        stop_reason=stop_reason,
        refused=stop_reason in reply.refusals,
        stop_anomalies=stop_anomalies(reply, stop_reason, calls),
        usage=usage,
        offered_tools=offered_tools,
        anomalies=found,
        response_id=response_id,
    )


__all__ = [
    "BlockKind",
    "BlockSpelling",
    "ReplySpelling",
    "assistant_blocks",
    "block_messages",
    "blocks_turn",
    "call_keys",
    "read_use",
    "reply_turn",
    "result_blocks",
    "stop_anomalies",
]
