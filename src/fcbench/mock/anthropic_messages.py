"""Anthropic Messages (``POST /v1/messages``) for the mock provider.

Wire facts follow protocols.md section 3: ``x-api-key`` (or ``Authorization: Bearer``) plus a
required ``anthropic-version``; top-level ``system``; ``tool_use`` blocks with object ``input``
and ``toolu_`` ids; results as ``tool_result`` blocks in the next user message; named SSE events
from ``message_start`` to ``message_stop``; errors as ``{"type": "error", "error": {...}}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from fcbench.contract import wire_text
from fcbench.mock.acceptance import check_anthropic_tool
from fcbench.mock.common import (
    Decoded,
    MockError,
    RenderContext,
    SseEvent,
    decode_result,
    parse_arguments,
    text_pieces,
)
from fcbench.mock.dialect import RouteInfo, bearer_token, frame_named
from fcbench.mock.sim.base import SimCall, SimReply, SimRequest, SimTool, SimTurn
from fcbench.mock.strict import THREAD_UNSUPPORTED

_ERROR_STATUS: Mapping[str, int] = {
    "invalid_request": 400,
    "auth": 401,
    "not_found": 404,
    "rate_limit": 429,
    "server": 500,
    "overloaded": 529,
    "timeout": 504,
}
_ERROR_TYPE: Mapping[str, str] = {
    "invalid_request": "invalid_request_error",
    "auth": "authentication_error",
    "not_found": "not_found_error",
    "rate_limit": "rate_limit_error",
    "server": "api_error",
    "overloaded": "overloaded_error",
    "timeout": "timeout_error",
}
_STOP_REASON: Mapping[str, str] = {"calls": "tool_use", "text": "end_turn", "refusal": "refusal"}
_CHOICES: Mapping[str, str] = {"auto": "auto", "any": "required", "none": "none"}


def _bad(message: str) -> MockError:
    return MockError("invalid_request", message)


class AnthropicMessagesDialect:
    """Encoder/decoder for the Messages API."""

    name = "anthropic-messages"
    error_status: Mapping[str, int] = _ERROR_STATUS

    def api_key(self, headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
        """``x-api-key``, or ``Authorization: Bearer`` as newer SDKs send it."""
        key = headers.get("x-api-key", "").strip()
        return key or bearer_token(headers)

    def check_headers(self, headers: Mapping[str, str]) -> None:
        """``anthropic-version`` must be present (any value)."""
        if not headers.get("anthropic-version", "").strip():
            raise _bad("anthropic-version: header is required")

    def missing_key(self) -> MockError:
        """401 ``authentication_error``."""
        return MockError("auth", "x-api-key header is required")

    def invalid_json(self, detail: str) -> MockError:
        """400 for a body that is not JSON."""
        return _bad(f"There was an error parsing the body of your request: invalid JSON ({detail})")

    def model_not_found(self, model: str) -> MockError:
        """404 ``not_found_error`` (recorded real wording)."""
        return MockError("not_found", f"model: {model}")

    def error_body(self, error: MockError, request_id: str) -> tuple[dict[str, Any], dict[str, str]]:
        """``{"type": "error", "error": {type, message}, "request_id"}`` plus ``request-id``."""
        inner: dict[str, Any] = {
            "type": _ERROR_TYPE.get(error.kind, "invalid_request_error"),
            "message": error.message,
        }
        if error.code is not None:
            inner["details"] = {"error_code": error.code}
            if error.code == THREAD_UNSUPPORTED:
                inner["details"]["unsupported"] = ["thread"]
        body = {"type": "error", "error": inner, "request_id": request_id}
        headers = {"request-id": request_id}
        if error.kind == "rate_limit":
            wait = error.retry_after if error.retry_after is not None else 1
            headers.update(
                {
                    "retry-after": str(wait),
                    "anthropic-ratelimit-requests-limit": "50",
                    "anthropic-ratelimit-requests-remaining": "0",
                }
            )
        return body, headers

    def models_list(self, names: Sequence[str]) -> dict[str, Any]:
        """``GET /v1/models`` in Anthropic's shape."""
        data = [
            {"type": "model", "id": name, "display_name": name, "created_at": "2025-01-01T00:00:00Z"}
            for name in names
        ]
        return {
            "data": data,
            "has_more": False,
            "first_id": names[0] if names else None,
            "last_id": names[-1] if names else None,
        }

    # ---------------------------------------------------------------- decoding
    def decode(self, body: Any, route: RouteInfo) -> Decoded:
        """Decode a Messages request."""
        if not isinstance(body, dict):
            raise _bad("Input should be a valid dictionary")
        for field in ("model", "messages", "max_tokens"):
            if field not in body:
                raise _bad(f"{field}: Field required")
        model = body["model"]
        if not isinstance(model, str) or not model:
            raise _bad("model: Input should be a valid string")
        if not isinstance(body["max_tokens"], int) or isinstance(body["max_tokens"], bool):
            raise _bad("max_tokens: Input should be a valid integer")
        if not isinstance(body["messages"], list):
            raise _bad("messages: Input should be a valid list")
        tools = _decode_tools(body.get("tools"))
        choice, parallel = _decode_choice(body.get("tool_choice"), tools)
        thinking = body.get("thinking")
        if (
            isinstance(thinking, dict)
            and thinking.get("type") == "enabled"
            and (choice == "required" or choice.startswith("tool:"))
        ):
            raise _bad("Thinking may not be enabled when tool_choice forces tool use.")
        turns = _decode_messages(body["messages"])
        request = SimRequest(
            model=model,
            system=wire_text(body.get("system")),
            turns=turns,
            tools=tools,
            tool_choice=choice,
            parallel_allowed=parallel,
        )
        return Decoded(model, body.get("stream") is True, request, {})

    # ---------------------------------------------------------------- encoding
    def render(self, reply: SimReply, decoded: Decoded, ctx: RenderContext) -> dict[str, Any]:
        """A ``message`` object."""
        return {
            "model": decoded.model,
            "id": _message_id(ctx),
            "type": "message",
            "role": "assistant",
            "content": [block for block, _ in _blocks(reply, ctx)],
            "stop_reason": _STOP_REASON[reply.kind],
            "stop_sequence": None,
            "usage": _usage(ctx.input_tokens, ctx.output_tokens),
        }

    def render_stream(self, reply: SimReply, decoded: Decoded, ctx: RenderContext) -> list[SseEvent]:
        """``message_start`` ... ``message_stop`` with a ``ping`` after the first block starts."""
        message: dict[str, Any] = {
            "model": decoded.model,
            "id": _message_id(ctx),
            "type": "message",
            "role": "assistant",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": _usage(ctx.input_tokens, 1),
        }
        events: list[SseEvent] = [_event("message_start", {"message": message})]
        for index, (block, raw) in enumerate(_blocks(reply, ctx)):
            if block["type"] == "text":
                events.append(
                    _event(
                        "content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}}
                    )
                )
                deltas = [{"type": "text_delta", "text": piece} for piece in text_pieces(block["text"])]
            else:
                start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                events.append(_event("content_block_start", {"index": index, "content_block": start}))
                deltas = [{"type": "input_json_delta", "partial_json": ""}]
                deltas += [
                    {"type": "input_json_delta", "partial_json": part}
                    for part in ctx.argument_fragments(raw)
                    if part
                ]
            if index == 0:
                events.append(_event("ping", {}))
            events.extend(_event("content_block_delta", {"index": index, "delta": delta}) for delta in deltas)
            events.append(_event("content_block_stop", {"index": index}))
        usage = _usage(ctx.input_tokens, ctx.output_tokens)
        usage.pop("cache_creation")
        usage.pop("service_tier")
        events.append(
            _event(
                "message_delta",
                {"delta": {"stop_reason": _STOP_REASON[reply.kind], "stop_sequence": None}, "usage": usage},
            )
        )
        events.append(_event("message_stop", {}))
        return events

    def stream_error(self, error: MockError, ctx: RenderContext, position: int) -> SseEvent:
        """``event: error`` with the error object."""
        body, _ = self.error_body(error, "")
        return _event("error", {"error": body["error"]})

    def frame(self, event: SseEvent) -> bytes:
        """``event:`` + ``data:`` records (the SDK drops records without ``event:``)."""
        return frame_named(event)


