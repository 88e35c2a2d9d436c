"""The ``openai-responses`` dialect: the OpenAI Responses API (``POST /responses``).

``tool_choice`` as this dialect defines it:

========  ==========================================  ==================================================
canonical wire value                                   meaning on the wire
========  ==========================================  ==================================================
auto      ``"auto"``                                   the model decides: text, one call or several
required  ``"required"``                               at least one call, any offered tool
none      ``"none"``                                   no call; the tools stay in the prompt
named     ``{"type": "function", "name": N}``          exactly that function is called
========  ==========================================  ==================================================

There is no finish reason: a call turn is ``status: "completed"`` with ``function_call`` output
items. ``parallel_tool_calls`` is sent only when the options set it. Tools always carry an explicit
``strict`` flag, because this API defaults to strict (and silently rewrites the schema) when the
flag is absent; strict mode applies the OpenAI strict schema rules (:mod:`.schema`, which reuses
:mod:`fcbench.adapters.openai_chat.schema`), every change recorded in ``BuiltRequest.schema_changes``.

Modules: ``request`` (build), ``response`` (response objects), ``stream`` (SSE assembly). Error
bodies, auth and retry hints are shared with ``openai-chat`` (:mod:`fcbench.adapters.openai_chat.errors`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from fcbench.adapters.base import BuiltRequest, Capabilities, ParsedTurn, RequestOptions, ToolChoice
from fcbench.adapters.common import order_results_by_calls
from fcbench.adapters.openai_chat import errors
from fcbench.adapters.openai_responses import request, response, schema, stream
from fcbench.contract import Message, ProviderErrorOutcome, SchemaChange, Tool, ToolCall, ToolResultMessage


class OpenAIResponses:
    """Adapter for the OpenAI Responses API and compatible servers (stateless, pure)."""

    dialect = "openai-responses"
    capabilities = Capabilities(
        tool_choice={"auto": "exact", "required": "exact", "none": "exact", "named": "exact"},
        parallel_control=True,
        strict_mode=True,
        streaming=True,
        stateful_continuation=True,
    )

    def build_request(
        self,
        system: str | None,
        messages: Sequence[Message],
        tools: Sequence[Tool],
        tool_choice: ToolChoice,
        options: RequestOptions,
    ) -> BuiltRequest:
        """A ``POST /responses`` request for the canonical conversation (stateless replay)."""
        return request.build_request(system, messages, tools, tool_choice, options)

    def transform_schema(self, tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
        """The ``parameters`` schema for ``tool`` under the OpenAI rules (:mod:`.schema`), and its changes."""
        return schema.transform_schema(tool, strict)

    def parse_response(self, body: Any, offered_tools: Sequence[str] | None = None) -> ParsedTurn:
        """Read a ``response`` object into a canonical turn."""
        return response.parse_response(body, offered_tools)

    def parse_stream(
        self, events: Iterable[tuple[str | None, str]], offered_tools: Sequence[str] | None = None
    ) -> ParsedTurn:
        """Assemble a Responses event stream into a canonical turn."""
        return stream.parse_stream(events, offered_tools)

    def tool_result_messages(
        self, calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
    ) -> list[dict[str, Any]]:
        """One ``function_call_output`` item per result, in the order of ``calls``, matched by call id."""
        return [request.output_item(r) for r in order_results_by_calls(calls, results)]

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """``Authorization: Bearer <key>`` (nothing without a key)."""
        return errors.auth_headers(api_key)

    def parse_error(self, status: int, body: Any, headers: dict[str, str]) -> ProviderErrorOutcome:
        """Map an HTTP error to a canonical provider error (same table as ``openai-chat``)."""
        return errors.parse_openai_error(status, body)

    def retry_after_seconds(self, status: int, body: Any, headers: dict[str, str]) -> float | None:
        """``retry-after-ms`` or ``retry-after`` in seconds, if sent."""
        return errors.retry_after_seconds(headers)


__all__ = ["OpenAIResponses"]
