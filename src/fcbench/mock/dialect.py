"""The interface each wire dialect of the mock implements, and the registry of dialects.

A dialect decodes its wire request into a :class:`~fcbench.mock.common.Decoded` (rejecting what
the real provider rejects), encodes a :class:`~fcbench.mock.sim.base.SimReply` as a JSON body or
a list of stream events, and renders errors in the provider's shape. The app owns everything
else (routing, auth order, faults, models), so adding a dialect is one module plus one line in
:data:`DIALECTS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from fcbench.mock.common import Decoded, MockError, RenderContext, SseEvent
from fcbench.mock.sim.base import SimReply
from fcbench.mock.wire import SSE_TYPE

DIALECTS: Mapping[str, str] = {
    "openai-chat": "fcbench.mock.openai_chat:OpenAIChatDialect",
    "openai-responses": "fcbench.mock.openai_responses:OpenAIResponsesDialect",
    "anthropic-messages": "fcbench.mock.anthropic_messages:AnthropicMessagesDialect",
    "bedrock-converse": "fcbench.mock.bedrock_converse:BedrockConverseDialect",
    "gemini": "fcbench.mock.gemini:GeminiDialect",
    "gemini-interactions": "fcbench.mock.gemini_interactions:GeminiInteractionsDialect",
}
"""Dialect name -> ``module:Class``; each app instance creates its own dialect objects."""


class RouteInfo(Protocol):
    """What the app tells a dialect about the HTTP request besides the JSON body."""

    @property
    def path_model(self) -> str | None:
        """Model named in the URL path (Gemini, Bedrock), if any."""
        ...

    @property
    def path_stream(self) -> bool:
        """Whether the URL path selects streaming (Gemini ``:streamGenerateContent``, Bedrock
        ``/converse-stream``)."""
        ...


class Dialect(Protocol):
    """One wire dialect of the mock provider."""

    name: str
    error_status: Mapping[str, int]
    """Error kind -> HTTP status for this provider."""

    def api_key(self, headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
        """The API key the request carries, or None when there is none."""
        ...

    def check_headers(self, headers: Mapping[str, str]) -> None:
        """Reject requests missing a header the provider requires (raises MockError)."""
        ...

    def missing_key(self) -> MockError:
        """The provider's answer to a request without a usable key."""
        ...

    def invalid_json(self, detail: str) -> MockError:
        """The provider's answer to a body that is not JSON."""
        ...

    def model_not_found(self, model: str) -> MockError:
        """The provider's answer to an unknown model."""
        ...

    def decode(self, body: Any, route: RouteInfo) -> Decoded:
        """Decode and accept a request body (raises MockError with the provider's wording)."""
        ...

    def render(self, reply: SimReply, decoded: Decoded, ctx: RenderContext) -> dict[str, Any]:
        """The non-streaming response body."""
        ...

    def render_stream(self, reply: SimReply, decoded: Decoded, ctx: RenderContext) -> list[SseEvent]:
        """The stream events, terminator included."""
        ...

    def stream_error(self, error: MockError, ctx: RenderContext, position: int) -> SseEvent:
        """An error reported inside an already started stream, as its ``position``-th event."""
        ...

    def error_body(self, error: MockError, request_id: str) -> tuple[dict[str, Any], dict[str, str]]:
        """Error body and extra response headers (status comes from :meth:`status_of`)."""
        ...

    def frame(self, event: SseEvent) -> bytes:
        """One stream event as bytes on the wire (served as :func:`stream_media_type`)."""
        ...

    def models_list(self, names: Sequence[str]) -> dict[str, Any]:
        """A model listing in the provider's shape."""
        ...


def status_of(dialect: Dialect, error: MockError) -> int:
    """The HTTP status a dialect answers ``error`` with."""
    return error.status or dialect.error_status.get(error.kind, 400)


def stream_media_type(dialect: Dialect) -> str:
    """The media type of ``dialect``'s stream bodies: its ``stream_media_type`` attribute (a
    dialect whose :meth:`Dialect.frame` is not SSE sets it, e.g. Bedrock's event stream), else SSE."""
    media_type = getattr(dialect, "stream_media_type", None)
    return media_type if isinstance(media_type, str) else SSE_TYPE


def load_dialects() -> dict[str, Dialect]:
    """Fresh instances of every registered dialect (dialects may keep per-app state)."""
    out: dict[str, Dialect] = {}
    for name, target in DIALECTS.items():
        module_name, _, class_name = target.partition(":")
        cls = getattr(importlib.import_module(module_name), class_name)
        out[name] = cls()
    return out


def frame_named(event: SseEvent) -> bytes:
    """``event: NAME`` + ``data: JSON`` framing (Responses, Anthropic)."""
    head = b"event: " + event.event.encode() + b"\n" if event.event else b""
    return head + b"data: " + event.data_bytes() + b"\n\n"


def bearer_token(headers: Mapping[str, str]) -> str | None:
    """The token of an ``Authorization: Bearer`` header, if any and non-empty."""
    value = headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return None
