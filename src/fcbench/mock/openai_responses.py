"""OpenAI Responses (``POST /v1/responses``) for the mock provider.

Wire facts follow protocols.md section 2: flat function tools, ``function_call`` output items with
an item id (``fc_...``) and a ``call_id`` (``call_...``) to echo, ``function_call_output`` input
items, typed stream events with ``sequence_number`` from ``response.created`` to
``response.completed``. ``previous_response_id`` continues a stored response of the same server.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from fcbench.contract import wire_text
from fcbench.mock.common import (
    Decoded,
    MockError,
    RenderContext,
    SseEvent,
    compact_json,
    open_object,
    quoted,
    text_pieces,
)
from fcbench.mock.dialect import RouteInfo, frame_named
from fcbench.mock.openai_responses_input import decode_choice, decode_input, decode_tools, text_echo
from fcbench.mock.openai_shared import OpenAIBase, usage_responses
from fcbench.mock.sim.base import SimCall, SimReply, SimRequest, SimTurn

_STORE_LIMIT = 2000


def _bad(message: str, param: str | None = None, code: str | None = None) -> MockError:
    return MockError("invalid_request", message, param=param, code=code)


class OpenAIResponsesDialect(OpenAIBase):
    """Encoder/decoder for the Responses API; keeps this server's stored responses."""

    name = "openai-responses"

    def __init__(self) -> None:
        self._stored: OrderedDict[str, tuple[SimTurn, ...]] = OrderedDict()

    def model_not_found(self, model: str) -> MockError:
        """The Responses API answers an unknown model with 400 (as recorded from the real API)."""
        return MockError(
            "invalid_request",
            f"The requested model '{model}' does not exist.",
            param="model",
            code="model_not_found",
        )

    # ---------------------------------------------------------------- decoding
    def decode(self, body: Any, route: RouteInfo) -> Decoded:
        """Decode a Responses request, joining a stored conversation when one is referenced."""
        if not isinstance(body, dict):
            raise _bad("Invalid type for request body: expected an object.", None, "invalid_type")
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise _bad("Missing required parameter: 'model'.", "model", "missing_required_parameter")
        prior: tuple[SimTurn, ...] = ()
        previous = body.get("previous_response_id")
        if previous is not None:
            if previous not in self._stored:
                raise _bad(
                    f"Previous response with id '{previous}' not found.",
                    "previous_response_id",
                    "previous_response_not_found",
                )
            prior = self._stored[previous]
        tools, echoed_tools = decode_tools(body.get("tools"))
        choice, offered = decode_choice(body.get("tool_choice"), tools)
        system, turns = decode_input(body.get("input"), prior)
        instructions = body.get("instructions")
        if isinstance(instructions, str) and instructions:
            system = instructions + ("\n\n" + system if system else "")
        request = SimRequest(
            model=model,
            system=system,
            turns=turns,
            tools=offered,
            tool_choice=choice,
            parallel_allowed=body.get("parallel_tool_calls", True) is not False,
        )
        echo = {
            "instructions": instructions,
            "max_output_tokens": body.get("max_output_tokens"),
            "max_tool_calls": body.get("max_tool_calls"),
            "parallel_tool_calls": body.get("parallel_tool_calls", True),
            "previous_response_id": previous,
            "store": body.get("store", True),
            "temperature": body.get("temperature", 1.0),
            "top_p": body.get("top_p", 1.0),
            "text": text_echo(body.get("text")),
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": echoed_tools,
            "metadata": body.get("metadata") or {},
            "reasoning": body.get("reasoning") or {"effort": None, "summary": None},
        }
        return Decoded(model, body.get("stream") is True, request, echo)

    # ---------------------------------------------------------------- encoding
    def render(self, reply: SimReply, decoded: Decoded, ctx: RenderContext) -> dict[str, Any]:
        """A completed ``response`` object."""
        response_id = _response_id(ctx)
        output = self._output_items(reply, ctx)
        self._remember(response_id, decoded, output)
        usage = usage_responses(ctx.input_tokens, ctx.output_tokens)
        return self._response(response_id, decoded, ctx, "completed", output, usage)

    def render_stream(self, reply: SimReply, decoded: Decoded, ctx: RenderContext) -> list[SseEvent]:
        """``response.created`` ... ``response.completed`` with a ``sequence_number`` each."""
        response_id = _response_id(ctx)
        output = self._output_items(reply, ctx)
        self._remember(response_id, decoded, output)
        events: list[tuple[str, dict[str, Any] | str]] = []
        pending = compact_json(
            {"response": self._response(response_id, decoded, ctx, "in_progress", [], None)}
        )
        events.append(("response.created", pending.decode()))  # the same object twice: encoded once
        events.append(("response.in_progress", pending.decode()))
        for index, item in enumerate(output):
            events.extend(_item_events(index, item, ctx))
        usage = usage_responses(ctx.input_tokens, ctx.output_tokens)
        done = self._response(response_id, decoded, ctx, "completed", output, usage)
        events.append(("response.completed", {"response": done}))
        return [_numbered(number, name, data) for number, (name, data) in enumerate(events)]

    def stream_error(self, error: MockError, ctx: RenderContext, position: int) -> SseEvent:
        """An ``error`` event."""
        body, _ = self.error_body(error, "")
        inner = body["error"]
        return SseEvent(
            "error",
            {
                "type": "error",
                "sequence_number": position,
                "code": inner["code"] or inner["type"],
                "message": inner["message"],
                "param": inner["param"],
            },
        )

    def frame(self, event: SseEvent) -> bytes:
        """``event:`` + ``data:`` records."""
        return frame_named(event)

    # ---------------------------------------------------------------- helpers
    def _output_items(self, reply: SimReply, ctx: RenderContext) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        part: dict[str, Any] | None = None
        if reply.kind == "refusal":
            part = {"type": "refusal", "refusal": reply.text}
        elif reply.text:
            part = {"type": "output_text", "annotations": [], "logprobs": [], "text": reply.text}
        if part is not None:
            items.append(
                {
                    "id": "msg_" + ctx.ids.hex(50),
                    "type": "message",
                    "status": "completed",
                    "content": [part],
                    "role": "assistant",
                }
            )
        if reply.kind == "calls":
            for call in reply.calls:
                items.append(
                    {
                        "id": "fc_" + ctx.ids.hex(50),
                        "type": "function_call",
                        "status": "completed",
                        "arguments": call.arguments_json,
                        "call_id": call.id or ctx.ids.make("call_", 24),
                        "name": call.name,
                    }
                )
        return items

    def _remember(self, response_id: str, decoded: Decoded, output: list[dict[str, Any]]) -> None:
        if decoded.echo.get("store") is False:
            return
        text = "".join(wire_text(item["content"]) for item in output if item["type"] == "message")
        calls = tuple(
            SimCall(item["name"], item["arguments"], item["call_id"])
            for item in output
            if item["type"] == "function_call"
        )
        self._stored[response_id] = (*decoded.request.turns, SimTurn("assistant", text, calls=calls))
        while len(self._stored) > _STORE_LIMIT:
            self._stored.popitem(last=False)

    def _response(
        self,
        response_id: str,
        decoded: Decoded,
        ctx: RenderContext,
        status: str,
        output: list[dict[str, Any]],
        usage: dict[str, Any] | None,
    ) -> dict[str, Any]:
        echo = decoded.echo
        return {
            "id": response_id,
            "object": "response",
            "created_at": ctx.created,
            "status": status,
            "background": False,
            "billing": {"payer": "developer"},
            "completed_at": ctx.created if status == "completed" else None,
            "error": None,
            "frequency_penalty": 0.0,
            "incomplete_details": None,
            "instructions": echo["instructions"],
            "max_output_tokens": echo["max_output_tokens"],
            "max_tool_calls": echo["max_tool_calls"],
            "model": decoded.model,
            "output": output,
            "parallel_tool_calls": echo["parallel_tool_calls"],
            "presence_penalty": 0.0,
            "previous_response_id": echo["previous_response_id"],
            "prompt_cache_key": None,
            "prompt_cache_retention": None,
            "reasoning": echo["reasoning"],
            "safety_identifier": None,
            "service_tier": "default",
            "store": echo["store"],
            "temperature": echo["temperature"],
            "text": echo["text"],
            "tool_choice": echo["tool_choice"],
            "tools": echo["tools"],
            "top_logprobs": 0,
            "top_p": echo["top_p"],
            "truncation": "disabled",
            "usage": usage,
            "user": None,
            "metadata": echo["metadata"],
        }


