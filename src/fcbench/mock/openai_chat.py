"""OpenAI Chat Completions (``POST /v1/chat/completions``) for the mock provider.

Wire facts follow protocols.md section 1: function tools under ``tools[].function``, arguments as
JSON text, ``finish_reason`` ``tool_calls`` (``stop`` when the tool choice names a function),
streams of ``data:`` chunks ended by ``data: [DONE]``, tool results as ``role: tool`` messages
whose ``tool_call_id`` must answer the assistant message right before them.
"""

from __future__ import annotations

from typing import Any

from fcbench.contract import wire_text
from fcbench.mock.acceptance import check_openai_function
from fcbench.mock.common import (
    Decoded,
    MockError,
    RenderContext,
    SseEvent,
    compact_json,
    decode_result,
    open_object,
    quoted,
    text_pieces,
)
from fcbench.mock.dialect import RouteInfo
from fcbench.mock.openai_shared import OpenAIBase, not_found_error, usage_chat
from fcbench.mock.sim.base import SimCall, SimReply, SimRequest, SimTool, SimTurn

_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
_FINGERPRINT = "fp_fcbmock01"


def _bad(message: str, param: str | None = None, code: str | None = None) -> MockError:
    return MockError("invalid_request", message, param=param, code=code)


class OpenAIChatDialect(OpenAIBase):
    """Encoder/decoder for Chat Completions."""

    name = "openai-chat"

    def model_not_found(self, model: str) -> MockError:
        """404 ``model_not_found``."""
        return not_found_error(model)

    # ---------------------------------------------------------------- decoding
    def decode(self, body: Any, route: RouteInfo) -> Decoded:
        """Decode a Chat Completions request."""
        if not isinstance(body, dict):
            raise _bad("Invalid type for request body: expected an object.", None, "invalid_type")
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise _bad("you must provide a model parameter")
        messages = body.get("messages")
        if messages is None:
            raise _bad("Missing required parameter: 'messages'.", "messages", "missing_required_parameter")
        if not isinstance(messages, list) or not messages:
            raise _bad(
                "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an "
                "empty array instead.",
                "messages",
                "empty_array",
            )
        tools = _decode_tools(body.get("tools"))
        choice, tools, named = _decode_choice(body.get("tool_choice"), tools)
        system, turns = _decode_messages(messages)
        stream = body.get("stream") is True
        options = body.get("stream_options")
        include_usage = isinstance(options, dict) and options.get("include_usage") is True
        request = SimRequest(
            model=model,
            system=system,
            turns=turns,
            tools=tools,
            tool_choice=choice,
            parallel_allowed=body.get("parallel_tool_calls", True) is not False,
        )
        return Decoded(model, stream, request, {"named": named, "include_usage": include_usage})

    # ---------------------------------------------------------------- encoding
    def render(self, reply: SimReply, decoded: Decoded, ctx: RenderContext) -> dict[str, Any]:
        """A ``chat.completion`` object."""
        message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None, "annotations": []}
        if reply.kind == "refusal":
            message["refusal"] = reply.text
        elif reply.text:
            message["content"] = reply.text
        calls = _call_ids(reply, ctx)
        if calls:
            message["tool_calls"] = [
                {
                    "id": cid,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments_json},
                }
                for cid, call in calls
            ]
        return {
            "id": _completion_id(ctx),
            "object": "chat.completion",
            "created": ctx.created,
            "model": decoded.model,
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": _finish(reply, decoded)}
            ],
            "usage": usage_chat(ctx.input_tokens, ctx.output_tokens),
            "service_tier": "default",
            "system_fingerprint": _FINGERPRINT,
        }

    def render_stream(self, reply: SimReply, decoded: Decoded, ctx: RenderContext) -> list[SseEvent]:
        """``chat.completion.chunk`` events, a usage chunk when asked for, then ``[DONE]``."""
        completion_id = _completion_id(ctx)
        include_usage = bool(decoded.echo.get("include_usage"))
        # every chunk starts with the same fields: they are encoded once
        prefix = open_object(
            {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": ctx.created,
                "model": decoded.model,
                "service_tier": "default",
                "system_fingerprint": _FINGERPRINT,
            }
        )
        no_usage = ',"usage":null' if include_usage else ""

        def chunk(delta: dict[str, Any] | str, finish: str | None = None) -> SseEvent:
            """A chunk of ``delta`` (or its encoding, for the text pieces) and ``finish``."""
            body = delta if isinstance(delta, str) else compact_json(delta).decode()
            ending = "null" if finish is None else quoted(finish)
            choice = f'{{"index":0,"delta":{body},"logprobs":null,"finish_reason":{ending}}}'
            padding = ctx.ids.padding()  # letters and digits: nothing to escape
            return SseEvent(None, f'{prefix},"choices":[{choice}]{no_usage},"obfuscation":"{padding}"}}')

        events: list[SseEvent] = []
        calls = _call_ids(reply, ctx)
        if reply.kind == "refusal":
            events.append(chunk({"role": "assistant", "content": None, "refusal": ""}))
            events.extend(chunk(f'{{"refusal":{quoted(piece)}}}') for piece in text_pieces(reply.text))
        elif reply.text:
            events.append(chunk({"role": "assistant", "content": "", "refusal": None}))
            events.extend(chunk(f'{{"content":{quoted(piece)}}}') for piece in text_pieces(reply.text))
        else:
            events.append(chunk({"role": "assistant", "content": None}))
        for index, (cid, call) in enumerate(calls):
            head = {
                "index": index,
                "id": cid,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            events.append(chunk({"tool_calls": [head]}))
            for fragment in ctx.argument_fragments(call.arguments_json):
                if fragment:
                    events.append(
                        chunk({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]})
                    )
        events.append(chunk({}, _finish(reply, decoded)))
        if include_usage:
            usage = compact_json(usage_chat(ctx.input_tokens, ctx.output_tokens)).decode()
            tail = f'{prefix},"choices":[],"usage":{usage},"obfuscation":"{ctx.ids.padding()}"}}'
            events.append(SseEvent(None, tail))
        events.append(SseEvent(None, "[DONE]"))
        return events

    def stream_error(self, error: MockError, ctx: RenderContext, position: int) -> SseEvent:
        """``data: {"error": {...}}`` as OpenAI sends it mid-stream."""
        body, _ = self.error_body(error, "")
        return SseEvent(None, body)

    def frame(self, event: SseEvent) -> bytes:
        """``data: ...`` records without event names."""
        return b"data: " + event.data_bytes() + b"\n\n"


