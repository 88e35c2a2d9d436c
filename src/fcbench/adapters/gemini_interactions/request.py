"""Build Gemini Interactions requests (``POST /interactions``) from canonical ones (protocols.md §4.6).

* The body is ``model``, ``input`` (a list of steps), ``system_instruction`` (a string, system
  messages of the history appended), ``tools`` (flat ``{"type": "function", ...}`` entries),
  ``generation_config`` and, when streaming, ``stream: true``.
* Steps: a user message is a ``user_input`` step with one ``text`` content item; an assistant
  turn parsed from this dialect replays its raw model steps from ``provider_state`` (thought
  steps with their ``signature`` included, unchanged); any other assistant turn becomes a
  ``model_output`` text step plus one ``function_call`` step per call (``arguments`` an object);
  a tool result is a ``function_result`` step ``{call_id, name, result, is_error}``, the results
  of one turn in the order of its calls, matched by call id. A string result goes as it is, an
  object as an object, anything else as JSON text (a list would read as content items).
* Stateless by default: the whole conversation is replayed and ``store`` is not sent (the API's
  default applies, so any turn can later be continued by id). With
  ``RequestOptions.previous_response_id`` the request carries ``previous_interaction_id``,
  ``store: true`` (a continued chain must stay stored) and, as ``input``, only the messages after
  the last assistant turn: the server holds the rest. ``system_instruction``, ``tools`` and
  ``generation_config`` are sent every time, since they belong to one interaction, not the chain.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from fcbench.adapters.base import BuiltRequest, CanonicalRequest, RequestOptions, ToolChoice
from fcbench.adapters.common import order_results_by_calls
from fcbench.adapters.gemini_interactions.schema import transform_schema
from fcbench.contract import (
    AssistantMessage,
    Message,
    SchemaChange,
    SystemMessage,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

DIALECT = "gemini-interactions"
PATH = "/interactions"
STEPS_KEY = "steps"
"""``provider_state[DIALECT]`` key holding the model steps of a turn, replayed unchanged."""

_CHOICES: dict[str, Callable[[ToolChoice, bool], str | dict[str, Any]]] = {
    "auto": lambda choice, strict: "validated" if strict else "auto",
    "required": lambda choice, strict: "any",
    "named": lambda choice, strict: {"allowed_tools": {"mode": "any", "tools": [choice.name]}},
    "none": lambda choice, strict: "none",
}
"""Canonical tool-choice mode -> ``generation_config.tool_choice``."""


def user_step(text: str) -> dict[str, Any]:
    """A ``user_input`` step carrying one text item."""
    return {"type": "user_input", "content": [{"type": "text", "text": text}]}


def result_step(result: ToolResultMessage) -> dict[str, Any]:
    """One ``function_result`` step answering one call."""
    content = result.content
    value = content if isinstance(content, str | dict) else json.dumps(content, ensure_ascii=False)
    step: dict[str, Any] = {"type": "function_result", "call_id": result.call_id}
    step.update(name=result.name, result=value, is_error=result.is_error)
    return step


def tool_result_messages(
    calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
) -> list[dict[str, Any]]:
    """One ``function_result`` step per result, in the order of ``calls``, matched by call id."""
    return [result_step(r) for r in order_results_by_calls(calls, results)]


def _call_arguments(call: ToolCall, notes: list[str]) -> dict[str, Any]:
    if isinstance(call.arguments, dict):
        return call.arguments
    notes.append(f"history call to {call.name!r} has no object arguments; sent as {{}}")
    return {}


def _model_steps(message: AssistantMessage, notes: list[str]) -> list[dict[str, Any]]:
    state = (message.provider_state or {}).get(DIALECT)
    replay = state.get(STEPS_KEY) if isinstance(state, dict) else None
    if isinstance(replay, list) and replay and all(isinstance(step, dict) for step in replay):
        return [dict(step) for step in replay]
    steps: list[dict[str, Any]] = []
    if message.content:
        steps.append({"type": "model_output", "content": [{"type": "text", "text": message.content}]})
    for call in message.calls:
        if call.id is None:
            notes.append(f"history call to {call.name!r} has no id; sent with an empty id")
        steps.append(
            {
                "type": "function_call",
                "id": call.id or "",
                "name": call.name,
                "arguments": _call_arguments(call, notes),
            }
        )
    return steps


def wire_input(messages: Sequence[Message], notes: list[str]) -> tuple[list[str], list[dict[str, Any]]]:
    """System texts found in the history and the ``input`` steps for it, in order."""
    system: list[str] = []
    steps: list[dict[str, Any]] = []
    calls: list[ToolCall] = []
    pending: list[ToolResultMessage] = []
    for index, message in enumerate([*messages, None]):
        if isinstance(message, ToolResultMessage):
            pending.append(message)
            continue
        if pending:
            steps.extend(tool_result_messages(calls, pending))
            pending = []
        if isinstance(message, SystemMessage):
            system.append(message.content)
        elif isinstance(message, UserMessage):
            steps.append(user_step(message.content))
        elif isinstance(message, AssistantMessage):
            calls = list(message.calls)
            model = _model_steps(message, notes)
            if not model:
                notes.append(f"history message {index} is an empty assistant turn; not sent")
            steps.extend(model)
    return system, steps


def _stateful_input(messages: Sequence[Message], notes: list[str]) -> tuple[list[str], list[dict[str, Any]]]:
    """System texts of the whole history, and steps for the messages after the last assistant turn.

    The results among those messages come first, in the order of that turn's calls.
    """
    last = max((i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)), default=-1)
    previous = messages[last] if last >= 0 else None
    calls = list(previous.calls) if isinstance(previous, AssistantMessage) else []
    new = messages[last + 1 :]
    earlier = [m.content for m in messages[: last + 1] if isinstance(m, SystemMessage)]
    system, steps = wire_input([m for m in new if not isinstance(m, ToolResultMessage)], notes)
    results = tool_result_messages(calls, [m for m in new if isinstance(m, ToolResultMessage)])
    return [*earlier, *system], [*results, *steps]


def _tool_choice(choice: ToolChoice, tools: Sequence[Tool], options: RequestOptions, notes: list[str]) -> Any:
    if options.strict and choice.mode in ("required", "named"):
        notes.append("strict: 'validated' only replaces 'auto'; forced choices are sent as 'any'")
    if choice.mode == "named" and choice.name not in {t.name for t in tools}:
        notes.append(f"tool_choice names {choice.name!r}, which is not among the offered tools")
    return _CHOICES[choice.mode](choice, options.strict)


def build_request(request: CanonicalRequest) -> BuiltRequest:
    """Translate a canonical request into a ``POST /interactions`` body."""
    system, messages, tools, tool_choice, options = request
    notes: list[str] = []
    changes: list[SchemaChange] = []
    continuing = options.previous_response_id is not None
    if continuing:
        extra_system, steps = _stateful_input(messages, notes)
    else:
        extra_system, steps = wire_input(messages, notes)
    body: dict[str, Any] = {"model": options.model.removeprefix("models/"), "input": steps}
    system_text = "\n\n".join(part for part in [system or "", *extra_system] if part)
    if system_text:
        body["system_instruction"] = system_text
    generation: dict[str, Any] = {"max_output_tokens": options.max_tokens}
    if options.temperature is not None:
        generation["temperature"] = options.temperature
    if options.seed is not None:
        generation["seed"] = options.seed
    if tools:
        wire_tools: list[dict[str, Any]] = []
        for tool in tools:
            parameters, changed = transform_schema(tool, options.strict)
            changes.extend(changed)
            wire_tools.append(
                {
                    "type": "function",
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": parameters,
                }
            )
        body["tools"] = wire_tools
        generation["tool_choice"] = _tool_choice(tool_choice, tools, options, notes)
    elif tool_choice.mode != "auto":
        notes.append(f"tool_choice {tool_choice.mode!r} not sent: no tools offered")
    if options.parallel_tool_calls is False:
        notes.append("parallel_tool_calls=False not sent: the Interactions API has no parallel-call switch")
    body["generation_config"] = generation
    if continuing:
        body["previous_interaction_id"] = options.previous_response_id
        body["store"] = True
    if options.stream:
        body["stream"] = True
    return BuiltRequest(path=PATH, body=body, stream=options.stream, schema_changes=changes, notes=notes)