def _numbered(number: int, name: str, data: dict[str, Any] | str) -> SseEvent:
    """The event ``{"type": name, "sequence_number": number, **data}``, encoded by splicing the
    encoding of ``data`` (given as its text when already encoded), whose keys are neither of those."""
    body = data if isinstance(data, str) else compact_json(data).decode()
    head = f'{{"type":{quoted(name)},"sequence_number":{number}'
    return SseEvent(name, head + ("}" if body == "{}" else "," + body[1:]))


def _response_id(ctx: RenderContext) -> str:
    return "resp_" + ctx.ids.hex(50)


def _item_events(
    index: int, item: dict[str, Any], ctx: RenderContext
) -> list[tuple[str, dict[str, Any] | str]]:
    events: list[tuple[str, dict[str, Any] | str]] = []
    where = {"item_id": item["id"], "output_index": index}
    # the deltas, most of the events, are written from the encoding of their first fields, made once
    fields = open_object(where)
    if item["type"] == "function_call":
        events.append(
            (
                "response.output_item.added",
                {"output_index": index, "item": {**item, "status": "in_progress", "arguments": ""}},
            )
        )
        for fragment in ctx.argument_fragments(item["arguments"]):
            if fragment:
                delta = f'{fields},"delta":{quoted(fragment)},"obfuscation":"{ctx.ids.padding()}"}}'
                events.append(("response.function_call_arguments.delta", delta))
        events.append(("response.function_call_arguments.done", {**where, "arguments": item["arguments"]}))
    else:
        part = item["content"][0]
        at = {**where, "content_index": 0}
        at_fields = fields + ',"content_index":0'
        events.append(
            (
                "response.output_item.added",
                {"output_index": index, "item": {**item, "status": "in_progress", "content": []}},
            )
        )
        if part["type"] == "refusal":
            events.append(("response.content_part.added", {**at, "part": {"type": "refusal", "refusal": ""}}))
            for piece in text_pieces(part["refusal"]):
                events.append(("response.refusal.delta", f'{at_fields},"delta":{quoted(piece)}}}'))
            events.append(("response.refusal.done", {**at, "refusal": part["refusal"]}))
        else:
            events.append(("response.content_part.added", {**at, "part": {**part, "text": ""}}))
            for piece in text_pieces(part["text"]):
                padding = ctx.ids.padding()
                delta = f'{at_fields},"delta":{quoted(piece)},"logprobs":[],"obfuscation":"{padding}"}}'
                events.append(("response.output_text.delta", delta))
            events.append(("response.output_text.done", {**at, "text": part["text"], "logprobs": []}))
        events.append(("response.content_part.done", {**at, "part": part}))
    events.append(("response.output_item.done", {"output_index": index, "item": item}))
    return events