def _completion_id(ctx: RenderContext) -> str:
    return "chatcmpl-" + ctx.ids.make("", 29)


def _call_ids(reply: SimReply, ctx: RenderContext) -> list[tuple[str, SimCall]]:
    if reply.kind != "calls":
        return []
    return [(call.id or ctx.ids.make("call_", 24), call) for call in reply.calls]


def _finish(reply: SimReply, decoded: Decoded) -> str:
    if reply.kind == "calls" and reply.calls and not decoded.echo.get("named"):
        return "tool_calls"
    return "stop"


def _decode_tools(raw: Any) -> tuple[SimTool, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise _bad("Invalid type for 'tools': expected an array.", "tools", "invalid_type")
    if not raw:
        raise _bad(
            "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array "
            "instead.",
            "tools",
            "empty_array",
        )
    tools: list[SimTool] = []
    for index, tool in enumerate(raw):
        if not isinstance(tool, dict):
            raise _bad(
                f"Invalid type for 'tools[{index}]': expected an object.", f"tools[{index}]", "invalid_type"
            )
        if tool.get("type", "function") != "function":
            continue
        function = tool.get("function")
        if not isinstance(function, dict):
            raise _bad(
                f"Missing required parameter: 'tools[{index}].function'.",
                f"tools[{index}].function",
                "missing_required_parameter",
            )
        parameters = function.get("parameters")
        check_openai_function(
            function.get("name"), parameters, function.get("strict") is True, f"tools[{index}].function"
        )
        tools.append(
            SimTool(
                name=function["name"],
                description=str(function.get("description") or ""),
                parameters=parameters
                if isinstance(parameters, dict)
                else {"type": "object", "properties": {}},
            )
        )
    return tuple(tools)


def _decode_choice(raw: Any, tools: tuple[SimTool, ...]) -> tuple[str, tuple[SimTool, ...], bool]:
    """(sim tool choice, tools the model may use, whether a function is named)."""
    if raw is None:
        return ("auto" if tools else "none"), tools, False
    if raw != "none" and not tools:
        raise _bad(
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
            "tool_choice",
        )
    if raw in ("none", "auto", "required"):
        return str(raw), tools, False
    if isinstance(raw, dict) and raw.get("type") == "function":
        name = (raw.get("function") or {}).get("name")
        if not any(tool.name == name for tool in tools):
            raise _bad(
                f"Invalid value for 'tool_choice': function '{name}' is not among the tools.", "tool_choice"
            )
        return f"tool:{name}", tools, True
    if isinstance(raw, dict) and raw.get("type") == "allowed_tools":
        allowed = raw.get("allowed_tools") or {}
        names = {
            (item.get("function") or {}).get("name")
            for item in allowed.get("tools") or []
            if isinstance(item, dict)
        }
        mode = allowed.get("mode", "auto")
        return (
            ("required" if mode == "required" else "auto"),
            tuple(t for t in tools if t.name in names),
            False,
        )
    raise _bad(f"Invalid value for 'tool_choice': {raw!r}.", "tool_choice", "invalid_value")


def _decode_messages(messages: list[Any]) -> tuple[str, tuple[SimTurn, ...]]:
    system: list[str] = []
    turns: list[SimTurn] = []
    open_calls: dict[str, str] = {}  # calls of the assistant message the tool messages may answer
    unanswered: list[str] = []
    asked_at = 0
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise _bad(
                f"Invalid type for 'messages[{index}]': expected an object.",
                f"messages[{index}]",
                "invalid_type",
            )
        role = message.get("role")
        if role not in _ROLES:
            raise _bad(
                f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', 'tool', "
                "and 'function'.",
                f"messages[{index}].role",
                "invalid_value",
            )
        if role != "tool":
            _require_answered(unanswered, asked_at)
            open_calls = {}
        if role in ("system", "developer"):
            system.append(wire_text(message.get("content")))
        elif role in ("user", "function"):
            turns.append(SimTurn("user", wire_text(message.get("content"))))
        elif role == "assistant":
            calls = _history_calls(message.get("tool_calls"), index)
            turns.append(SimTurn("assistant", wire_text(message.get("content")), calls=calls))
            open_calls = {call.id: call.name for call in calls if call.id}
            unanswered = [call.id for call in calls if call.id]
            asked_at = index
        else:
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str) or call_id not in open_calls:
                raise _bad(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                    "message with 'tool_calls'.",
                    f"messages.[{index}].role",
                )
            if call_id in unanswered:
                unanswered.remove(call_id)
            turns.append(
                SimTurn(
                    "tool",
                    call_id=call_id,
                    tool_name=open_calls[call_id],
                    result=decode_result(wire_text(message.get("content"))),
                )
            )
    _require_answered(unanswered, asked_at)
    return "\n\n".join(part for part in system if part), tuple(turns)


def _require_answered(unanswered: list[str], asked_at: int) -> None:
    if unanswered:
        raise _bad(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            "'tool_call_id'. The following tool_call_ids did not have response messages: "
            + ", ".join(unanswered),
            f"messages.[{asked_at}].role",
        )


def _history_calls(raw: Any, index: int) -> tuple[SimCall, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise _bad(
            f"Invalid type for 'messages[{index}].tool_calls': expected an array.",
            f"messages[{index}].tool_calls",
            "invalid_type",
        )
    calls: list[SimCall] = []
    for position, item in enumerate(raw):
        function = item.get("function") if isinstance(item, dict) else None
        if not isinstance(function, dict) or not isinstance(item.get("id"), str):
            raise _bad(
                f"Missing required parameter: 'messages[{index}].tool_calls[{position}].id'.",
                f"messages[{index}].tool_calls[{position}].id",
                "missing_required_parameter",
            )
        arguments = function.get("arguments")
        calls.append(
            SimCall(
                name=str(function.get("name", "")),
                arguments_json=arguments if isinstance(arguments, str) else "",
                id=item["id"],
            )
        )
    return tuple(calls)
