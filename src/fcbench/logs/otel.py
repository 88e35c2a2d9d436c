"""OTLP JSON spans with the OpenTelemetry GenAI conventions, read as logged exchanges.

A file holds one OTLP JSON document or JSON Lines of them (as the OTLP file exporters write):
``{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}``, and may hold log records too
(``resourceLogs``: the GenAI events an instrumentation emits as logs, tied to their span by
``spanId``; they are read wherever they come in the files given). A span is a model request when
its ``gen_ai.operation.name`` is ``chat``, ``text_completion`` or ``generate_content`` (or, without
one, when it has ``gen_ai.request.model``); other spans (HTTP, tools, agents) are ignored.

Both ways of recording content are read:

* **attributes**: ``gen_ai.system_instructions``, ``gen_ai.input.messages``,
  ``gen_ai.output.messages`` and ``gen_ai.tool.definitions`` (JSON strings or structured values);
* **events** (span events, or log records of the span): ``gen_ai.system.message``,
  ``gen_ai.user.message``, ``gen_ai.assistant.message``, ``gen_ai.tool.message`` and
  ``gen_ai.choice``, their body in the event's attributes (or JSON in ``gen_ai.event.content``); and
  the older ``gen_ai.content.prompt`` / ``gen_ai.content.completion`` events (``gen_ai.prompt``,
  ``gen_ai.completion``).

The model is ``gen_ai.request.model`` (else ``gen_ai.response.model``), usage
``gen_ai.usage.input_tokens``/``output_tokens``, the latency the span's duration, and a span whose
status is an error is a logged provider error. A span that records no tool definitions (some
instrumentations never do) is offered the tools of ``--tools``, noted on the request.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.logged import History, RequestFormatError
from fcbench.contract import ProviderErrorOutcome, Usage, wire_text
from fcbench.errors import InputError
from fcbench.logs.chat import Answer, add_message, answer_turn, decoded, read_tools, request_of, token_count
from fcbench.logs.traces import ReadItem, ReadOptions, TraceItem, json_documents, trace_item

CALL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
"""``gen_ai.operation.name`` values of a model request."""

MESSAGE_EVENTS: dict[str, str] = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
"""Event name -> the role of the message it records."""

CHOICE_EVENT = "gen_ai.choice"
"""The event of the model's answer."""

_SCALARS = ("stringValue", "boolValue", "doubleValue", "intValue")


def any_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as plain JSON (a plain value stays as it is)."""
    if not isinstance(value, Mapping):
        return value
    for key in _SCALARS:
        if key in value:
            return token_count(value[key]) if key == "intValue" else value[key]
    if "arrayValue" in value:
        return [any_value(v) for v in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        return key_values((value["kvlistValue"] or {}).get("values", []))
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def key_values(items: Any) -> dict[str, Any]:
    """OTLP ``[{"key", "value"}]`` as a dict."""
    if not isinstance(items, list):
        return {}
    return {str(i["key"]): any_value(i.get("value")) for i in items if isinstance(i, Mapping) and "key" in i}


def _event_name(record: Mapping[str, Any], attributes: Mapping[str, Any]) -> str:
    return str(record.get("eventName") or record.get("name") or attributes.get("event.name") or "")


def _log_events(document: Any) -> dict[str, list[dict[str, Any]]]:
    """The GenAI log records of a document, by span id."""
    found: dict[str, list[dict[str, Any]]] = {}
    for resource in document.get("resourceLogs") or [] if isinstance(document, dict) else []:
        for scope in (resource or {}).get("scopeLogs") or []:
            for record in (scope or {}).get("logRecords") or []:
                if not isinstance(record, dict) or not record.get("spanId"):
                    continue
                attributes = key_values(record.get("attributes"))
                body = any_value(record.get("body"))
                event = {"name": _event_name(record, attributes), "body": body, "attributes": attributes}
                found.setdefault(str(record["spanId"]), []).append(event)
    return found


def _spans(document: Any) -> list[dict[str, Any]]:
    if not isinstance(document, dict):
        return []
    return [
        span
        for resource in document.get("resourceSpans") or []
        for scope in (resource or {}).get("scopeSpans") or []
        for span in (scope or {}).get("spans") or []
        if isinstance(span, dict)
    ]


class OtelFormat:
    """The ``otel`` log format (see the module docstring)."""

    def items(self, path: Path, text: str) -> list[TraceItem]:
        """Every span of the file, with the GenAI log records of its span id."""
        documents = json_documents(path, text)
        if not any(
            isinstance(d, dict) and ("resourceSpans" in d or "resourceLogs" in d) for _, d in documents
        ):
            raise InputError('is not OTLP JSON (no "resourceSpans")', path=str(path))
        logged: dict[str, list[dict[str, Any]]] = {}
        for _, document in documents:
            for span_id, events in _log_events(document).items():
                logged.setdefault(span_id, []).extend(events)
        items = []
        for start, document in documents:
            for span in _spans(document):
                span_id = str(span.get("spanId") or "")
                data = {"span": span, "logged": logged.get(span_id, [])}
                items.append(
                    trace_item(
                        text, start, search=len(documents) == 1, kind="span", name=span.get("name"),
                        ident=span_id, data=data,
                    )
                )  # fmt: skip
        return items

    def is_call(self, item: TraceItem) -> bool:
        """A span of a model request (see :data:`CALL_OPERATIONS`)."""
        attributes = key_values(item.data["span"].get("attributes"))
        operation = attributes.get("gen_ai.operation.name")
        return operation in CALL_OPERATIONS if operation else "gen_ai.request.model" in attributes

    def read(self, item: TraceItem, options: ReadOptions) -> ReadItem:
        """The span's request and answer."""
        span = item.data["span"]
        attributes = key_values(span.get("attributes"))
        events = [*_span_events(span), *item.data["logged"]]
        history = History()
        _read_input(history, attributes, events)
        tools = read_tools(attributes.get("gen_ai.tool.definitions"), "gen_ai.tool.definitions")
        if not tools and "gen_ai.tool.definitions" not in attributes and options.tools:
            tools = list(options.tools)
            history.notes.append("gen_ai.tool.definitions (not recorded: the tools of --tools were offered)")
        model = attributes.get("gen_ai.request.model") or attributes.get("gen_ai.response.model")
        request = request_of(history, tools, model)
        raw = {
            "span": span.get("name"),
            "spanId": span.get("spanId"),
            "attributes": attributes,
            "events": events,
        }
        return ReadItem(request, _turn(span, attributes, events), raw, _duration_ms(span), request.model)


