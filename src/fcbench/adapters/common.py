"""Helpers shared by every dialect adapter: anomaly checks on calls, JSON text, tool-call ids.

Adapters record deviations as :class:`~fcbench.contract.Anomaly` values; these helpers hold the
checks that do not depend on a dialect, so each is written once.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from types import MappingProxyType
from typing import Any

from fcbench.adapters.base import ParsedTurn, RequestOptions, ToolChoice
from fcbench.contract import (
    ANOMALY_CODES,
    Anomaly,
    AssistantMessage,
    Message,
    Outcome,
    ProviderErrorCode,
    ProviderErrorOutcome,
    TextOutcome,
    ToolCall,
    ToolCallsOutcome,
    ToolResultMessage,
    Usage,
)
from fcbench.contract.text_calls import calls_in_text, text_calls_json


def anomaly(code: str, detail: str = "") -> Anomaly:
    """Build an anomaly; ``code`` must be one of :data:`ANOMALY_CODES`."""
    if code not in ANOMALY_CODES:
        raise KeyError(f"undocumented anomaly code {code!r}")
    return Anomaly(code=code, detail=detail)


def check_calls(calls: Sequence[ToolCall], offered_tools: Sequence[str] | None) -> list[Anomaly]:
    """Dialect-independent anomalies of a list of calls: ids, offered names, argument shape."""
    found: list[Anomaly] = []
    seen: set[str] = set()
    offered = set(offered_tools) if offered_tools is not None else None
    for index, call in enumerate(calls):
        where = f"call {index} ({call.name})"
        if not call.id:
            found.append(anomaly("missing_call_id", where))
        elif call.id in seen:
            found.append(anomaly("duplicate_call_id", f"{where}: {call.id}"))
        else:
            seen.add(call.id)
        if offered is not None and call.name not in offered:
            found.append(anomaly("tool_not_offered", f"{where}: offered {sorted(offered)}"))
        if call.raw_arguments is not None and call.raw_arguments.strip() == "":
            found.append(anomaly("empty_arguments", where))
        elif call.parse_error is not None:
            found.append(anomaly("unparseable_arguments", f"{where}: {call.parse_error}"))
        elif not isinstance(call.arguments, dict):
            found.append(anomaly("arguments_not_object", f"{where}: {type(call.arguments).__name__}"))
    return found


def text_call_anomaly(text: str | None, offered_tools: Sequence[str] | None) -> Anomaly | None:
    """``json_call_in_text`` when ``text`` writes calls (any syntax, offered tools or not), else None.

    Every dialect's text path calls this; the detail is the extracted calls as compact JSON
    (name and arguments, :func:`fcbench.contract.text_calls.calls_in_text`).
    """
    calls = calls_in_text(text, offered_tools)
    return anomaly("json_call_in_text", text_calls_json(calls)) if calls else None


def tool_choice_anomaly(choice: ToolChoice, outcome: Outcome) -> Anomaly | None:
    """``tool_choice_ignored`` when ``outcome`` did not do what the requested tool choice asked.

    The one definition, for every dialect (the kernel, :func:`fcbench.run.observe.send_turn`,
    applies it to each parsed turn, since a parser does not see the request): ``required`` or a
    named tool answered with text (no call), a named tool answered with calls of another tool,
    or ``none`` answered with calls. ``auto``, refusals and provider errors never qualify.
    """
    if not isinstance(outcome, TextOutcome | ToolCallsOutcome):
        return None
    names = [call.name for call in outcome.calls] if isinstance(outcome, ToolCallsOutcome) else []
    wanted = f"tool choice {choice.name!r}" if choice.mode == "named" else f"tool choice {choice.mode!r}"
    if choice.mode in ("required", "named") and not names:
        return anomaly("tool_choice_ignored", f"{wanted} answered with text and no call")
    if choice.mode == "named" and any(name != choice.name for name in names):
        other = sorted({name for name in names if name != choice.name})
        return anomaly("tool_choice_ignored", f"{wanted} answered with calls of {', '.join(other)}")
    if choice.mode == "none" and names:
        return anomaly(
            "tool_choice_ignored", f"{wanted} answered with calls of {', '.join(sorted(set(names)))}"
        )
    return None


def continued_messages(messages: Sequence[Message], options: RequestOptions) -> Sequence[Message]:
    """What a request sends of ``messages``: all of them, or, when ``options`` continues a stored
    conversation (``previous_response_id``), only those after the last assistant turn (the
    provider holds everything up to and including that turn)."""
    if options.previous_response_id is None:
        return messages
    last = max((i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)), default=-1)
    return messages[last + 1 :]


def result_text(result: ToolResultMessage) -> str:
    """A tool result as the text most dialects carry (strings unchanged, other values as JSON)."""
    if isinstance(result.content, str):
        return result.content
    return json.dumps(result.content, ensure_ascii=False, separators=(",", ":"))


def order_results_by_calls(
    calls: Sequence[ToolCall], results: Iterable[ToolResultMessage]
) -> list[ToolResultMessage]:
    """Results in the order of ``calls``, matched by call id (never by position).

    Results whose id matches no call are kept at the end, so the provider rejects them visibly
    rather than the harness hiding them. Results carrying a ``sent_position`` (the harness reorders
    a turn's results on purpose) are put in that order instead (:func:`in_sent_order`).
    """
    by_id = {r.call_id: r for r in results}
    ordered = [by_id.pop(c.id) for c in calls if c.id in by_id]
    return in_sent_order(ordered) + list(by_id.values())


def in_sent_order(results: Sequence[ToolResultMessage]) -> list[ToolResultMessage]:
    """``results`` (already matched to their calls) in the order the harness asked for: by
    ``sent_position`` when one carries it (a tool fault reordering a turn's results), else unchanged."""
    if all(r.sent_position is None for r in results):
        return list(results)
    return sorted(results, key=lambda r: (r.sent_position is None, r.sent_position or 0))


class BadResponse(Exception):
    """Internal signal of a parser: the body is not well formed (becomes a ``bad_response`` outcome)."""


def bad_response(message: str, anomalies: Sequence[Anomaly] = ()) -> ParsedTurn:
    """A turn carrying a ``bad_response`` provider error (and any anomalies noticed before it)."""
    return ParsedTurn(
        outcome=ProviderErrorOutcome(code="bad_response", message=message), anomalies=list(anomalies)
    )


def token_count(value: Any) -> int | None:
    """A reported token count, or None when it is absent or not an integer (booleans are not)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class UsageFields:
    """Where one dialect reports its token counts in its usage object (a path is the keys from
    that object down to a count)."""

    input: str
    """The key of the input count."""
    output: tuple[str, ...]
    """The keys of the counts summed into the output tokens."""
    cache_read: tuple[str, ...] = ()
    """The path of the input tokens read from a prompt cache (empty: the dialect reports none)."""
    cache_creation: tuple[str, ...] = ()
    """The path of the input tokens written to a prompt cache (empty: the dialect reports none)."""
    cache_apart: bool = False
    """The dialect's input count leaves the cache parts out, so they are added to it."""


def usage_of(value: Any, fields: UsageFields) -> Usage:
    """Canonical usage from a reported usage object: every input token in ``input_tokens``, the
    cache parts also apart, the sum of the output counts out (each null when nothing is reported,
    or ``value`` is no object)."""
    if not isinstance(value, dict):
        return Usage()
    counts = [token_count(value.get(key)) for key in fields.output]
    outputs = [n for n in counts if n is not None]
    read, created = _count_at(value, fields.cache_read), _count_at(value, fields.cache_creation)
    inputs = token_count(value.get(fields.input))
    if fields.cache_apart and inputs is not None:
        inputs += (read or 0) + (created or 0)
    return Usage(
        input_tokens=inputs,
        output_tokens=sum(outputs) if outputs else None,
        cache_read_input_tokens=read,
        cache_creation_input_tokens=created,
    )


def _count_at(value: dict[str, Any], path: Sequence[str]) -> int | None:
    """The token count at ``path`` inside ``value`` (None when the path is empty or leads nowhere)."""
    found: Any = value if path else None
    for key in path:
        found = found.get(key) if isinstance(found, dict) else None
    return token_count(found)


HTTP_STATUS_CODES: Mapping[int, ProviderErrorCode] = MappingProxyType(
    {
        400: "bad_request",
        401: "auth",
        403: "auth",
        404: "not_found",
        408: "timeout",
        429: "rate_limited",
        500: "server",
        503: "overloaded",
        504: "timeout",
    }
)
"""HTTP status -> canonical code, as every dialect reads it; a dialect's own table adds to it."""


def status_code(table: Mapping[int, ProviderErrorCode], status: int) -> ProviderErrorCode:
    """The canonical code of an HTTP ``status`` by ``table``; else any other 4xx is ``bad_request``,
    5xx ``server``, and anything else ``bad_response``."""
    if status in table:
        return table[status]
    if 400 <= status < 500:
        return "bad_request"
    return "server" if status >= 500 else "bad_response"


ERROR_MESSAGE_LIMIT = 2000
"""Longest provider error message kept in an outcome."""


def unstructured_error_message(body: Any, status: int | None) -> str:
    """The message of an error response whose body carries no error object (empty, text or other JSON)."""
    if body is None or body == "":
        return f"HTTP {status} with an empty body"
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
    return f"HTTP {status}: {text}"[:ERROR_MESSAGE_LIMIT]


def decode_json_body(body: Any) -> Any:
    """Decode a body that may still be bytes or text; non-JSON text is returned unchanged."""
    if isinstance(body, bytes | bytearray):
        body = body.decode("utf-8", errors="replace")
    if isinstance(body, str):
        try:
            return json.loads(body)
        except (ValueError, RecursionError):
            return body
    return body


def pair_results(
    calls: Sequence[ToolCall], results: Iterable[ToolResultMessage], keys: Sequence[str | None] | None = None
) -> list[tuple[int | None, ToolResultMessage]]:
    """Match each result to the call it answers; returns ``(call index or None, result)`` pairs.

    First, a result with a ``call_id`` answers the unanswered call whose id (or key, when ``keys``
    gives one per call, e.g. a synthetic key for an id-less call) equals it. Then a result
    without a ``call_id`` answers the first still-unanswered call of the same tool name, in call
    order (dialects whose calls may lack ids match that way). Matched pairs come in call order;
    results that match nothing come last, in their given order, with index None, so the provider
    rejects them visibly. Matched pairs follow the results' ``sent_position`` instead when they
    carry one (:func:`in_sent_order`).
    """
    keyed = list(keys) if keys is not None else [c.id for c in calls]
    answered: list[ToolResultMessage | None] = [None] * len(calls)
    matched: set[int] = set()
    pending = list(results)
    for by_id in (True, False):
        for position, result in enumerate(pending):
            if position in matched or (result.call_id is not None) != by_id:
                continue
            index = next(
                (
                    i
                    for i, call in enumerate(calls)
                    if answered[i] is None
                    and (result.call_id in (call.id, keyed[i]) if by_id else call.name == result.name)
                ),
                None,
            )
            if index is not None:
                answered[index] = result
                matched.add(position)
    paired: list[tuple[int | None, ToolResultMessage]] = [
        (i, r) for i, r in enumerate(answered) if r is not None
    ]
    if any(r.sent_position is not None for _, r in paired):
        order = {id(r): n for n, r in enumerate(in_sent_order([r for _, r in paired]))}
        paired.sort(key=lambda pair: order[id(pair[1])])
    return paired + [(None, r) for p, r in enumerate(pending) if p not in matched]


def _seconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return max(number, 0.0) if math.isfinite(number) else None


def retry_after_header(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` (first) or ``retry-after`` (seconds or an HTTP date).

    Header names match case-insensitively; a date in the past counts as 0; junk values give None.
    """
    lower = {k.lower(): v for k, v in headers.items()}
    millis = _seconds(lower.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000.0
    value = lower.get("retry-after")
    seconds = _seconds(value)
    if value is None or seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - (now or datetime.now(UTC))).total_seconds(), 0.0)
