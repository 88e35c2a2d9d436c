"""Build Gemini ``generateContent`` requests from canonical ones (protocols.md §4.1, §4.3).

* Path ``/models/{model}:generateContent``, or ``:streamGenerateContent`` with ``alt=sse`` for a
  stream, appended to a base URL that ends in the API version (e.g. ``…/v1beta``).
* System text goes in ``systemInstruction``; turns are ``contents`` with roles ``user``/``model``.
* An assistant turn parsed from this dialect is replayed from ``provider_state`` (its parts
  unchanged, ``thoughtSignature`` included); other assistant turns become a text part and
  ``functionCall`` parts (with ``id`` only when the call has a real one).
* The tool results after a model turn become **one** ``user`` turn of ``functionResponse`` parts
  in call order. A result is matched to its call by id, by the call's key (see
  :data:`CALL_KEY_PREFIX`), or, without an id, by tool name in order; each part carries the
  call's ``name`` and, when the call had one, its ``id``. The result goes under ``output``, or
  under ``error`` when ``is_error`` (Gemini has no error flag).
* Tools are one ``{"functionDeclarations": [...]}`` entry with the schema in
  ``parametersJsonSchema`` (see :mod:`fcbench.adapters.gemini.schema`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fcbench.adapters.base import BuiltRequest, CanonicalRequest, RequestOptions, ToolChoice
from fcbench.adapters.common import pair_results
from fcbench.adapters.gemini.schema import SCHEMA_FIELD, transform_schema
from fcbench.contract import (
    AssistantMessage,
    Message,
    SchemaChange,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

DIALECT = "gemini"
CALL_KEY_PREFIX = "gemini-call-"
"""Key of the i-th call of a turn that came without an id: ``gemini-call-{i}``.

Gemini calls often have no id, and the outcome keeps them id-less (``missing_call_id``). A runner
that needs a key to tie a result to such a call reads ``provider_state["gemini"]["call_keys"]`` of
the assistant turn (the real id where there is one, this key otherwise) and may use it as the
result's ``call_id``; it is never sent on the wire."""

_MODES: dict[str, Callable[[ToolChoice, bool], dict[str, Any]]] = {
    "auto": lambda choice, strict: {"mode": "VALIDATED" if strict else "AUTO"},
    "required": lambda choice, strict: {"mode": "ANY"},
    "named": lambda choice, strict: {"mode": "ANY", "allowedFunctionNames": [choice.name]},
    "none": lambda choice, strict: {"mode": "NONE"},
}
"""Canonical tool-choice mode -> ``functionCallingConfig``."""


def call_keys(calls: Sequence[ToolCall], state: Any = None) -> list[str]:
    """The key of each call: a stored key, else its id, else ``gemini-call-{i}``."""
    stored = state.get("call_keys") if isinstance(state, dict) else None
    if isinstance(stored, list) and len(stored) == len(calls) and all(isinstance(k, str) for k in stored):
        return list(stored)
    return [call.id or f"{CALL_KEY_PREFIX}{i}" for i, call in enumerate(calls)]


