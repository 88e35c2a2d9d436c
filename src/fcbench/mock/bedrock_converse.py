"""Amazon Bedrock Converse (``POST /model/{modelId}/converse``, ``/converse-stream``) for the mock.

Wire facts: the model id is in the path; the key is a Bedrock API key as
``Authorization: Bearer`` (a SigV4 ``Authorization: AWS4-HMAC-SHA256 Credential=...`` header is
accepted too, its access key id taken as the key, the signature not checked); system text and
turns are lists of content blocks; calls are ``toolUse`` blocks with an object ``input`` and
``tooluse_`` ids; results come back as ``toolResult`` blocks of the next user message. Errors
are ``{"message": ...}`` with the type in the ``x-amzn-ErrorType`` header. Streams are AWS
event-stream binary frames (``application/vnd.amazon.eventstream``), encoded here by
:func:`encode_frame`: ``messageStart``, per block ``contentBlockStart`` (tool blocks only),
``contentBlockDelta`` and ``contentBlockStop``, then ``messageStop`` and ``metadata``; an error
inside a stream is an exception frame. A refusal is ``stopReason: guardrail_intervened``.

Request decoding and its rejections are in :mod:`fcbench.mock.bedrock_converse_input`.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from fcbench.contract import wire_text
from fcbench.mock.bedrock_converse_input import check_inference_config, decode_messages, decode_tools
from fcbench.mock.common import Decoded, MockError, RenderContext, SseEvent, parse_arguments, text_pieces
from fcbench.mock.dialect import RouteInfo, bearer_token
from fcbench.mock.sim.base import SimReply, SimRequest

EVENTSTREAM_TYPE = "application/vnd.amazon.eventstream"
"""The media type of a ConverseStream body."""
EXCEPTION_PREFIX = "exception:"
"""An :class:`SseEvent` whose name starts with this is framed as an exception message."""

_ERROR_STATUS: Mapping[str, int] = {
    "invalid_request": 400,
    "auth": 403,
    "not_found": 404,
    "rate_limit": 429,
    "server": 500,
    "overloaded": 503,
    "timeout": 504,
}
"""Error kind -> status. ``timeout`` is the 504 a gateway gives after the mock's hang (a model
timing out is Bedrock's 408 ``ModelTimeoutException``)."""
_ERROR_TYPE: Mapping[str, str] = {
    "invalid_request": "ValidationException",
    "auth": "AccessDeniedException",
    "not_found": "ResourceNotFoundException",
    "rate_limit": "ThrottlingException",
    "server": "InternalServerException",
    "overloaded": "ServiceUnavailableException",
    "timeout": "ModelTimeoutException",
}
_ERROR_NAMESPACE = "http://internal.amazon.com/coral/com.amazon.bedrock/"
_STOP_REASON: Mapping[str, str] = {"calls": "tool_use", "text": "end_turn", "refusal": "guardrail_intervened"}
_REFUSAL_TEXT = "Sorry, the model cannot answer this question."
_SIGV4 = "AWS4-HMAC-SHA256"
_STRING_HEADER = 7


def encode_frame(headers: Mapping[str, str], payload: bytes) -> bytes:
    """One event-stream message with string headers, both CRC32 checksums included."""
    encoded = b"".join(
        struct.pack(">B", len(name.encode()))
        + name.encode()
        + struct.pack(">BH", _STRING_HEADER, len(value.encode()))
        + value.encode()
        for name, value in headers.items()
    )
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack(">II", total, len(encoded))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + encoded + payload
    return body + struct.pack(">I", zlib.crc32(body))


def _sigv4_key(headers: Mapping[str, str]) -> str | None:
    scheme, _, rest = headers.get("authorization", "").partition(" ")
    if scheme != _SIGV4:
        return None
    for part in rest.split(","):
        name, _, value = part.strip().partition("=")
        if name == "Credential" and value.split("/", 1)[0]:
            return value.split("/", 1)[0]
    return None


