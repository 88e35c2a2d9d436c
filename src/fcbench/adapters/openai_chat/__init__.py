"""The ``openai-chat`` dialect: OpenAI Chat Completions (``POST /chat/completions``).

Also spoken by vLLM, Ollama, llama.cpp, LM Studio, Azure OpenAI and OpenRouter, each with its own
deviations (protocols.md §5); the adapter records those as anomalies instead of smoothing them.

``tool_choice`` as this dialect defines it:

========  ==============================================  ===============================================
canonical wire value                                       meaning on the wire
========  ==============================================  ===============================================
auto      ``"auto"``                                       the model decides: text, one call or several
required  ``"required"``                                   at least one call, any offered tool
none      ``"none"``                                       no call; the tools stay in the prompt
named     ``{"type": "function",                           exactly that function is called; OpenAI then
          "function": {"name": N}}``                       answers ``finish_reason: "stop"``, not
                                                           ``"tool_calls"`` (so ``stop`` with calls is not
                                                           an anomaly)
========  ==============================================  ===============================================

``parallel_tool_calls`` is sent only when the options set it (``false`` = at most one call).
Strict mode sets ``"strict": true`` per function and applies the OpenAI strict schema rules
(:mod:`.schema`), every change recorded in ``BuiltRequest.schema_changes``.

Modules: ``request`` (build), ``response`` (JSON responses), ``stream`` (SSE assembly), ``errors``
(error bodies, auth and retry hints, shared with ``openai-responses``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from fcbench.adapters.base import BuiltRequest, Capabilities, ParsedTurn, RequestOptions, ToolChoice
from fcbench.adapters.common import order_results_by_calls
from fcbench.adapters.openai_chat import errors, request, response, schema, stream
from fcbench.contract import Message, ProviderErrorOutcome, SchemaChange, Tool, ToolCall, ToolResultMessage


class OpenAIChat:
    """Adapter for OpenAI Chat Completions and compatible servers (stateless, pure)."""

    dialect = "openai-chat"
    capabilities = Capabilities(
        tool_choice={
            "auto": "exact",
            "required": "exact",
            "none": "exact",
            "named": "exact; finish_reason is 'stop' rather than 'tool_calls'",
        },
        parallel_control=True,
        strict_mode=True,
        streaming=True,
    )

    def build_request(
        self,
        system: str | None,
        messages: Sequence[Message],
        tools: Sequence[Tool],
        tool_choice: ToolChoice,
        options: RequestOptions,
    ) -> BuiltRequest:
        """A ``POST /chat/completions`` request for the canonical conversation."""
        return request.build_request(system, messages, tools, tool_choice, options)

    def transform_schema(self, tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
        """The ``parameters`` schema for ``tool`` under the OpenAI rules (:mod:`.schema`), and its changes."""
        return schema.transform_schema(tool, strict)

    def parse_response(self, body: Any, offered_tools: Sequence[str] | None = None) -> ParsedTurn:
        """Read a ``chat.completion`` body into a canonical turn."""
        return response.parse_response(body, offered_tools)

    def parse_stream(
        self, events: Iterable[tuple[str | None, str]], offered_tools: Sequence[str] | None = None
    ) -> ParsedTurn:
        """Assemble a ``chat.completion.chunk`` stream into a canonical turn."""
        return stream.parse_stream(events, offered_tools)

    def tool_result_messages(
        self, calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
    ) -> list[dict[str, Any]]:
        """One ``role: tool`` message per result, in the order of ``calls``, matched by call id."""
        return [request.tool_message(r) for r in order_results_by_calls(calls, results)]

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """``Authorization: Bearer <key>`` (nothing without a key)."""
        return errors.auth_headers(api_key)

    def parse_error(self, status: int, body: Any, headers: dict[str, str]) -> ProviderErrorOutcome:
        """Map an HTTP error to a canonical provider error (table in :mod:`.errors`)."""
        return errors.parse_openai_error(status, body)

    def retry_after_seconds(self, status: int, body: Any, headers: dict[str, str]) -> float | None:
        """``retry-after-ms`` or ``retry-after`` in seconds, if sent."""
        return errors.retry_after_seconds(headers)


__all__ = ["OpenAIChat"]
