"""Gemini Interactions (``POST /{version}/interactions``) for the mock provider.

Wire facts follow protocols.md section 4.6 and the google-genai 3.6.1 types: the body is
``model``, ``input`` (a string, a content item, or a list of steps: ``user_input``,
``model_output``, ``thought``, ``function_call``, ``function_result``), ``system_instruction``,
flat ``{"type": "function"}`` tools and ``generation_config`` (with ``tool_choice``). The reply is
an ``Interaction``: the request's input steps echoed, then the model's (a ``thought`` step with a
signature before calls, ``model_output`` text, ``function_call`` steps with object
``arguments``), ``status`` ``requires_action`` when calls are pending, else ``completed``, and
``usage`` totals. Streams are ``event:`` + ``data:`` records from ``interaction.created`` to
``interaction.completed``, call arguments split over ``arguments_delta`` fragments. Keys, errors
and status codes are Gemini's (:class:`~fcbench.mock.gemini.GeminiDialect`).

Each dialect object keeps the interactions it answered (the last :data:`STORE_LIMIT`, unless the
request said ``store: false``), so ``previous_interaction_id`` continues one: the model reads the
stored conversation plus the new input, exactly what a stateless replay of it would decode to.
An unknown id is a 404 ``NOT_FOUND``. Errors are Gemini's, with ``code`` the status name in lower
case (``{"error": {"code": "invalid_argument", "message"}}``), the SDK's ``Error`` type. A refusal
is a ``model_output`` step whose ``error`` carries an ``ErrorInfo`` reason ``SAFETY`` (not
observed live: the adapter reads the same shape).

The field sets below are the google-genai 3.6.1 type fields (``CreateModelInteraction``,
``GenerationConfig``, ``Function``, the step types); a test keeps them in step with the SDK.
"""

from __future__ import annotations

import base64
import json
from collections import OrderedDict
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from fcbench.contract import wire_text
from fcbench.mock.acceptance import check_gemini_declaration
from fcbench.mock.common import (
    Decoded,
    MockError,
    RenderContext,
    SseEvent,
    decode_result,
    parse_arguments,
    text_pieces,
)
from fcbench.mock.dialect import RouteInfo, frame_named
from fcbench.mock.gemini import GeminiDialect
from fcbench.mock.gemini_input import decode_choice
from fcbench.mock.sim.base import SimCall, SimReply, SimRequest, SimTool, SimTurn

STORE_LIMIT = 2000
"""Interactions each dialect object keeps for ``previous_interaction_id`` (least recently used go)."""

REQUEST_FIELDS = frozenset(
    {
        "background", "cached_content", "continuation_token", "environment", "generation_config",
        "input", "labels", "model", "previous_interaction_id", "response_format",
        "response_mime_type", "response_modalities", "safety_settings", "service_tier", "store",
        "stream", "system_instruction", "tools", "webhook_config",
    }
)  # fmt: skip
"""Top-level fields of a model interaction request (``CreateModelInteraction``)."""

GENERATION_CONFIG_FIELDS = frozenset(
    {
        "image_config", "max_output_tokens", "seed", "speech_config", "stop_sequences", "temperature",
        "thinking_level", "thinking_summaries", "tool_choice", "top_p", "transcription_config",
        "video_config",
    }
)  # fmt: skip
"""Fields of ``generation_config`` (``GenerationConfig``)."""

FUNCTION_TOOL_FIELDS = frozenset(
    {"defer_loading", "description", "name", "parameters", "short_description", "type"}
)
"""Fields of a ``{"type": "function"}`` tool (``Function``)."""

TOOL_CHOICE_FIELDS: Mapping[str, frozenset[str]] = {
    "generation_config.tool_choice": frozenset({"allowed_tools"}),
    "generation_config.tool_choice.allowed_tools": frozenset({"mode", "tools"}),
}
"""Fields of an object ``tool_choice`` (``ToolChoiceConfig``) and its ``AllowedTools``."""

