"""Unknown request fields, rejected the way each real API rejects them (HTTP 400).

The allowed field names come from ``fields.json``, derived from the official API specs under
``tests/fixtures/specs/`` (``tests/support/spec_fields.py`` regenerates it; a test keeps it in
step). It is read once at import, and every check is a set lookup: no spec is parsed per request.

Objects checked (anything else, e.g. a JSON Schema, tool ``input``/``args``, is open):

=====================  ===================================================================
dialect                objects
=====================  ===================================================================
openai-chat            top level; ``tools[i]`` (function) and ``tools[i].function``;
                       ``tool_choice`` (function, allowed_tools); ``stream_options``;
                       ``messages[i]`` by ``role`` (plus :data:`CHAT_MESSAGE_EXTRAS`)
openai-responses       top level; ``tools[i]`` (function); ``tool_choice`` (function,
                       allowed_tools); ``input[i]`` items ``function_call`` and
                       ``function_call_output``
anthropic-messages     top level (messages and count_tokens); ``tools[i]`` (custom) and the
                       tool ``type`` tags; ``tool_choice`` by type; ``thinking`` by type;
                       ``metadata``; ``messages[i]``; content blocks ``text``,
                       ``tool_use``, ``tool_result``
gemini                 top level (generateContent and countTokens, with its
                       ``generateContentRequest``); ``tools[i]``; ``generationConfig`` and
                       its ``thinkingConfig``; ``toolConfig`` and its
                       ``functionCallingConfig``; ``contents[i]`` and ``systemInstruction``;
                       ``parts[j]`` with their ``functionCall`` / ``functionResponse``
gemini-interactions    top level; ``generation_config`` and an object ``tool_choice``;
                       function ``tools[i]``; ``input[i]`` steps (field sets in
                       :mod:`fcbench.mock.gemini_interactions`, from the SDK's types)
bedrock-converse       top level; ``inferenceConfig``; ``toolConfig``, its ``tools[i]`` and
                       their ``toolSpec`` (field sets in :mod:`fcbench.mock.bedrock_converse_input`)
=====================  ===================================================================

Error shapes: OpenAI ``{"error": {"message": "Unrecognized request argument supplied: X",
"type": "invalid_request_error", "param": "X", "code": "unknown_parameter"}}`` (nested:
``Unknown parameter: 'tools[0].function.x'.``); Anthropic ``X: Extra inputs are not permitted``
with pydantic-style paths (``tools.0.custom.x``, ``messages.0.content.1.tool_use.x``); Gemini
``Invalid JSON payload received. Unknown name "X" at 'generation_config': Cannot find field.``
(proto snake_case paths; camelCase and snake_case keys are both accepted).

Anthropic beta: a request with an ``anthropic-beta`` header (any value) is checked against the
spec's ``Beta*`` schemas, one without it against the plain ones. So the beta-only fields
(``context_management``, ``mcp_servers``, ``output_format``, ``speed``, ``user_profile_id``, an
object ``container``) and beta-only tool types (``computer_*``, ``bash_20241022``,
``text_editor_20241022``, ``mcp_toolset``, ``advisor_*``, ...; the lists are in ``fields.json``)
are 400 without the header and accepted with it. Which beta name unlocks which field is not in
the spec, so any value unlocks all. ``betas`` in the body is an SDK argument, never a wire field:
always unknown. ``thread`` (message threads, sent by the SDK's tool runner under a beta header;
newer than the spec) is answered with the ``thread_unsupported_request`` rejection that tells the
SDK to continue unthreaded.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any

from fcbench.mock.bedrock_converse_input import check_fields as check_bedrock_fields
from fcbench.mock.common import MockError
from fcbench.mock.gemini_interactions import check_fields as check_interactions

FieldSets = Mapping[str, frozenset[str]]


def _load() -> Mapping[str, FieldSets]:
    text = resources.files("fcbench.mock").joinpath("fields.json").read_text(encoding="utf-8")
    raw: dict[str, dict[str, list[str]]] = json.loads(text)
    return {
        dialect: {label: frozenset(names) for label, names in sets.items()} for dialect, sets in raw.items()
    }


FIELDS: Mapping[str, FieldSets] = _load()
"""Dialect -> object label -> allowed field names (from ``fields.json``)."""

THREAD_UNSUPPORTED = "thread_unsupported_request"
"""``error.details.error_code`` the Anthropic SDK reads as "send again without ``thread``"."""

_Unknown = Callable[[str, str], MockError]


# ---------------------------------------------------------------- errors
def _openai_unknown(path: str, key: str) -> MockError:
    if not path:
        message = f"Unrecognized request argument supplied: {key}"
        return MockError("invalid_request", message, param=key, code="unknown_parameter")
    where = f"{path}.{key}"
    return MockError(
        "invalid_request", f"Unknown parameter: '{where}'.", param=where, code="unknown_parameter"
    )


def _anthropic_unknown(path: str, key: str) -> MockError:
    where = f"{path}.{key}" if path else key
    return MockError("invalid_request", f"{where}: Extra inputs are not permitted")


def _snake(name: str) -> str:
    return "".join("_" + char.lower() if char.isupper() else char for char in name)


def _gemini_unknown(path: str, key: str) -> MockError:
    at = f" at '{path}'" if path else ""
    return MockError(
        "invalid_request", f'Invalid JSON payload received. Unknown name "{key}"{at}: Cannot find field.'
    )


def _camel(key: str) -> str:
    if "_" not in key:
        return key
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _keys(obj: dict[str, Any], allowed: frozenset[str], path: str, unknown: _Unknown) -> None:
    for key in obj:
        if key not in allowed:
            raise unknown(path, key)


def _gemini_keys(obj: dict[str, Any], allowed: frozenset[str], path: str) -> None:
    for key in obj:
        if key not in allowed and _camel(key) not in allowed:
            raise _gemini_unknown(path, key)


def _dicts(value: Any) -> list[tuple[int, dict[str, Any]]]:
    if not isinstance(value, list):
        return []
    return [(index, item) for index, item in enumerate(value) if isinstance(item, dict)]


# ---------------------------------------------------------------- OpenAI
CHAT_MESSAGE_EXTRAS: Mapping[str, frozenset[str]] = {"message.assistant": frozenset({"annotations"})}
"""Chat message fields the spec does not list but the real API accepts (label -> names).