def response_parts(
    calls: Sequence[ToolCall], results: Sequence[ToolResultMessage], keys: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """``functionResponse`` parts for ``results``, in call order."""
    parts: list[dict[str, Any]] = []
    for index, result in pair_results(calls, results, keys if keys is not None else call_keys(calls)):
        call = calls[index] if index is not None else None
        reply: dict[str, Any] = {"name": call.name if call is not None else result.name}
        call_id = call.id if call is not None else result.call_id
        if call_id and not call_id.startswith(CALL_KEY_PREFIX):
            reply["id"] = call_id
        reply["response"] = {"error" if result.is_error else "output": result.content}
        parts.append({"functionResponse": reply})
    return parts


def _model_parts(message: AssistantMessage, notes: list[str]) -> list[dict[str, Any]]:
    state = (message.provider_state or {}).get(DIALECT)
    if isinstance(state, dict) and isinstance(state.get("parts"), list):
        replay: list[dict[str, Any]] = state["parts"]
        return replay
    parts: list[dict[str, Any]] = [{"text": message.content}] if message.content else []
    for call in message.calls:
        arguments = call.arguments
        if not isinstance(arguments, dict):
            notes.append(f"history call {call.name!r} arguments are not an object; sent as {{}}")
            arguments = {}
        function_call: dict[str, Any] = {"name": call.name, "args": arguments}
        if call.id:
            function_call["id"] = call.id
        parts.append({"functionCall": function_call})
    return parts


def wire_contents(messages: Sequence[Message], notes: list[str]) -> tuple[list[str], list[dict[str, Any]]]:
    """System texts and the ``contents`` array for a canonical history."""
    system: list[str] = []
    contents: list[dict[str, Any]] = []
    calls: list[ToolCall] = []
    keys: list[str] = []
    pending: list[ToolResultMessage] = []
    for index, message in enumerate([*messages, None]):
        if isinstance(message, ToolResultMessage):
            pending.append(message)
            continue
        if pending:
            contents.append({"role": "user", "parts": response_parts(calls, pending, keys)})
            pending = []
        if isinstance(message, SystemMessage):
            system.append(message.content)
        elif isinstance(message, UserMessage):
            contents.append({"role": "user", "parts": [{"text": message.content}]})
        elif isinstance(message, AssistantMessage):
            calls = list(message.calls)
            keys = call_keys(calls, (message.provider_state or {}).get(DIALECT))
            parts = _model_parts(message, notes)
            if parts:
                contents.append({"role": "model", "parts": parts})
            else:
                notes.append(f"history message {index} is an empty assistant turn; not sent")
    return system, contents


def _tool_config(choice: ToolChoice, options: RequestOptions, notes: list[str]) -> dict[str, Any]:
    config = _MODES[choice.mode](choice, options.strict)
    if options.strict and choice.mode in ("required", "named"):
        notes.append("strict: VALIDATED only replaces AUTO; forced choices are sent as ANY")
    return {"functionCallingConfig": config}


def build_request(request: CanonicalRequest) -> BuiltRequest:
    """Translate a canonical request into a ``generateContent`` (or streaming) request."""
    system, messages, tools, tool_choice, options = request
    notes: list[str] = []
    changes: list[SchemaChange] = []
    extra_system, contents = wire_contents(messages, notes)
    body: dict[str, Any] = {"contents": contents}
    system_text = "\n\n".join(part for part in [system or "", *extra_system] if part)
    if system_text:
        body["systemInstruction"] = {"parts": [{"text": system_text}]}
    if tools:
        declarations: list[dict[str, Any]] = []
        for tool in tools:
            schema, changed = transform_schema(tool, options.strict)
            changes.extend(changed)
            declarations.append({"name": tool.name, "description": tool.description, SCHEMA_FIELD: schema})
        body["tools"] = [{"functionDeclarations": declarations}]
        body["toolConfig"] = _tool_config(tool_choice, options, notes)
        if tool_choice.mode == "named" and tool_choice.name not in {t.name for t in tools}:
            notes.append(f"tool_choice names {tool_choice.name!r}, which is not among the offered tools")
    elif tool_choice.mode != "auto":
        notes.append(f"tool_choice {tool_choice.mode!r} not sent: no tools offered")
    if options.parallel_tool_calls is False:
        notes.append("parallel_tool_calls=False not sent: Gemini has no parallel-call switch")
    generation: dict[str, Any] = {"maxOutputTokens": options.max_tokens}
    if options.temperature is not None:
        generation["temperature"] = options.temperature
    if options.seed is not None:
        generation["seed"] = options.seed
    body["generationConfig"] = generation
    model = options.model.removeprefix("models/")
    if options.stream:
        path, query = f"/models/{model}:streamGenerateContent", {"alt": "sse"}
    else:
        path, query = f"/models/{model}:generateContent", {}
    return BuiltRequest(
        path=path, body=body, stream=options.stream, query=query, schema_changes=changes, notes=notes
    )


def tool_result_messages(
    calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
) -> list[dict[str, Any]]:
    """One ``user`` turn holding every ``functionResponse`` part, in call order."""
    return [{"role": "user", "parts": response_parts(calls, results)}]