STEP_FIELDS: Mapping[str, frozenset[str]] = {
    "user_input": frozenset({"content", "type"}),
    "model_output": frozenset({"content", "error", "type"}),
    "thought": frozenset({"signature", "summary", "type"}),
    "function_call": frozenset({"arguments", "id", "name", "type"}),
    "function_result": frozenset({"call_id", "is_error", "name", "result", "type"}),
}
"""Fields of the input step types the mock reads (``UserInputStep``, ``FunctionCallStep``, ...)."""

_REFUSAL = {
    "code": 3,
    "message": "The response was blocked for safety reasons.",
    "details": [
        {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "SAFETY",
            "domain": "generativelanguage.googleapis.com",
        }
    ],
}


def _bad(message: str) -> MockError:
    return MockError("invalid_request", message)


def _unknown(path: str, key: str) -> MockError:
    at = f" at '{path}'" if path else ""
    return _bad(f'Invalid JSON payload received. Unknown name "{key}"{at}: Cannot find field.')


def _keys(obj: Any, allowed: frozenset[str], path: str) -> None:
    for key in obj if isinstance(obj, dict) else ():
        if key not in allowed:
            raise _unknown(path, key)


def check_fields(body: dict[str, Any], root: str, beta: bool) -> None:
    """Strict mode: the first unknown field of the top level, ``generation_config``, a function
    tool or an input step is a 400 in Google's wording."""
    _keys(body, REQUEST_FIELDS, "")
    config = body.get("generation_config")
    _keys(config, GENERATION_CONFIG_FIELDS, "generation_config")
    choice = config.get("tool_choice") if isinstance(config, dict) else None
    for path, names in TOOL_CHOICE_FIELDS.items():
        _keys(choice, names, path)
        choice = choice.get("allowed_tools") if isinstance(choice, dict) else None
    for name, items in (("tools", body.get("tools")), ("input", body.get("input"))):
        for index, item in enumerate(items if isinstance(items, list) else []):
            kind = item.get("type") if isinstance(item, dict) else None
            allowed: frozenset[str] | None
            if name == "input":
                allowed = STEP_FIELDS.get(str(kind))
            else:
                allowed = FUNCTION_TOOL_FIELDS if kind == "function" else None
            if allowed is not None:
                _keys(item, allowed, f"{name}[{index}]")


def model_call(step: Mapping[str, Any]) -> SimCall:
    """A ``function_call`` step as the model reads it (the one reading, stored or replayed)."""
    arguments = step.get("arguments")
    text = arguments if isinstance(arguments, str) else json.dumps(arguments if arguments is not None else {})
    return SimCall(str(step.get("name", "")), text, step.get("id"))


def _assistant(turns: list[SimTurn], text: str = "", call: SimCall | None = None) -> None:
    """Add text or a call to the assistant turn in progress (starting one when needed)."""
    if turns and turns[-1].role == "assistant":
        last = turns[-1]
        calls = (*last.calls, call) if call is not None else last.calls
        turns[-1] = SimTurn("assistant", last.text + text, calls=calls)
    else:
        turns.append(SimTurn("assistant", text, calls=(call,) if call is not None else ()))


def _open_calls(turns: list[SimTurn]) -> tuple[SimTurn | None, set[str]]:
    """The assistant turn the trailing results answer, and the ids already answered."""
    answered: set[str] = set()
    for turn in reversed(turns):
        if turn.role == "tool":
            answered.add(str(turn.call_id))
        else:
            return (turn if turn.role == "assistant" else None), answered
    return None, answered


