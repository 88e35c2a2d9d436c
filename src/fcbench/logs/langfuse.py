"""Langfuse trace exports, read as logged exchanges.

Read: a trace as the UI's "Download JSON" and the public API's ``GET /api/public/traces/{id}`` give
it (``{"id", "name", "input", "output", "observations": [...], "scores": [...]}``), a list of
traces, an API page (``{"data": [...], "meta": {...}}``) of traces or of observations, or JSON
Lines of any of these (the table export). Every observation of ``type`` ``GENERATION`` is a model
request; spans, events and tool observations are ignored.

A generation's ``input`` is its chat messages (a list), or an object holding ``messages`` and
``tools`` (as the OpenAI integration records a request with tools); tools may also sit in
``metadata.tools``. ``output`` is the assistant message (or its text, or ``{"choices": [...]}``).
The model is ``model``, usage ``usageDetails`` or ``usage`` (``input``/``output``, or
``promptTokens``/``completionTokens``), the latency ``latency`` (seconds) or ``endTime`` minus
``startTime``. A generation at ``level: ERROR`` is a logged provider error (``statusMessage``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from fcbench.adapters.base import ParsedTurn
from fcbench.adapters.logged import History, RequestFormatError
from fcbench.contract import ProviderErrorOutcome, Usage
from fcbench.errors import InputError
from fcbench.logs.chat import Answer, add_message, answer_turn, decoded, read_tools, request_of, token_count
from fcbench.logs.traces import ReadItem, ReadOptions, TraceItem, json_documents, trace_item

GENERATION = "GENERATION"
"""The observation type of a model request."""


def _observations(document: Any) -> Iterator[dict[str, Any]]:
    """Every observation in a document (a trace, a list, an API page, or one observation)."""
    if isinstance(document, list):
        for item in document:
            yield from _observations(item)
    elif isinstance(document, dict):
        if isinstance(document.get("data"), list):
            yield from _observations(document["data"])
        elif isinstance(document.get("observations"), list):
            yield from (o for o in document["observations"] if isinstance(o, dict))
        elif "type" in document and ("input" in document or "output" in document):
            yield document


def _tokens(usage: Any, *keys: str) -> int | None:
    if not isinstance(usage, Mapping):
        return None
    for key in keys:
        count = token_count(usage.get(key))
        if count is not None:
            return count
    return None


def _usage(observation: Mapping[str, Any]) -> Usage:
    details, usage = observation.get("usageDetails"), observation.get("usage")
    return Usage(
        input_tokens=_tokens(details, "input") or _tokens(usage, "input", "promptTokens"),
        output_tokens=_tokens(details, "output") or _tokens(usage, "output", "completionTokens"),
    )


def _latency_ms(observation: Mapping[str, Any]) -> float | None:
    latency = observation.get("latency")
    if isinstance(latency, int | float) and not isinstance(latency, bool) and latency >= 0:
        return round(float(latency) * 1000, 3)
    try:
        start = datetime.fromisoformat(str(observation["startTime"]))
        end = datetime.fromisoformat(str(observation["endTime"]))
    except (KeyError, ValueError, TypeError):
        return None
    elapsed = (end - start).total_seconds() * 1000
    return round(elapsed, 3) if elapsed >= 0 else None


def _answer(output: Any) -> Any:
    output = decoded(output)
    if isinstance(output, dict) and isinstance(output.get("choices"), list) and output["choices"]:
        first = output["choices"][0]
        return first.get("message", first) if isinstance(first, dict) else first
    return output


class LangfuseFormat:
    """The ``langfuse`` log format (see the module docstring)."""

    def items(self, path: Path, text: str) -> list[TraceItem]:
        """Every observation of the file."""
        documents = json_documents(path, text)
        items = []
        for start, document in documents:
            for observation in _observations(document):
                items.append(
                    trace_item(
                        text, start, search=len(documents) == 1, kind="generation",
                        name=observation.get("name"), ident=str(observation.get("id") or ""),
                        data=observation,
                    )
                )  # fmt: skip
        if not items:
            raise InputError("is not a Langfuse trace export (no observations found)", path=str(path))
        return items

    def is_call(self, item: TraceItem) -> bool:
        """A generation."""
        return item.data.get("type") == GENERATION

    def read(self, item: TraceItem, options: ReadOptions) -> ReadItem:
        """The generation's request and answer."""
        observation: dict[str, Any] = item.data
        given = decoded(observation.get("input"))
        found = observation.get("metadata")
        metadata: dict[str, Any] = found if isinstance(found, dict) else {}
        messages = given.get("messages") if isinstance(given, dict) else given
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        if not isinstance(messages, list):
            raise RequestFormatError("input must be a list of chat messages or an object with messages")
        history = History()
        for index, message in enumerate(messages):
            add_message(history, message, f"input.messages[{index}]")
        listed = given.get("tools") if isinstance(given, dict) and "tools" in given else metadata.get("tools")
        tools = read_tools(listed, "tools")
        if not tools and listed is None and options.tools:
            tools = list(options.tools)
            history.notes.append("the tool definitions (not recorded: the tools of --tools were offered)")
        request = request_of(history, tools, observation.get("model"))
        return ReadItem(request, _turn(observation), observation, _latency_ms(observation), request.model)


def _turn(observation: Mapping[str, Any]) -> ParsedTurn:
    if observation.get("level") == "ERROR":
        message = str(observation.get("statusMessage") or "error")
        return ParsedTurn(outcome=ProviderErrorOutcome(code="server", message=message))
    return answer_turn(Answer(_answer(observation.get("output")), _usage(observation)), "output")


FORMAT = LangfuseFormat()
"""The ``langfuse`` format's reader."""

__all__ = ["FORMAT", "GENERATION", "LangfuseFormat"]
