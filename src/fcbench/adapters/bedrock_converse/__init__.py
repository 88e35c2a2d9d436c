"""The ``bedrock-converse`` dialect: Amazon Bedrock Runtime's Converse API.

``POST /model/{modelId}/converse`` and ``/model/{modelId}/converse-stream``. Pure translation,
no I/O: :mod:`.request` builds requests, :mod:`.response` reads JSON bodies, :mod:`.stream`
assembles streams, :mod:`.errors` maps error responses. The base URL is the regional runtime
host (e.g. ``https://bedrock-runtime.us-east-1.amazonaws.com``); the key is a Bedrock API key,
sent as ``Authorization: Bearer`` (no SigV4 signing). Streams are AWS event-stream binary frames,
not SSE (:attr:`Capabilities.stream_framing` ``aws-eventstream``).

Tool choice as sent (``toolConfig.toolChoice``):

==============  ==================================  ==========================================
canonical       wire ``toolChoice``                 meaning on this wire
==============  ==================================  ==========================================
``auto``        ``{"auto": {}}``                    the model decides
``required``    ``{"any": {}}``                     must use some tool
``tool:NAME``   ``{"tool": {"name": NAME}}``        must use that tool
``none``        no ``toolConfig`` at all             approximated: the model sees no tools;
                (``toolConfig`` without             when the history holds toolUse/toolResult
                ``toolChoice`` when the history     blocks, which need ``toolConfig``, the tools
                holds tool blocks)                  are sent with the default (auto) choice
==============  ==================================  ==========================================

Converse has no ``none`` choice, so ``none`` is approximated as above and a note in
:attr:`~fcbench.adapters.base.BuiltRequest.notes` says which way. There is no parallel-call
switch and no strict flag: ``parallel_tool_calls=False`` and ``strict=True`` are not sent, and a
note says so. ``temperature`` and ``max_tokens`` go in ``inferenceConfig``; a target's ``params``
(merged into the body) reach the rest, e.g. ``{"inferenceConfig": {"topP": 0.9, "stopSequences":
["###"]}, "additionalModelRequestFields": {"top_k": 50}}``.

Assistant turns keep ``provider_state = {"bedrock-converse": {"content": [...]}}``: the
response's ``output.message.content`` blocks, replayed unchanged when the turn goes back into a
request.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from fcbench.adapters.base import BuiltRequest, Capabilities, ParsedTurn, RequestOptions, ToolChoice
from fcbench.adapters.bedrock_converse import errors, request, response, schema, stream
from fcbench.contract import Message, ProviderErrorOutcome, SchemaChange, Tool, ToolCall, ToolResultMessage


class BedrockConverse:
    """Adapter for the Bedrock Converse API (stateless; one instance serves every request)."""

    dialect = "bedrock-converse"
    capabilities = Capabilities(
        tool_choice={
            "auto": "exact",
            "required": "exact",
            "named": "exact",
            "none": "approximated: tools not sent (sent with auto when the history holds tool blocks)",
        },
        parallel_control=False,
        strict_mode=False,
        streaming=True,
        stream_framing="aws-eventstream",
    )

    def build_request(
        self,
        system: str | None,
        messages: Sequence[Message],
        tools: Sequence[Tool],
        tool_choice: ToolChoice,
        options: RequestOptions,
    ) -> BuiltRequest:
        """Translate a canonical request into a ``Converse`` request."""
        return request.build_request(system, messages, tools, tool_choice, options)

    def transform_schema(self, tool: Tool, strict: bool) -> tuple[dict[str, Any], list[SchemaChange]]:
        """The ``inputSchema.json`` for ``tool`` (:mod:`.schema`), and the change recorded."""
        return schema.transform_schema(tool, strict)

    def parse_response(self, body: Any, offered_tools: Sequence[str] | None = None) -> ParsedTurn:
        """Read one non-streamed Converse body into a canonical turn."""
        return response.parse_response(body, offered_tools)

    def parse_stream(
        self, events: Iterable[tuple[str | None, str]], offered_tools: Sequence[str] | None = None
    ) -> ParsedTurn:
        """Assemble a ConverseStream (decoded event-stream frames) into a canonical turn."""
        return stream.parse_stream(events, offered_tools)

    def tool_result_messages(
        self, calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
    ) -> list[dict[str, Any]]:
        """One ``user`` message of ``toolResult`` blocks, in call order, matched by call id."""
        return request.tool_result_messages(calls, results)

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """``Authorization: Bearer <Bedrock API key>``."""
        return errors.auth_headers(api_key)

    def parse_error(self, status: int, body: Any, headers: dict[str, str]) -> ProviderErrorOutcome:
        """Map an HTTP error response (type in ``x-amzn-ErrorType``) to a canonical provider error."""
        return errors.parse_error(status, body, headers)

    def retry_after_seconds(self, status: int, body: Any, headers: dict[str, str]) -> float | None:
        """A ``retry-after`` header, in seconds (Bedrock sends no hint of its own)."""
        return errors.retry_after_seconds(status, body, headers)


__all__ = ["BedrockConverse"]