def _result(turns: list[SimTurn], index: int, step: Mapping[str, Any]) -> None:
    call_id, outcome = step.get("call_id"), step.get("result")
    if not isinstance(call_id, str) or "result" not in step:
        raise _bad(f"* CreateInteractionRequest.input[{index}]: function_result needs call_id and result.\n")
    owner, answered = _open_calls(turns)
    if owner is None or not owner.calls:
        raise _bad(f"input[{index}]: a function_result must follow the function_call it answers.")
    match = next((c for c in owner.calls if c.id == call_id and call_id not in answered), None)
    if match is None:
        raise _bad(f"input[{index}]: no pending function_call with id '{call_id}' for this function_result.")
    result = decode_result(outcome)
    turns.append(
        SimTurn(
            "tool",
            call_id=call_id,
            tool_name=match.name,
            result=result,
            is_error=step.get("is_error") is True,
        )
    )


def _all_answered(turns: list[SimTurn]) -> None:
    owner, answered = _open_calls(turns)
    if owner is not None and owner.calls and answered and len(answered) != len(owner.calls):
        raise _bad("Please ensure that every function_call step is answered by a function_result step.")


def decode_input(raw: Any, prior: tuple[SimTurn, ...]) -> tuple[list[dict[str, Any]], tuple[SimTurn, ...]]:
    """The input as a list of steps (for the echo) and the turns the model reads (``prior`` first)."""
    if isinstance(raw, str):
        raw = [{"type": "user_input", "content": [{"type": "text", "text": raw}]}]
    elif isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise _bad("* CreateInteractionRequest.input: input is not specified\n")
    turns = list(prior)
    for index, step in enumerate(raw):
        if not isinstance(step, dict):
            raise _bad(f"Invalid JSON payload received. Expected an object at 'input[{index}]'.")
        kind = step.get("type")
        if kind != "function_result":
            _all_answered(turns)
        if kind == "user_input":
            turns.append(SimTurn("user", wire_text(step.get("content"))))
        elif kind == "text":
            turns.append(SimTurn("user", wire_text([step])))
        elif kind == "model_output":
            _assistant(turns, text=wire_text(step.get("content")))
        elif kind == "function_call":
            if not isinstance(step.get("name"), str) or not isinstance(step.get("id"), str):
                raise _bad(f"* CreateInteractionRequest.input[{index}]: function_call needs id and name.\n")
            _assistant(turns, call=model_call(step))
        elif kind == "function_result":
            _result(turns, index, step)
        elif kind != "thought":
            raise _bad(f"Invalid value at 'input[{index}].type', {kind!r}")
    _all_answered(turns)
    return raw, tuple(turns)


