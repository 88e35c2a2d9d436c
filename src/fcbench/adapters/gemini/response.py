"""Read Gemini ``generateContent`` responses into canonical turns (protocols.md §4.2; pure, never raises).

A JSON body and a stream are both a list of ``GenerateContentResponse`` chunks (a JSON body is a
list of one); :func:`merge_chunk` folds them into one candidate (parts concatenated, the last
``finishReason``, usage and ids kept), and :func:`turn_from_merged` reads it.

* ``text`` parts are joined into the turn's text, except thought summaries (``thought: true``);
  ``functionCall`` parts become calls, ``args`` kept exactly as produced (a string ``args`` is
  parsed and flagged ``arguments_type_mismatch``). Calls without an ``id`` stay id-less and are
  flagged ``missing_call_id`` (no id is invented; see ``request.CALL_KEY_PREFIX``).
  Other data parts (code execution, inline data…) are ``unknown_content``.
* ``finishReason`` is ``STOP`` for calls too, so it is never compared with the content, except:
  see :data:`FINISH_KINDS` (refusals, malformed or unexpected calls, a missing thought signature).
* No candidates with ``promptFeedback.blockReason`` is a refusal (the prompt was blocked); no
  candidates and no block reason is ``bad_response``.
* Usage: ``promptTokenCount`` in (it counts ``cachedContentTokenCount``, also kept apart),
  ``candidatesTokenCount + thoughtsTokenCount`` out (thinking is billed as output, as the other
  dialects count it).
* The assistant turn keeps ``provider_state = {"gemini": {"parts": [...], "call_keys": [...]}}``:
  the parts to replay (``thoughtSignature`` included; adjacent plain text fragments joined, empty
  ones dropped) and one key per call (its id, or ``gemini-call-{i}``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.common import (
    BadResponse,
    UsageFields,
    anomaly,
    bad_response,
    check_calls,
    decode_json_body,
    text_call_anomaly,
    usage_of,
)
from fcbench.adapters.gemini.errors import error_object, error_outcome
from fcbench.adapters.gemini.request import DIALECT, call_keys
from fcbench.contract import (
    Anomaly,
    AssistantMessage,
    Outcome,
    ProviderErrorOutcome,
    RefusalOutcome,
    TextOutcome,
    ToolCall,
    ToolCallsOutcome,
    Usage,
    make_call,
)

FINISH_KINDS: dict[str, str] = {
    "SAFETY": "refusal",
    "RECITATION": "refusal",
    "BLOCKLIST": "refusal",
    "PROHIBITED_CONTENT": "refusal",
    "SPII": "refusal",
    "IMAGE_SAFETY": "refusal",
    "IMAGE_PROHIBITED_CONTENT": "refusal",
    "IMAGE_RECITATION": "refusal",
    "MALFORMED_FUNCTION_CALL": "malformed_call",
    "UNEXPECTED_TOOL_CALL": "tool_choice_ignored",
    "MISSING_THOUGHT_SIGNATURE": "bad_request",
}
"""``finishReason`` values read specially: ``refusal`` (a refusal outcome), an anomaly code
(the outcome is whatever parts came, the anomaly carries ``finishMessage``), or ``bad_request``
(the request lacked a thought signature: a provider error, not model output). Any other value,
``STOP`` and ``MAX_TOKENS`` included, is reported verbatim and changes nothing."""

_PART_METADATA = frozenset({"thought", "thoughtSignature", "partMetadata"})


@dataclass
class Merged:
    """One candidate folded from every chunk of a response."""

    parts: list[dict[str, Any]] = field(default_factory=list)
    has_candidate: bool = False
    finish_reason: Any = None
    finish_message: Any = None
    block_reason: Any = None
    usage: Any = None
    response_id: str | None = None


def merge_chunk(merged: Merged, chunk: Any) -> None:
    """Fold one ``GenerateContentResponse`` into ``merged`` (raises :class:`BadResponse` on bad shapes)."""
    if not isinstance(chunk, dict):
        raise BadResponse(f"response is {type(chunk).__name__}, not an object")
    candidates = chunk.get("candidates")
    if candidates is not None and not isinstance(candidates, list):
        raise BadResponse(f"candidates is {type(candidates).__name__}, not an array")
    first = next((c for c in candidates or [] if isinstance(c, dict) and c.get("index", 0) == 0), None)
    if candidates and first is None:
        raise BadResponse("candidates has no object with index 0")
    if first is not None:
        merged.has_candidate = True
        content = first.get("content")
        if content is not None and not isinstance(content, dict):
            raise BadResponse(f"candidates[0].content is {type(content).__name__}, not an object")
        parts = (content or {}).get("parts") or []
        if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
            raise BadResponse("candidates[0].content.parts is not an array of objects")
        merged.parts.extend(parts)
        if first.get("finishReason") is not None:
            merged.finish_reason = first["finishReason"]
            merged.finish_message = first.get("finishMessage")
    feedback = chunk.get("promptFeedback")
    if isinstance(feedback, dict) and feedback.get("blockReason") is not None:
        merged.block_reason = feedback["blockReason"]
    if isinstance(chunk.get("usageMetadata"), dict):
        merged.usage = chunk["usageMetadata"]
    if isinstance(chunk.get("responseId"), str):
        merged.response_id = chunk["responseId"]


USAGE = UsageFields(
    "promptTokenCount",
    ("candidatesTokenCount", "thoughtsTokenCount"),
    cache_read=("cachedContentTokenCount",),
)
"""``promptTokenCount`` already counts ``cachedContentTokenCount``; no cache writes are reported."""


def read_usage(value: Any) -> Usage:
    """``promptTokenCount`` in (cached part apart); candidates plus thoughts out (null when neither
    is reported)."""
    return usage_of(value, USAGE)


def _read_call(index: int, value: Any, found: list[Anomaly]) -> ToolCall:
    where = f"parts[{index}].functionCall"
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        raise BadResponse(f"{where} is not an object with a string name")
    call_id = value.get("id")
    if call_id is not None and not isinstance(call_id, str):
        raise BadResponse(f"{where}.id is {type(call_id).__name__}, not a string")
    args = value.get("args")
    if isinstance(args, str):
        found.append(anomaly("arguments_type_mismatch", f"{where} ({value['name']}): args sent as a string"))
    return make_call(call_id, value["name"], args)


def replay_parts(parts: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parts to send back: adjacent plain text fragments joined, empty plain text dropped."""
    replay: list[dict[str, Any]] = []
    for part in parts:
        plain = set(part) <= {"text", "thought"} and isinstance(part.get("text"), str)
        if plain and not part["text"]:
            continue
        previous = replay[-1] if replay else None
        if (
            plain
            and previous is not None
            and isinstance(previous.get("text"), str)
            and set(previous) == set(part)
            and previous.get("thought") == part.get("thought")
        ):
            replay[-1] = {**previous, "text": previous["text"] + part["text"]}
        else:
            replay.append(dict(part))
    return replay


