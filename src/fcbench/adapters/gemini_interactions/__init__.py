"""The ``gemini-interactions`` dialect: Google's Gemini Interactions API (``POST /interactions``).

Pure translation, no I/O: :mod:`.request` builds requests, :mod:`.response` reads
``Interaction`` bodies, :mod:`.stream` assembles SSE streams, :mod:`.schema` holds the tool-schema
rules, :mod:`.errors` reads error bodies with the ``gemini`` dialect's mapping (auth
``x-goog-api-key`` and retry hints shared with it). The base URL ends in the API version
(e.g. ``https://generativelanguage.googleapis.com/v1beta``).

Tool choice as sent (``generation_config.tool_choice``, protocols.md §4.6):

==============  ======================================================  ============================
canonical       wire                                                    meaning on this wire
==============  ======================================================  ============================
``auto``        ``"auto"`` (``"validated"`` when strict)                text or calls (``validated``:
                                                                        calls constrained to schema)
``required``    ``"any"``                                               must call some function
``tool:NAME``   ``{"allowed_tools": {"mode": "any", "tools": [NAME]}}``  must call that function
``none``        ``"none"``                                              no function call
==============  ======================================================  ============================

There is no parallel-call switch: ``parallel_tool_calls=False`` is not sent and a note says so.
Without tools neither ``tools`` nor ``tool_choice`` is sent.

Stateful continuation (:attr:`~fcbench.adapters.base.Capabilities.stateful_continuation`): with
``RequestOptions.previous_response_id`` (an interaction id, ``ParsedTurn.response_id``) the request
sends ``previous_interaction_id`` and only the messages after the last assistant turn; otherwise
the whole conversation is replayed, assistant turns from their raw steps (signatures included).
See :mod:`.request` for when ``store`` is sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from fcbench.adapters.base import BuiltRequest, Capabilities, ParsedTurn, RequestOptions, ToolChoice
from fcbench.adapters.gemini_interactions import errors, request, response, schema, stream
from fcbench.contract import Message, ProviderErrorOutcome, SchemaChange, Tool, ToolCall, ToolResultMessage


class GeminiInteractions:
    """Adapter for the Gemini Interactions API (stateless itself; one instance serves every request)."""

    dialect = "gemini-interactions"
    capabilities = Capabilities(
        tool_choice={
            "auto": "exact (validated instead of auto when strict)",
            "required": "exact",
            "named": "exact",
            "none": "exact",
        },
        parallel_control=False,
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
        """Translate a canonical request into a ``POST /interactions`` request."""
        return request.build_request(system, messages, tools, tool_choice, options)

    def transform_schema(self, tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
        """The ``parameters`` schema for ``tool`` (:mod:`.schema`), and the changes recorded."""
        return schema.transform_schema(tool, strict)

    def parse_response(self, body: Any, offered_tools: Sequence[str] | None = None) -> ParsedTurn:
        """Read one ``Interaction`` body into a canonical turn."""
        return response.parse_response(body, offered_tools)

    def parse_stream(
        self, events: Iterable[tuple[str | None, str]], offered_tools: Sequence[str] | None = None
    ) -> ParsedTurn:
        """Assemble an Interactions SSE stream into a canonical turn."""
        return stream.parse_stream(events, offered_tools)

    def tool_result_messages(
        self, calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
    ) -> list[dict[str, Any]]:
        """One ``function_result`` step per result, in call order, matched by call id."""
        return request.tool_result_messages(calls, results)

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """``x-goog-api-key``."""
        return errors.auth_headers(api_key)

    def parse_error(self, status: int, body: Any, headers: dict[str, str]) -> ProviderErrorOutcome:
        """Map an HTTP error response to a canonical provider error (Google's error shape)."""
        return errors.parse_error(status, body, headers)

    def retry_after_seconds(self, status: int, body: Any, headers: dict[str, str]) -> float | None:
        """``RetryInfo.retryDelay`` from the error details, else ``retry-after``."""
        return errors.retry_after_seconds(status, body, headers)


__all__ = ["GeminiInteractions"]