class BedrockConverseDialect:
    """Encoder/decoder for the Bedrock Runtime Converse API."""

    name = "bedrock-converse"
    error_status: Mapping[str, int] = _ERROR_STATUS
    stream_media_type = EVENTSTREAM_TYPE

    def api_key(self, headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
        """``Authorization: Bearer`` (a Bedrock API key), or a SigV4 header's access key id."""
        return bearer_token(headers) or _sigv4_key(headers)

    def check_headers(self, headers: Mapping[str, str]) -> None:
        """Bedrock requires no header besides the authorization."""

    def missing_key(self) -> MockError:
        """403 ``MissingAuthenticationTokenException``."""
        return MockError("auth", "Missing Authentication Token", code="MissingAuthenticationTokenException")

    def invalid_json(self, detail: str) -> MockError:
        """400 for a body that is not JSON."""
        return MockError(
            "invalid_request",
            f"Malformed input request: the body is not valid JSON ({detail}), please reformat your input "
            "and try again.",
        )

    def model_not_found(self, model: str) -> MockError:
        """400 ``ValidationException``, Bedrock's recorded answer to an unknown model id (which it
        does not repeat)."""
        return MockError("invalid_request", "The provided model identifier is invalid.")

    def error_body(self, error: MockError, request_id: str) -> tuple[dict[str, Any], dict[str, str]]:
        """``{"message": ...}`` with ``x-amzn-ErrorType`` and ``x-amzn-RequestId``."""
        kind = error.code if error.code is not None else _ERROR_TYPE.get(error.kind, "ValidationException")
        headers = {"x-amzn-ErrorType": f"{kind}:{_ERROR_NAMESPACE}", "x-amzn-RequestId": request_id}
        if error.kind == "rate_limit":
            # Bedrock's own 429 carries no hint; the mock's rate_limit fault announces one, as it does
            # in every dialect, so a run against the mock can exercise hint-driven waits.
            headers["retry-after"] = str(error.retry_after if error.retry_after is not None else 1)
        return {"message": error.message}, headers

    def models_list(self, names: Sequence[str]) -> dict[str, Any]:
        """A ``ListFoundationModels``-shaped listing."""
        return {
            "modelSummaries": [
                {"modelId": name, "modelName": name, "providerName": "fcbench", "outputModalities": ["TEXT"]}
                for name in names
            ]
        }

    # ---------------------------------------------------------------- decoding
    def decode(self, body: Any, route: RouteInfo) -> Decoded:
        """Decode a ``Converse`` / ``ConverseStream`` body (the model comes from the path)."""
        if not isinstance(body, dict):
            raise MockError(
                "invalid_request",
                "Malformed input request: expected a JSON object, please reformat your input and try again.",
            )
        model = route.path_model or ""
        check_inference_config(body.get("inferenceConfig"))
        tools, choice = decode_tools(body.get("toolConfig"))
        turns = decode_messages(body.get("messages"), body.get("toolConfig") is not None)
        request = SimRequest(
            model=model,
            system=wire_text(body.get("system")),
            turns=turns,
            tools=tools,
            tool_choice=choice,
            parallel_allowed=True,
        )
        return Decoded(model, route.path_stream, request, {})

    # ---------------------------------------------------------------- encoding
    def render(self, reply: SimReply, decoded: Decoded, ctx: RenderContext) -> dict[str, Any]:
        """A ``ConverseResponse``."""
        return {
            "output": {
                "message": {"role": "assistant", "content": [block for block, _ in _blocks(reply, ctx)]}
            },
            "stopReason": _STOP_REASON[reply.kind],
            "usage": _usage(ctx),
            "metrics": {"latencyMs": 100 + ctx.output_tokens},
        }

    def render_stream(self, reply: SimReply, decoded: Decoded, ctx: RenderContext) -> list[SseEvent]:
        """``messageStart`` ... ``messageStop``, then ``metadata``."""
        events = [_event("messageStart", {"role": "assistant"}, ctx)]
        for index, (block, raw) in enumerate(_blocks(reply, ctx)):
            use = block.get("toolUse")
            deltas: list[dict[str, Any]]
            if use is None:
                deltas = [{"text": piece} for piece in text_pieces(block["text"])]
            else:
                start = {"toolUse": {"toolUseId": use["toolUseId"], "name": use["name"]}}
                events.append(_event("contentBlockStart", {"start": start, "contentBlockIndex": index}, ctx))
                deltas = [{"toolUse": {"input": part}} for part in ctx.argument_fragments(raw)]
            events.extend(
                _event("contentBlockDelta", {"delta": delta, "contentBlockIndex": index}, ctx)
                for delta in deltas
            )
            events.append(_event("contentBlockStop", {"contentBlockIndex": index}, ctx))
        events.append(_event("messageStop", {"stopReason": _STOP_REASON[reply.kind]}, ctx))
        metrics = {"latencyMs": 100 + ctx.output_tokens}
        events.append(SseEvent("metadata", {"usage": _usage(ctx), "metrics": metrics}))
        return events

    def stream_error(self, error: MockError, ctx: RenderContext, position: int) -> SseEvent:
        """An exception frame, e.g. ``serviceUnavailableException`` with ``{"message": ...}``."""
        kind = _ERROR_TYPE.get(error.kind, "InternalServerException")
        return SseEvent(EXCEPTION_PREFIX + kind[:1].lower() + kind[1:], {"message": error.message})

    def frame(self, event: SseEvent) -> bytes:
        """The event as one event-stream message (an exception message for ``exception:`` names)."""
        name = event.event or ""
        if name.startswith(EXCEPTION_PREFIX):
            headers = {
                ":exception-type": name.removeprefix(EXCEPTION_PREFIX),
                ":content-type": "application/json",
                ":message-type": "exception",
            }
        else:
            headers = {":event-type": name, ":content-type": "application/json", ":message-type": "event"}
        return encode_frame(headers, event.data_bytes())


def _event(name: str, data: dict[str, Any], ctx: RenderContext) -> SseEvent:
    """A stream event with the ``p`` padding real streams carry."""
    return SseEvent(name, {**data, "p": ctx.ids.padding()})


def _usage(ctx: RenderContext) -> dict[str, int]:
    return {
        "inputTokens": ctx.input_tokens,
        "outputTokens": ctx.output_tokens,
        "totalTokens": ctx.input_tokens + ctx.output_tokens,
    }


def _blocks(reply: SimReply, ctx: RenderContext) -> list[tuple[dict[str, Any], str]]:
    """Content blocks, each with its raw argument text (streamed as ``input`` fragments)."""
    if reply.kind == "refusal":
        return [({"text": reply.text or _REFUSAL_TEXT}, "")]
    blocks: list[tuple[dict[str, Any], str]] = [({"text": reply.text}, "")] if reply.text else []
    if reply.kind == "calls":
        for call in reply.calls:
            ok, value = parse_arguments(call.arguments_json)
            # Broken argument text cannot be a document; it is passed as the raw string so clients see it.
            use = {
                "toolUseId": call.id or ctx.ids.make("tooluse_", 22),
                "name": call.name,
                "input": value if ok else call.arguments_json,
            }
            blocks.append(({"toolUse": use}, call.arguments_json))
    return blocks