def _outcome(
    kind: str | None, text: str, calls: list[ToolCall], found: list[Anomaly], finish: Any
) -> Outcome:
    if kind == "refusal":
        if calls:
            found.append(anomaly("finish_reason_mismatch", f"finishReason {finish!r} beside function calls"))
        return RefusalOutcome(text=text or None)
    if calls:
        return ToolCallsOutcome(calls=calls, text=text or None)
    if not text and kind is None:
        found.append(anomaly("empty_response", f"finishReason {finish!r}"))
    return TextOutcome(text=text)


def turn_from_merged(
    merged: Merged, offered_tools: Sequence[str] | None, anomalies: Sequence[Anomaly] = ()
) -> ParsedTurn:
    """The canonical turn for a merged candidate."""
    found = list(anomalies)
    usage = read_usage(merged.usage)
    if not merged.has_candidate:
        if merged.block_reason is None:
            return bad_response("response has no candidates and no promptFeedback.blockReason", found)
        return ParsedTurn(
            outcome=RefusalOutcome(text=None),
            anomalies=found,
            usage=usage,
            finish_reason=f"blockReason:{merged.block_reason}",
            response_id=merged.response_id,
        )
    texts: list[str] = []
    calls: list[ToolCall] = []
    try:
        for index, part in enumerate(merged.parts):
            data = [key for key in part if key not in _PART_METADATA]
            if data == ["text"] and isinstance(part["text"], str):
                if part.get("thought") is not True:
                    texts.append(part["text"])
            elif data == ["functionCall"]:
                calls.append(_read_call(index, part["functionCall"], found))
            elif data:
                found.append(anomaly("unknown_content", f"parts[{index}] with {sorted(data)}"))
    except BadResponse as exc:
        return bad_response(str(exc), found)
    finish = merged.finish_reason
    kind = FINISH_KINDS.get(finish) if isinstance(finish, str) else None
    detail = f"finishReason {finish}" + (f": {merged.finish_message}" if merged.finish_message else "")
    if kind == "bad_request":
        return ParsedTurn(
            outcome=ProviderErrorOutcome(code="bad_request", message=detail),
            anomalies=found,
            usage=usage,
            finish_reason=finish,
            response_id=merged.response_id,
        )
    if kind not in (None, "refusal"):
        found.append(anomaly(str(kind), detail[:500]))
    text = "".join(texts)
    found.extend(check_calls(calls, offered_tools))
    outcome = _outcome(kind, text, calls, found, finish)
    in_text = text_call_anomaly(text, offered_tools) if isinstance(outcome, TextOutcome) else None
    if in_text is not None:
        found.append(in_text)
    state = {DIALECT: {"parts": replay_parts(merged.parts), "call_keys": call_keys(calls)}}
    return ParsedTurn(
        outcome=outcome,
        anomalies=found,
        usage=usage,
        finish_reason=finish if isinstance(finish, str) else None,
        assistant=AssistantMessage(content=text or None, calls=calls, provider_state=state),
        response_id=merged.response_id,
    )


def parse_response(body: Any, offered_tools: Sequence[str] | None = None) -> ParsedTurn:
    """Read one non-streamed body (an object, or a JSON array of chunks) into a turn."""
    body = decode_json_body(body)
    if error_object(body) is not None:
        return ParsedTurn(outcome=error_outcome(body))
    chunks = body if isinstance(body, list) else [body]
    merged = Merged()
    try:
        if not chunks:
            raise BadResponse("response is an empty array")
        for chunk in chunks:
            merge_chunk(merged, chunk)
    except BadResponse as exc:
        preview = body[:200] if isinstance(body, str) else str(exc)
        return bad_response(f"not a generateContent response: {preview!r}")
    return turn_from_merged(merged, offered_tools)
