"""The ``gemini`` dialect: Google's Gemini API ``generateContent`` / ``streamGenerateContent``.

Pure translation, no I/O: :mod:`.request` builds requests, :mod:`.response` reads JSON bodies,
:mod:`.stream` assembles SSE streams, :mod:`.errors` maps error bodies. The base URL ends in the
API version (e.g. ``https://generativelanguage.googleapis.com/v1beta``).

Tool choice as sent (``toolConfig.functionCallingConfig``, protocols.md §4.1):

==============  ==================================================  ==============================
canonical       wire                                                meaning on this wire
==============  ==================================================  ==============================
``auto``        ``{"mode": "AUTO"}`` (``VALIDATED`` when strict)    text or calls (``VALIDATED``:
                                                                    calls constrained to schema)
``required``    ``{"mode": "ANY"}``                                 must call some function
``tool:NAME``   ``{"mode": "ANY", "allowedFunctionNames": [NAME]}`` must call that function
``none``        ``{"mode": "NONE"}``                                as if no functions were declared
==============  ==================================================  ==============================

There is no parallel-call switch: ``parallel_tool_calls=False`` is not sent and a note says so.
Without tools neither ``tools`` nor ``toolConfig`` is sent. Calls may lack ids: see
:data:`fcbench.adapters.gemini.request.CALL_KEY_PREFIX` for how results are tied to them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from fcbench.adapters.base import BuiltRequest, Capabilities, ParsedTurn, RequestOptions, ToolChoice
from fcbench.adapters.gemini import errors, request, response, schema, stream
from fcbench.contract import Message, ProviderErrorOutcome, SchemaChange, Tool, ToolCall, ToolResultMessage


class Gemini:
    """Adapter for the Gemini API (stateless; one instance serves every request)."""

    dialect = "gemini"
    capabilities = Capabilities(
        tool_choice={
            "auto": "exact (VALIDATED instead of AUTO when strict)",
            "required": "exact",
            "named": "exact",
            "none": "exact",
        },
        parallel_control=False,
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
        """Translate a canonical request into a ``generateContent`` request."""
        return request.build_request(system, messages, tools, tool_choice, options)

    def transform_schema(self, tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
        """The ``parametersJsonSchema`` for ``tool`` (:mod:`.schema`), and the change recorded."""
        return schema.transform_schema(tool, strict)

    def parse_response(self, body: Any, offered_tools: Sequence[str] | None = None) -> ParsedTurn:
        """Read one non-streamed body into a canonical turn."""
        return response.parse_response(body, offered_tools)

    def parse_stream(
        self, events: Iterable[tuple[str | None, str]], offered_tools: Sequence[str] | None = None
    ) -> ParsedTurn:
        """Assemble a ``streamGenerateContent?alt=sse`` stream into a canonical turn."""
        return stream.parse_stream(events, offered_tools)

    def tool_result_messages(
        self, calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
    ) -> list[dict[str, Any]]:
        """One ``user`` turn of ``functionResponse`` parts, in call order."""
        return request.tool_result_messages(calls, results)

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """``x-goog-api-key``."""
        return errors.auth_headers(api_key)

    def parse_error(self, status: int, body: Any, headers: dict[str, str]) -> ProviderErrorOutcome:
        """Map an HTTP error response to a canonical provider error."""
        return errors.parse_error(status, body, headers)

    def retry_after_seconds(self, status: int, body: Any, headers: dict[str, str]) -> float | None:
        """``RetryInfo.retryDelay`` from the error details, else ``retry-after``."""
        return errors.retry_after_seconds(status, body, headers)


__all__ = ["Gemini"]
