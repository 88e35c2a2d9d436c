"""Tool calls written as text: the one definition of a call a model wrote out instead of making it.

Small local models often answer a tool-calling request with the call written out in the message
instead of a real call: a bare object, a fenced block, an object inside ``<tool_call>`` or
``<tools>`` tags, several objects on several lines or in an array, doubled braces copied from a
prompt template, prose before or after. :func:`calls_in_text` is shared by the adapters (which
record the ``json_call_in_text`` anomaly) and the grader (which reads the text again, so older
records and hand-built outcomes are judged alike), as
:func:`fcbench.contract.normalise_arguments` is the one reading of an argument string.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from fcbench.contract import normalise_arguments

TEXT_CALL_SCAN_CHARS = 20_000
"""Characters of a text that :func:`calls_in_text` scans (the rest is ignored)."""
TEXT_CALL_DECODE_ATTEMPTS = 200
"""Positions (``{`` or ``[``) at which :func:`calls_in_text` decodes a JSON value, per reading."""
TEXT_CALL_LIMIT = 32
"""Calls :func:`calls_in_text` returns at most."""
TEXT_CALL_DEPTH = 4
"""How deep inside a decoded value calls are looked for (``{"tool_calls": [{"function": ...}]}``)."""
TEXT_CALL_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")
"""Keys that hold a written call's arguments, in order of preference."""

_TEXT_CALL_START = re.compile(r"[{\[]")
_JSON_DECODER = json.JSONDecoder()


class TextCall(NamedTuple):
    """One call found written in a text: the tool's name and its arguments object."""

    name: str
    arguments: dict[str, Any]


def _written_arguments(value: dict[str, Any]) -> dict[str, Any] | None:
    for key in TEXT_CALL_ARGUMENT_KEYS:
        if key not in value:
            continue
        arguments = value[key]
        if isinstance(arguments, str):  # read like any argument string: parsed, never repaired
            arguments, _, parse_error = normalise_arguments(arguments)
            if parse_error is not None:
                return None
        return arguments if isinstance(arguments, dict) else None
    return None


def _written_call(value: dict[str, Any], offered: frozenset[str] | None) -> TextCall | None:
    function = value.get("function")
    if isinstance(function, dict):
        return _written_call(function, offered)
    name = value.get("name")
    if not isinstance(name, str) or (offered is not None and name not in offered):
        return None
    arguments = _written_arguments(value)
    return None if arguments is None else TextCall(name, arguments)


def _written_calls_in(value: Any, offered: frozenset[str] | None, depth: int = 0) -> Iterator[TextCall]:
    """Calls in one decoded value: the value itself, or calls nested in its lists and objects."""
    if depth > TEXT_CALL_DEPTH:
        return
    if isinstance(value, dict):
        call = _written_call(value, offered)
        if call is not None:
            yield call
            return
        children: Any = value.values()
    elif isinstance(value, list):
        children = value
    else:
        return
    for child in children:
        if isinstance(child, dict | list):
            yield from _written_calls_in(child, offered, depth + 1)


def _scan_for_calls(text: str, offered: frozenset[str] | None) -> list[TextCall]:
    found: list[TextCall] = []
    position = 0
    attempts = 0
    while len(found) < TEXT_CALL_LIMIT and attempts < TEXT_CALL_DECODE_ATTEMPTS:
        match = _TEXT_CALL_START.search(text, position)
        if match is None:
            break
        attempts += 1
        try:
            value, end = _JSON_DECODER.raw_decode(text, match.start())
        except (ValueError, RecursionError):
            position = match.start() + 1
            continue
        found.extend(_written_calls_in(value, offered))
        position = end
    return found[:TEXT_CALL_LIMIT]


def calls_in_text(text: str | None, offered_tools: Sequence[str] | None) -> list[TextCall]:
    """Every call of an offered tool written as JSON in ``text``, in order of appearance.

    A call is a JSON object naming a tool with an arguments object: ``{"name": N, "arguments":
    {...}}`` (or ``"parameters"``, ``"args"``, ``"input"``; the arguments may be a JSON string),
    ``{"function": {"name": N, "arguments": ...}}`` (OpenAI style), anywhere in the text, also
    inside fences, tags, arrays or ``{"tool_calls": [...]}``. ``offered_tools`` None accepts any
    name. A text with doubled braces (``{{ ... }}``) is read with them halved when reading it as
    it is finds nothing. The work is bounded (:data:`TEXT_CALL_SCAN_CHARS`,
    :data:`TEXT_CALL_DECODE_ATTEMPTS`, :data:`TEXT_CALL_LIMIT`); nothing is repaired: a call whose
    JSON does not parse is not found.
    """
    if not text:
        return []
    scanned = text[:TEXT_CALL_SCAN_CHARS]
    offered = frozenset(offered_tools) if offered_tools is not None else None
    found = _scan_for_calls(scanned, offered)
    if not found and "{{" in scanned:
        found = _scan_for_calls(scanned.replace("{{", "{").replace("}}", "}"), offered)
    return found


def text_calls_json(calls: Sequence[TextCall]) -> str:
    """Calls as compact JSON, ``[{"name": ..., "arguments": {...}}, ...]`` (an anomaly's detail)."""
    items = [{"name": call.name, "arguments": call.arguments} for call in calls]
    return json.dumps(items, ensure_ascii=False, separators=(",", ":"))


__all__ = [
    "TEXT_CALL_ARGUMENT_KEYS",
    "TEXT_CALL_DECODE_ATTEMPTS",
    "TEXT_CALL_DEPTH",
    "TEXT_CALL_LIMIT",
    "TEXT_CALL_SCAN_CHARS",
    "TextCall",
    "calls_in_text",
    "text_calls_json",
]