def _span_events(span: Mapping[str, Any]) -> list[dict[str, Any]]:
    events = []
    for event in span.get("events") or []:
        if isinstance(event, Mapping):
            attributes = key_values(event.get("attributes"))
            body = (
                decoded(attributes.get("gen_ai.event.content"))
                if "gen_ai.event.content" in attributes
                else attributes
            )
            events.append({"name": str(event.get("name") or ""), "body": body, "attributes": attributes})
    return events


def _read_input(history: History, attributes: Mapping[str, Any], events: list[dict[str, Any]]) -> None:
    instructions = decoded(attributes.get("gen_ai.system_instructions"))
    if instructions:
        parts = instructions if isinstance(instructions, list) else [instructions]
        history.system_text(
            "".join(p.get("content", "") if isinstance(p, dict) else wire_text(p) for p in parts)
        )
    if "gen_ai.input.messages" in attributes:
        messages = decoded(attributes["gen_ai.input.messages"])
        if not isinstance(messages, list):
            raise RequestFormatError("gen_ai.input.messages must be a list of messages")
        for index, message in enumerate(messages):
            add_message(history, message, f"gen_ai.input.messages[{index}]")
        return
    for index, event in enumerate(events):
        if event["name"] in MESSAGE_EVENTS:
            add_message(
                history, _body(event), f"event {event['name']} #{index}", MESSAGE_EVENTS[event["name"]]
            )
        elif event["name"] == "gen_ai.content.prompt":
            prompt = decoded(event["attributes"].get("gen_ai.prompt"))
            for position, message in enumerate(prompt if isinstance(prompt, list) else []):
                add_message(history, message, f"gen_ai.prompt[{position}]")


def _body(event: Mapping[str, Any]) -> dict[str, Any]:
    body = event["body"]
    if not isinstance(body, dict):
        raise RequestFormatError(f"event {event['name']} has no body object")
    return {key: decoded(value) for key, value in body.items()}


def _answer(attributes: Mapping[str, Any], events: list[dict[str, Any]]) -> Any:
    if "gen_ai.output.messages" in attributes:
        messages = decoded(attributes["gen_ai.output.messages"])
        return messages[0] if isinstance(messages, list) and messages else None
    for event in events:
        if event["name"] == CHOICE_EVENT:
            body = _body(event)
            if body.get("index") in (None, 0):
                message = body.get("message")
                return (
                    {**message, "finish_reason": body.get("finish_reason")}
                    if isinstance(message, dict)
                    else message
                )
        if event["name"] == "gen_ai.content.completion":
            completion = decoded(event["attributes"].get("gen_ai.completion"))
            return completion[0] if isinstance(completion, list) and completion else completion
    return None


def _turn(span: Mapping[str, Any], attributes: Mapping[str, Any], events: list[dict[str, Any]]) -> ParsedTurn:
    found = span.get("status")
    status: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    if status.get("code") in (2, "STATUS_CODE_ERROR"):
        kind = attributes.get("error.type") or "error"
        message = f"{kind}: {status.get('message') or ''}".rstrip(": ")
        return ParsedTurn(outcome=ProviderErrorOutcome(code="server", message=message))
    usage = Usage(
        input_tokens=token_count(attributes.get("gen_ai.usage.input_tokens")),
        output_tokens=token_count(attributes.get("gen_ai.usage.output_tokens")),
    )
    reasons = attributes.get("gen_ai.response.finish_reasons")
    finish = reasons[0] if isinstance(reasons, list) and reasons and isinstance(reasons[0], str) else None
    return answer_turn(Answer(_answer(attributes, events), usage, finish), "the span's answer")


def _duration_ms(span: Mapping[str, Any]) -> float | None:
    start, end = token_count(span.get("startTimeUnixNano")), token_count(span.get("endTimeUnixNano"))
    if start is None or end is None or end < start:
        return None
    return round((end - start) / 1e6, 3)


FORMAT = OtelFormat()
"""The ``otel`` format's reader."""

__all__ = [
    "CALL_OPERATIONS",
    "CHOICE_EVENT",
    "FORMAT",
    "MESSAGE_EVENTS",
    "OtelFormat",
    "any_value",
    "key_values",
]