def _event(name: str, data: dict[str, Any]) -> SseEvent:
    return SseEvent(name, {"type": name, **data})


def _message_id(ctx: RenderContext) -> str:
    return ctx.ids.make("msg_01", 22)


def _usage(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "output_tokens": output_tokens,
        "service_tier": "standard",
    }


def _blocks(reply: SimReply, ctx: RenderContext) -> list[tuple[dict[str, Any], str]]:
    """Content blocks, each with its raw argument text (streamed as ``partial_json``)."""
    blocks: list[tuple[dict[str, Any], str]] = []
    if reply.text:
        blocks.append(({"type": "text", "text": reply.text}, ""))
    if reply.kind == "calls":
        for call in reply.calls:
            ok, value = parse_arguments(call.arguments_json)
            # Broken argument text cannot be an object; it is passed as the raw string so clients see it.
            block = {
                "type": "tool_use",
                "id": call.id or ctx.ids.make("toolu_01", 22),
                "name": call.name,
                "input": value if ok else call.arguments_json,
            }
            blocks.append((block, call.arguments_json))
    return blocks


def _decode_tools(raw: Any) -> tuple[SimTool, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise _bad("tools: Input should be a valid list")
    tools: list[SimTool] = []
    for index, tool in enumerate(raw):
        if not isinstance(tool, dict):
            raise _bad(f"tools.{index}: Input should be a valid dictionary")
        if tool.get("type", "custom") != "custom":
            continue  # server tools (web search, code execution, ...) are not offered to the model
        schema: Any = tool.get("input_schema")
        check_anthropic_tool(index, tool.get("name"), schema, tool.get("strict") is True)
        tools.append(SimTool(tool["name"], str(tool.get("description") or ""), schema))
    return tuple(tools)


def _decode_choice(raw: Any, tools: tuple[SimTool, ...]) -> tuple[str, bool]:
    if raw is None:
        return ("auto" if tools else "none"), True
    if not isinstance(raw, dict) or raw.get("type") not in ("auto", "any", "tool", "none"):
        raise _bad(
            "tool_choice: Input tag does not match any of the expected tags: 'auto', 'any', 'tool', 'none'"
        )
    parallel = raw.get("disable_parallel_tool_use") is not True
    if raw["type"] == "tool":
        name = raw.get("name")
        if not any(tool.name == name for tool in tools):
            raise _bad(f"Tool '{name}' not found in provided tools")
        return f"tool:{name}", parallel
    return _CHOICES[raw["type"]], parallel


def _decode_messages(messages: list[Any]) -> tuple[SimTurn, ...]:
    turns: list[SimTurn] = []
    previous_uses: dict[str, str] = {}
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise _bad(f"messages.{index}: Input should be a valid dictionary")
        role = message.get("role")
        if role not in ("user", "assistant"):
            raise _bad(
                f'Unexpected role "{role}". The Messages API accepts a top-level `system` parameter, '
                'not "system" as an input message role.'
                if role == "system"
                else f"messages.{index}.role: Input should be 'user' or 'assistant'"
            )
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            raise _bad(f"messages.{index}.content: Input should be a valid list")
        if role == "user":
            turns.extend(_user_turns(index, blocks, previous_uses))
            previous_uses = {}
        else:
            if previous_uses:
                _unanswered(index - 1, list(previous_uses))
            text, calls = _assistant_content(index, blocks, turns)
            turns.append(SimTurn("assistant", text, calls=calls))
            previous_uses = {call.id: call.name for call in calls if call.id}
            if previous_uses and index == len(messages) - 1:
                _unanswered(index, list(previous_uses))
    return tuple(turns)


def _unanswered(index: int, ids: list[str]) -> None:
    raise _bad(
        f"messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: "
        f"{', '.join(ids)}. Each `tool_use` block must have a corresponding `tool_result` block in the "
        "next message."
    )


def _user_turns(index: int, blocks: list[Any], uses: dict[str, str]) -> list[SimTurn]:
    turns: list[SimTurn] = []
    texts: list[str] = []
    answered: set[str] = set()
    for position, block in enumerate(blocks):
        if not isinstance(block, dict):
            raise _bad(f"messages.{index}.content.{position}: Input should be a valid dictionary")
        if block.get("type") == "tool_result":
            use_id = block.get("tool_use_id")
            if use_id not in uses:
                raise _bad(
                    f"messages.{index}.content.{position}: unexpected `tool_use_id` found in `tool_result` "
                    f"blocks: {use_id}. Each `tool_result` block must have a corresponding `tool_use` "
                    "block in the previous message."
                )
            answered.add(use_id)
            turns.append(
                SimTurn(
                    "tool",
                    call_id=use_id,
                    tool_name=uses[use_id],
                    result=decode_result(wire_text(block.get("content"))),
                    is_error=block.get("is_error") is True,
                )
            )
        elif block.get("type") == "text":
            texts.append(str(block.get("text", "")))
    missing = [use_id for use_id in uses if use_id not in answered]
    if missing:
        _unanswered(index - 1, missing)
    if texts:
        turns.append(SimTurn("user", "".join(texts)))
    return turns


def _assistant_content(
    index: int, blocks: list[Any], turns: list[SimTurn]
) -> tuple[str, tuple[SimCall, ...]]:
    texts: list[str] = []
    calls: list[SimCall] = []
    seen = {call.id for turn in turns for call in turn.calls}
    for position, block in enumerate(blocks):
        if not isinstance(block, dict):
            raise _bad(f"messages.{index}.content.{position}: Input should be a valid dictionary")
        if block.get("type") == "text":
            texts.append(str(block.get("text", "")))
        elif block.get("type") == "tool_use":
            use_id = block.get("id")
            if not isinstance(use_id, str):
                raise _bad(f"messages.{index}.content.{position}.tool_use.id: Field required")
            if use_id in seen:
                raise _bad("`tool_use` ids must be unique")
            seen.add(use_id)
            calls.append(SimCall(str(block.get("name", "")), json.dumps(block.get("input", {})), use_id))
    return "".join(texts), tuple(calls)