Evidence, not guesswork: recorded real requests that got a 200 carry them (an assistant message
echoing its reply's ``annotations: []``, as SDK loops that send ``message.model_dump()`` back do).
A test scans every recorded Chat request and keeps this list equal to what they show.
"""

_CHAT_MESSAGES: Mapping[str, frozenset[str]] = {
    label: names | CHAT_MESSAGE_EXTRAS.get(label, frozenset())
    for label, names in FIELDS["openai-chat"].items()
    if label.startswith("message.")
}
"""Chat ``messages[i]`` label (``message.<role>``) -> allowed keys: the spec's plus the extras."""


def _check_openai(body: dict[str, Any], sets: FieldSets) -> None:
    """What both OpenAI dialects check: the top level, function tools and an object tool choice."""
    _keys(body, sets["request"], "", _openai_unknown)
    for index, tool in _dicts(body.get("tools")):
        if tool.get("type") == "function":
            _keys(tool, sets["tool.function"], f"tools[{index}]", _openai_unknown)
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and f"tool_choice.{choice.get('type')}" in sets:
        _keys(choice, sets[f"tool_choice.{choice.get('type')}"], "tool_choice", _openai_unknown)


def _check_chat(body: dict[str, Any], root: str, beta: bool) -> None:
    sets = FIELDS["openai-chat"]
    _check_openai(body, sets)
    for index, tool in _dicts(body.get("tools")):
        if tool.get("type") == "function" and isinstance(tool.get("function"), dict):
            _keys(tool["function"], sets["function"], f"tools[{index}].function", _openai_unknown)
    if isinstance(body.get("stream_options"), dict):
        _keys(body["stream_options"], sets["stream_options"], "stream_options", _openai_unknown)
    for index, message in _dicts(body.get("messages")):
        allowed = _CHAT_MESSAGES.get(f"message.{message.get('role')}")
        if allowed is not None:  # an unknown role is the role check's 400, not this one
            _keys(message, allowed, f"messages[{index}]", _openai_unknown)


def _check_responses(body: dict[str, Any], root: str, beta: bool) -> None:
    sets = FIELDS["openai-responses"]
    _check_openai(body, sets)
    for index, item in _dicts(body.get("input")):
        label = f"item.{item.get('type')}"
        if label in sets:
            _keys(item, sets[label], f"input[{index}]", _openai_unknown)


# ---------------------------------------------------------------- Anthropic
def _check_anthropic(body: dict[str, Any], root: str, beta: bool) -> None:
    sets = FIELDS["anthropic-messages"]
    prefix = "beta:" if beta else ""
    unknown = _anthropic_unknown
    if beta and "thread" in body:
        raise MockError(
            "invalid_request",
            "thread: message threads are not supported by this server; send the full conversation.",
            code=THREAD_UNSUPPORTED,
        )
    _keys(body, sets[prefix + root], "", unknown)
    tags = sets[prefix + "tool_types"]
    for index, tool in _dicts(body.get("tools")):
        kind = tool.get("type")
        if kind is None or kind == "custom":
            _keys(tool, sets[prefix + "tool.custom"], f"tools.{index}.custom", unknown)
        elif kind not in tags:
            expected = ", ".join(f"'{tag}'" for tag in ["custom", *sorted(tags)])
            raise MockError(
                "invalid_request",
                f"tools.{index}: Input tag '{kind}' found using 'type' does not match any of the expected "
                f"tags: {expected}",
            )
    for name in ("tool_choice", "thinking"):
        value = body.get(name)
        if isinstance(value, dict) and f"{prefix}{name}.{value.get('type')}" in sets:
            label = f"{prefix}{name}.{value.get('type')}"
            _keys(value, sets[label], f"{name}.{value.get('type')}", unknown)
    if isinstance(body.get("metadata"), dict):
        _keys(body["metadata"], sets[prefix + "metadata"], "metadata", unknown)
    for index, message in _dicts(body.get("messages")):
        _keys(message, sets[prefix + "message"], f"messages.{index}", unknown)
        for position, block in _dicts(message.get("content")):
            label = f"{prefix}block.{block.get('type')}"
            if label in sets:
                _keys(block, sets[label], f"messages.{index}.content.{position}.{block.get('type')}", unknown)


# ---------------------------------------------------------------- Gemini
def _field(obj: dict[str, Any], camel: str) -> Any:
    value = obj.get(camel)
    return obj.get(_snake(camel)) if value is None else value


_GEMINI_CONFIGS: tuple[tuple[tuple[str, str], tuple[str, str]], ...] = (
    (("generationConfig", "generation_config"), ("thinkingConfig", "thinking_config")),
    (("toolConfig", "tool_config"), ("functionCallingConfig", "function_calling_config")),
)
"""(object, its proto path name) -> (the object nested in it, its proto path name)."""


def _check_gemini_request(body: dict[str, Any], path: str) -> None:
    sets = FIELDS["gemini"]
    _gemini_keys(body, sets["request"], path)
    at = f"{path}." if path else ""
    for index, tool in _dicts(_field(body, "tools")):
        _gemini_keys(tool, sets["tool"], f"{at}tools[{index}]")
    for (outer, outer_at), (inner, inner_at) in _GEMINI_CONFIGS:
        config = _field(body, outer)
        if isinstance(config, dict):
            _gemini_keys(config, sets[outer], f"{at}{outer_at}")
            nested = _field(config, inner)
            if isinstance(nested, dict):
                _gemini_keys(nested, sets[inner], f"{at}{outer_at}.{inner_at}")
    system = _field(body, "systemInstruction")
    if isinstance(system, dict):
        _check_gemini_content(system, f"{at}system_instruction")
    for index, content in _dicts(_field(body, "contents")):
        _check_gemini_content(content, f"{at}contents[{index}]")


def _check_gemini_content(content: dict[str, Any], path: str) -> None:
    sets = FIELDS["gemini"]
    _gemini_keys(content, sets["content"], path)
    for index, part in _dicts(content.get("parts")):
        where = f"{path}.parts[{index}]"
        _gemini_keys(part, sets["part"], where)
        for name, snake in (("functionCall", "function_call"), ("functionResponse", "function_response")):
            value = _field(part, name)
            if isinstance(value, dict):
                _gemini_keys(value, sets[name], f"{where}.{snake}")


def _check_gemini(body: dict[str, Any], root: str, beta: bool) -> None:
    if root == "count":
        _gemini_keys(body, FIELDS["gemini"]["count"], "")
        nested = _field(body, "generateContentRequest")
        if isinstance(nested, dict):
            _check_gemini_request(nested, "generate_content_request")
        for index, content in _dicts(_field(body, "contents")):
            _check_gemini_content(content, f"contents[{index}]")
        return
    _check_gemini_request(body, "")


CHECKERS: Mapping[str, Callable[[dict[str, Any], str, bool], None]] = {
    "openai-chat": _check_chat,
    "openai-responses": _check_responses,
    "anthropic-messages": _check_anthropic,
    "bedrock-converse": check_bedrock_fields,
    "gemini": _check_gemini,
    "gemini-interactions": check_interactions,
}
"""Dialect -> checker(body, root label ``request`` or ``count``, beta header present)."""


def check_fields(dialect: str, body: Any, *, root: str = "request", beta: bool = False) -> None:
    """Raise the dialect's 400 :class:`MockError` for the first unknown field of ``body``."""
    checker = CHECKERS.get(dialect)
    if checker is not None and isinstance(body, dict):
        checker(body, root, beta)
