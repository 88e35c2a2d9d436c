"""Gemini ``generateContent`` / ``streamGenerateContent`` for the mock provider.

Wire facts follow protocols.md section 4: the model is in the path, keys come as
``x-goog-api-key`` or ``?key=``, fields may be camelCase or snake_case, ``functionCall`` parts
carry an object ``args`` (whole, never split across stream chunks) with a ``thoughtSignature``
beside the first one, ``finishReason`` is ``STOP`` even for calls, results come back as one user
turn of ``functionResponse`` parts, and a bad key is a 400 ``API_KEY_INVALID``.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any

from fcbench.mock.common import (
    URL_SAFE,
    Decoded,
    MockError,
    RenderContext,
    SseEvent,
    parse_arguments,
    text_pieces,
)
from fcbench.mock.dialect import RouteInfo
from fcbench.mock.gemini_input import decode_choice, decode_contents, decode_tools, text_of_parts
from fcbench.mock.sim.base import SimReply, SimRequest
from fcbench.schema.gemini import gemini_field as field

_ERROR_STATUS: Mapping[str, int] = {
    "invalid_request": 400,
    "auth": 400,
    "not_found": 404,
    "rate_limit": 429,
    "server": 500,
    "overloaded": 503,
    "timeout": 504,
}
_STATUS_NAME: Mapping[str, str] = {
    "invalid_request": "INVALID_ARGUMENT",
    "auth": "INVALID_ARGUMENT",
    "not_found": "NOT_FOUND",
    "rate_limit": "RESOURCE_EXHAUSTED",
    "server": "INTERNAL",
    "overloaded": "UNAVAILABLE",
    "timeout": "DEADLINE_EXCEEDED",
}


def _bad(message: str) -> MockError:
    return MockError("invalid_request", message)


class GeminiDialect:
    """Encoder/decoder for the Gemini Developer API."""

    name = "gemini"
    error_status: Mapping[str, int] = _ERROR_STATUS

    def api_key(self, headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
        """``x-goog-api-key`` header, ``key=`` query parameter, or (Vertex AI) a bearer token."""
        bearer = headers.get("authorization", "").removeprefix("Bearer ").strip()
        key = headers.get("x-goog-api-key", "").strip() or query.get("key", "").strip() or bearer
        return key or None

    def check_headers(self, headers: Mapping[str, str]) -> None:
        """Gemini requires no header besides the key."""

    def missing_key(self) -> MockError:
        """400 ``API_KEY_INVALID`` (Gemini never answers 401)."""
        return MockError("auth", "API key not valid. Please pass a valid API key.")

    def invalid_json(self, detail: str) -> MockError:
        """400 for a body that is not JSON."""
        return _bad(f"Invalid JSON payload received. {detail}")

    def model_not_found(self, model: str) -> MockError:
        """404 ``NOT_FOUND`` (recorded real wording)."""
        return MockError(
            "not_found",
            f"models/{model} is not found for API version v1beta, or is not supported "
            "for generateContent. Call ListModels to see the list of available models and their "
            "supported methods.",
        )

    def error_body(self, error: MockError, request_id: str) -> tuple[dict[str, Any], dict[str, str]]:
        """``{"error": {code, message, status[, details]}}``."""
        status = error.status or _ERROR_STATUS.get(error.kind, 400)
        inner: dict[str, Any] = {
            "code": status,
            "message": error.message,
            "status": _STATUS_NAME.get(error.kind, "INVALID_ARGUMENT"),
        }
        if error.kind == "auth":
            inner["details"] = [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "API_KEY_INVALID",
                    "domain": "googleapis.com",
                    "metadata": {"service": "generativelanguage.googleapis.com"},
                }
            ]
        if error.kind == "rate_limit":
            wait = error.retry_after if error.retry_after is not None else 1
            inner["details"] = [
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [
                        {
                            "quotaMetric": "generativelanguage.googleapis.com/generate_content_requests",
                            "quotaId": "GenerateRequestsPerMinutePerProjectPerModel",
                        }
                    ],
                },
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{wait}s"},
            ]
        return {"error": inner}, {}

    def models_list(self, names: Sequence[str]) -> dict[str, Any]:
        """``GET /v1beta/models`` in Gemini's shape."""
        return {
            "models": [
                {
                    "name": f"models/{name}",
                    "displayName": name,
                    "supportedGenerationMethods": ["generateContent"],
                }
                for name in names
            ]
        }

    # ---------------------------------------------------------------- decoding
    def decode(self, body: Any, route: RouteInfo) -> Decoded:
        """Decode a ``GenerateContentRequest``."""
        if not isinstance(body, dict):
            raise _bad("Invalid JSON payload received. Expected an object at the top level.")
        model = route.path_model or ""
        contents = body.get("contents")
        if not isinstance(contents, list) or not contents:
            raise _bad("* GenerateContentRequest.contents: contents is not specified\n")
        tools = decode_tools(body.get("tools"))
        choice, offered = decode_choice(field(body, "toolConfig"), tools)
        system_part = field(body, "systemInstruction")
        system = text_of_parts(system_part.get("parts") if isinstance(system_part, dict) else system_part)
        request = SimRequest(
            model=model,
            system=system,
            turns=decode_contents(contents),
            tools=offered,
            tool_choice=choice,
            parallel_allowed=True,
        )
        return Decoded(model, route.path_stream, request, {})

    # ---------------------------------------------------------------- encoding
    def render(self, reply: SimReply, decoded: Decoded, ctx: RenderContext) -> dict[str, Any]:
        """A ``GenerateContentResponse``."""
        response_id = _response_id(ctx)
        candidate: dict[str, Any] = {"finishReason": "STOP", "index": 0}
        if reply.kind == "refusal":
            candidate["finishReason"] = "SAFETY"
            candidate["safetyRatings"] = _safety_ratings()
        else:
            candidate["content"] = {"parts": _parts(reply, ctx), "role": "model"}
            if reply.kind == "calls" and reply.calls:
                candidate["finishMessage"] = "Model generated function call(s)."
        return _envelope([candidate], decoded, ctx, ctx.output_tokens, response_id)

    def render_stream(self, reply: SimReply, decoded: Decoded, ctx: RenderContext) -> list[SseEvent]:
        """Chunks of text, then the calls (whole), the last chunk carrying ``finishReason``."""
        response_id = _response_id(ctx)
        if reply.kind == "refusal":
            refused = {"finishReason": "SAFETY", "index": 0, "safetyRatings": _safety_ratings()}
            return [SseEvent(None, _envelope([refused], decoded, ctx, ctx.output_tokens, response_id))]
        groups: list[list[dict[str, Any]]] = (
            [[{"text": piece}] for piece in text_pieces(reply.text)] if reply.text else []
        )
        call_parts = [part for part in _parts(reply, ctx) if "functionCall" in part]
        if call_parts:
            groups.extend([[part] for part in call_parts] if ctx.fine_arguments else [call_parts])
        else:
            groups.append([{"text": ""}])
        events: list[SseEvent] = []
        for number, parts in enumerate(groups, start=1):
            candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
            last = number == len(groups)
            if last:
                candidate["finishReason"] = "STOP"
                if call_parts:
                    candidate["finishMessage"] = "Model generated function call(s)."
            so_far = max(1, ctx.output_tokens * number // len(groups))
            events.append(SseEvent(None, _envelope([candidate], decoded, ctx, so_far, response_id)))
        return events

    def stream_error(self, error: MockError, ctx: RenderContext, position: int) -> SseEvent:
        """An ``{"error": {...}}`` chunk."""
        body, _ = self.error_body(error, "")
        return SseEvent(None, body)

    def frame(self, event: SseEvent) -> bytes:
        """``data: `` records separated by CRLF blank lines, as the real API sends them."""
        return b"data: " + event.data_bytes() + b"\r\n\r\n"


def _response_id(ctx: RenderContext) -> str:
    return ctx.ids.token(23, URL_SAFE)


def _safety_ratings() -> list[dict[str, str]]:
    return [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": "true"}]


def _envelope(
    candidates: list[dict[str, Any]],
    decoded: Decoded,
    ctx: RenderContext,
    output_tokens: int,
    response_id: str,
) -> dict[str, Any]:
    return {
        "candidates": candidates,
        "usageMetadata": {
            "promptTokenCount": ctx.input_tokens,
            "candidatesTokenCount": output_tokens,
            "totalTokenCount": ctx.input_tokens + output_tokens,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": ctx.input_tokens}],
            "thoughtsTokenCount": 0,
        },
        "modelVersion": decoded.model,
        "responseId": response_id,
    }


def _parts(reply: SimReply, ctx: RenderContext) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if reply.text:
        parts.append({"text": reply.text})
    if reply.kind == "calls":
        for position, call in enumerate(reply.calls):
            ok, value = parse_arguments(call.arguments_json)
            # Broken argument text cannot be a Struct; it is passed as the raw string so clients see it.
            call_body = {
                "id": call.id or ctx.ids.make("fc_", 16),
                "name": call.name,
                "args": value if ok else call.arguments_json,
            }
            part: dict[str, Any] = {"functionCall": call_body}
            if position == 0:
                part["thoughtSignature"] = base64.b64encode(ctx.ids.token(48).encode()).decode()
            parts.append(part)
    return parts