def decode_tools(raw: Any) -> tuple[SimTool, ...]:
    """Offered function tools, each checked under the Gemini declaration rules."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise _bad("Invalid JSON payload received. 'tools' must be a list.")
    tools: list[SimTool] = []
    for index, tool in enumerate(raw):
        if not isinstance(tool, dict) or tool.get("type") != "function":
            continue
        schema = tool.get("parameters")
        declaration = {"name": tool.get("name"), "description": tool.get("description") or ""}
        check_gemini_declaration(
            index, 0, {**declaration, "parametersJsonSchema": schema or {"type": "object"}}
        )
        parameters = schema if isinstance(schema, dict) else {"type": "object", "properties": {}}
        tools.append(SimTool(str(tool["name"]), str(tool.get("description") or ""), parameters))
    return tuple(tools)


def _calling_config(choice: Any) -> dict[str, Any] | None:
    """``generation_config.tool_choice`` as the ``functionCallingConfig`` of ``generateContent``."""
    if choice is None:
        return None
    if isinstance(choice, str):
        return {"functionCallingConfig": {"mode": choice.upper()}}
    allowed = choice.get("allowed_tools") if isinstance(choice, dict) else None
    if not isinstance(allowed, dict):
        raise _bad("Invalid value at 'generation_config.tool_choice'.")
    mode = str(allowed.get("mode") or "auto").upper()
    return {"functionCallingConfig": {"mode": mode, "allowedFunctionNames": allowed.get("tools") or []}}


def _stamp(ctx: RenderContext) -> str:
    return datetime.fromtimestamp(ctx.created, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class GeminiInteractionsDialect(GeminiDialect):
    """Encoder/decoder for the Interactions API; keeps this server's stored interactions."""

    name = "gemini-interactions"

    def __init__(self) -> None:
        self._stored: OrderedDict[str, tuple[SimTurn, ...]] = OrderedDict()

    def model_not_found(self, model: str) -> MockError:
        """404 ``NOT_FOUND``."""
        return MockError(
            "not_found",
            f"models/{model} is not found for API version v1beta, or is not supported for interactions.",
        )

    def error_body(self, error: MockError, request_id: str) -> tuple[dict[str, Any], dict[str, str]]:
        """Gemini's error with ``code`` the status name in lower case, as the SDK's ``Error`` type has it."""
        body, headers = super().error_body(error, request_id)
        inner = dict(body["error"])
        inner["code"] = str(inner.pop("status")).lower()
        return {"error": inner}, headers

    # ---------------------------------------------------------------- decoding
    def decode(self, body: Any, route: RouteInfo) -> Decoded:
        """Decode a create-interaction request, joining a stored interaction when one is referenced."""
        if not isinstance(body, dict):
            raise _bad("Invalid JSON payload received. Expected an object at the top level.")
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise _bad("* CreateInteractionRequest.model: model is not specified\n")
        previous = body.get("previous_interaction_id")
        prior: tuple[SimTurn, ...] = ()
        if previous is not None:
            if previous not in self._stored:
                raise MockError("not_found", f"Interaction '{previous}' was not found.")
            self._stored.move_to_end(previous)
            prior = self._stored[previous]
        steps, turns = decode_input(body.get("input"), prior)
        config = body.get("generation_config") or {}
        if not isinstance(config, dict):
            raise _bad("Invalid JSON payload received. 'generation_config' must be an object.")
        tools = decode_tools(body.get("tools"))
        choice, offered = decode_choice(_calling_config(config.get("tool_choice")), tools)
        system = body.get("system_instruction") or ""
        if not isinstance(system, str):
            raise _bad("Invalid JSON payload received. 'system_instruction' must be a string.")
        model = model.removeprefix("models/")
        request = SimRequest(model=model, system=system, turns=turns, tools=offered, tool_choice=choice)
        echo = {"steps": steps, "previous": previous, "store": body.get("store", True) is not False}
        return Decoded(model, body.get("stream") is True, request, echo)

    # ---------------------------------------------------------------- encoding
    def render(self, reply: SimReply, decoded: Decoded, ctx: RenderContext) -> dict[str, Any]:
        """A finished ``Interaction``: the input steps echoed, then the model's."""
        interaction_id, steps = self._answer(reply, decoded, ctx)
        return self._interaction(interaction_id, decoded, ctx, reply, [*decoded.echo["steps"], *steps])

    def render_stream(self, reply: SimReply, decoded: Decoded, ctx: RenderContext) -> list[SseEvent]:
        """``interaction.created`` … ``step.start/delta/stop`` per model step … ``interaction.completed``."""
        interaction_id, steps = self._answer(reply, decoded, ctx)
        done = self._interaction(interaction_id, decoded, ctx, reply, None)
        started = {
            "id": interaction_id,
            "status": "in_progress",
            "model": decoded.model,
            "created": done["created"],
        }
        events: list[tuple[str, dict[str, Any]]] = [
            ("interaction.created", {"interaction": started}),
            ("interaction.status_update", {"interaction_id": interaction_id, "status": "in_progress"}),
        ]
        for index, step in enumerate(steps):
            events.extend(_step_events(index, step, ctx))
        events.append(
            ("interaction.status_update", {"interaction_id": interaction_id, "status": done["status"]})
        )
        events.append(("interaction.completed", {"interaction": done}))
        return [SseEvent(name, {"event_type": name, **data}) for name, data in events]

    def stream_error(self, error: MockError, ctx: RenderContext, position: int) -> SseEvent:
        """An ``error`` event (``error.code`` the status name in lower case)."""
        inner = self.error_body(error, "")[0]["error"]
        return SseEvent(
            "error", {"event_type": "error", "error": {"code": inner["code"], "message": inner["message"]}}
        )

    def frame(self, event: SseEvent) -> bytes:
        """``event:`` + ``data:`` records."""
        return frame_named(event)

    # ---------------------------------------------------------------- helpers
    def _answer(
        self, reply: SimReply, decoded: Decoded, ctx: RenderContext
    ) -> tuple[str, list[dict[str, Any]]]:
        """The new interaction's id and model steps, stored for continuation."""
        interaction_id = "v1_" + ctx.ids.token(40)
        steps = _model_steps(reply, ctx)
        if decoded.echo["store"]:
            turns = list(decoded.request.turns)
            turns.append(SimTurn("assistant"))
            for step in steps:
                if step["type"] == "model_output":
                    _assistant(turns, text=wire_text(step.get("content")))
                elif step["type"] == "function_call":
                    _assistant(turns, call=model_call(step))
            self._stored[interaction_id] = tuple(turns)
            while len(self._stored) > STORE_LIMIT:
                self._stored.popitem(last=False)
        return interaction_id, steps

    def _interaction(
        self,
        interaction_id: str,
        decoded: Decoded,
        ctx: RenderContext,
        reply: SimReply,
        steps: list[dict[str, Any]] | None,
    ) -> dict[str, Any]:
        status = "requires_action" if reply.kind == "calls" and reply.calls else "completed"
        body: dict[str, Any] = {
            "id": interaction_id,
            "status": status,
            "model": decoded.model,
            "created": _stamp(ctx),
            "updated": _stamp(ctx),
        }
        if decoded.echo["previous"] is not None:
            body["previous_interaction_id"] = decoded.echo["previous"]
        if steps is not None:
            body["steps"] = steps
        body["usage"] = {
            "total_input_tokens": ctx.input_tokens,
            "total_output_tokens": ctx.output_tokens,
            "total_thought_tokens": 0,
            "total_tokens": ctx.input_tokens + ctx.output_tokens,
        }
        return body


