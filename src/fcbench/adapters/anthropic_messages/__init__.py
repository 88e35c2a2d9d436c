"""The ``anthropic-messages`` dialect: Anthropic's Messages API (``POST /v1/messages``).

Pure translation, no I/O: :mod:`.request` builds requests, :mod:`.response` reads JSON bodies,
:mod:`.stream` assembles SSE streams, :mod:`.errors` maps error bodies. The base URL is given
without ``/v1`` (e.g. ``https://api.anthropic.com``).

Tool choice as sent (protocols.md §3.1):

==============  ===============================================  ===================================
canonical       wire ``tool_choice``                              meaning on this wire
==============  ===============================================  ===================================
``auto``        ``{"type": "auto"}``                             the model decides
``required``    ``{"type": "any"}``                              must use some tool; no text first
``tool:NAME``   ``{"type": "tool", "name": NAME}``               must use that tool; no text first
``none``        ``{"type": "none"}``                             no tool use (tools stay declared)
==============  ===============================================  ===================================

``parallel_tool_calls=False`` adds ``"disable_parallel_tool_use": true`` to ``auto`` (at most one
call), ``any`` and ``tool`` (exactly one call); ``none`` needs no switch. ``strict=True`` adds
``"strict": true`` to each tool and applies the strict schema rules (:mod:`.schema`). Without
tools neither ``tools`` nor ``tool_choice`` is sent.

Assistant turns keep ``provider_state = {"anthropic-messages": {"content": [...]}}``: the
response's ``content`` blocks, replayed unchanged when the turn goes back into a request.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from fcbench.adapters.anthropic_messages import errors, request, response, schema, stream
from fcbench.adapters.base import (
    BuiltRequest,
    Capabilities,
    ParsedTurn,
    RequestOptions,
    ToolChoice,
)
from fcbench.contract import Message, ProviderErrorOutcome, SchemaChange, Tool, ToolCall, ToolResultMessage


class AnthropicMessages:
    """Adapter for the Anthropic Messages API (stateless; one instance serves every request)."""

    dialect = "anthropic-messages"
    capabilities = Capabilities(
        tool_choice={"auto": "exact", "required": "exact", "named": "exact", "none": "exact"},
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
        """Translate a canonical request into a Messages request."""
        return request.build_request(system, messages, tools, tool_choice, options)

    def transform_schema(self, tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
        """The ``input_schema`` for ``tool`` under the Anthropic rules (:mod:`.schema`), and its changes."""
        return schema.transform_schema(tool, strict)

    def parse_response(self, body: Any, offered_tools: Sequence[str] | None = None) -> ParsedTurn:
        """Read one non-streamed Messages body into a canonical turn."""
        return response.parse_response(body, offered_tools)

    def parse_stream(
        self, events: Iterable[tuple[str | None, str]], offered_tools: Sequence[str] | None = None
    ) -> ParsedTurn:
        """Assemble a Messages SSE stream into a canonical turn."""
        return stream.parse_stream(events, offered_tools)

    def tool_result_messages(
        self, calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
    ) -> list[dict[str, Any]]:
        """One ``user`` message of ``tool_result`` blocks, in call order, matched by call id."""
        return request.tool_result_messages(calls, results)

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """``x-api-key`` and ``anthropic-version: 2023-06-01``."""
        return errors.auth_headers(api_key)

    def parse_error(self, status: int, body: Any, headers: dict[str, str]) -> ProviderErrorOutcome:
        """Map an HTTP error response to a canonical provider error."""
        return errors.parse_error(status, body, headers)

    def retry_after_seconds(self, status: int, body: Any, headers: dict[str, str]) -> float | None:
        """The ``retry-after-ms``/``retry-after`` header, in seconds."""
        return errors.retry_after_seconds(status, body, headers)


__all__ = ["AnthropicMessages"]