def _model_steps(reply: SimReply, ctx: RenderContext) -> list[dict[str, Any]]:
    if reply.kind == "refusal":
        return [{"type": "model_output", "error": _REFUSAL}]
    steps: list[dict[str, Any]] = []
    calls = reply.calls if reply.kind == "calls" else ()
    if calls:
        steps.append({"type": "thought", "signature": base64.b64encode(ctx.ids.token(48).encode()).decode()})
    if reply.text:
        steps.append({"type": "model_output", "content": [{"type": "text", "text": reply.text}]})
    for call in calls:
        ok, value = parse_arguments(call.arguments_json)
        # Broken argument text cannot be an object; it is passed as the raw string so clients see it.
        arguments = value if ok else call.arguments_json
        steps.append(
            {
                "type": "function_call",
                "id": call.id or ctx.ids.token(8).lower(),
                "name": call.name,
                "arguments": arguments,
            }
        )
    return steps


def _step_events(index: int, step: dict[str, Any], ctx: RenderContext) -> list[tuple[str, dict[str, Any]]]:
    kind = step["type"]
    deltas: list[dict[str, Any]] = []
    start = dict(step)
    if kind == "thought":
        start = {"type": "thought"}
        deltas = [{"type": "thought_signature", "signature": step["signature"]}]
    elif kind == "model_output" and "content" in step:
        start = {"type": "model_output"}
        deltas = [{"type": "text", "text": piece} for piece in text_pieces(step["content"][0]["text"])]
    elif kind == "function_call":
        start = {**step, "arguments": {}}
        text = step["arguments"] if isinstance(step["arguments"], str) else json.dumps(step["arguments"])
        deltas = [{"type": "arguments_delta", "arguments": piece} for piece in ctx.argument_fragments(text)]
    events = [("step.start", {"index": index, "step": start})]
    events.extend(("step.delta", {"index": index, "delta": delta}) for delta in deltas)
    events.append(("step.stop", {"index": index}))
    return events
