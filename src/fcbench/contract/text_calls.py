"""Tool calls written as text: the one definition of a call a model wrote out instead of making it.

Small local models often answer a tool-calling request with the call written out in the message
instead of a real call, in the syntax of some model family's prompt format:

* a JSON object ``{"name": N, "arguments": {...}}`` (or ``"parameters"``, ``"args"``,
  ``"input"``; OpenAI's ``{"function": {...}}``), bare, fenced, in ``<tool_call>`` (Hermes) or
  ``<tools>`` tags, after Llama's ``<|python_tag|>``, Mistral's ``[TOOL_CALLS]`` or
  ``functools``, in an array, several on several lines, doubled braces copied from a template;
* Llama's ``<function=N>{...}</function>`` and Mistral's ``[TOOL_CALLS]N[ARGS]{...}``;
* a Python-style call ``N(key="value", n=1)``: BFCL's prompt format ``[f(a=1), g(b=2)]``,
  Gemma's ```` ```tool_code ```` fences (``print(default_api.N(...))``), ``N.call(...)``. The
  arguments are read with :mod:`ast` as literals only, never evaluated.

Every syntax produces the same :class:`TextCall` (name and arguments object). A text counts as a
call when it has a call's structure, whatever the name: the caller decides what a name that was
not offered means. Prose that merely names a tool, or JSON with no name and arguments, is not a
call. :func:`calls_in_text` is shared by the adapters (which record the ``json_call_in_text``
anomaly) and the grader (which reads the text again, so older records and hand-built outcomes
are judged alike), as :func:`fcbench.contract.normalise_arguments` is the one reading of an
argument string. The work is bounded and linear in the scanned text (no backtracking patterns).
"""

from __future__ import annotations

import ast
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
PYTHON_CALL_ATTEMPTS = 64
"""Python-style call candidates (``name(``) :func:`calls_in_text` reads at most, per reading."""
PYTHON_CALL_CHARS = 4_000
"""Longest Python-style call read (from its name to its closing parenthesis)."""
CALL_NAME_WRAPPERS = ("default_api.", "functions.", "tools.")
"""Namespaces some prompt formats put before a tool's name (Gemma's ``default_api.lookup_order``)."""

_TEXT_CALL_START = re.compile(r"[{\[]")
_JSON_DECODER = json.JSONDecoder()
_PYTHON_CALL = re.compile(r"(?<![A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_.]*\(")
"""A name directly followed by ``(``; linear: a start is never inside another name."""
_FUNCTION_TAG = re.compile(r"<function=([^>\s]{1,200})>")
"""Llama's ``<function=name>{...}</function>``."""
_MISTRAL_ARGS = re.compile(r"\[TOOL_CALLS\]\s{0,8}([A-Za-z_][A-Za-z0-9_.\-]{0,200})\s{0,8}\[ARGS\]")
"""Mistral's newer ``[TOOL_CALLS]name[ARGS]{...}``."""
_JSON_NAMES = {"true": True, "false": False, "null": None}
_PRINT_WRAPPERS = frozenset({"print"})


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


def _written_call(value: dict[str, Any]) -> TextCall | None:
    function = value.get("function")
    if isinstance(function, dict):
        return _written_call(function)
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        return None
    arguments = _written_arguments(value)
    return None if arguments is None else TextCall(name, arguments)


def _written_calls_in(value: Any, depth: int = 0) -> Iterator[TextCall]:
    """Calls in one decoded value: the value itself, or calls nested in its lists and objects."""
    if depth > TEXT_CALL_DEPTH:
        return
    if isinstance(value, dict):
        call = _written_call(value)
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
            yield from _written_calls_in(child, depth + 1)


_Found = list[tuple[int, TextCall]]
"""Calls with the position where each was written."""


def _scan_json(text: str) -> tuple[_Found, list[tuple[int, int]]]:
    """Calls written as JSON values, and the spans of every value decoded (not read again)."""
    found: _Found = []
    spans: list[tuple[int, int]] = []
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
        found += [(match.start(), call) for call in _written_calls_in(value)]
        spans.append((match.start(), end))
        position = end
    return found, spans


def _tagged_arguments(text: str, start: int) -> dict[str, Any] | None:
    """The JSON object that opens at ``start`` (after spaces), as a tagged call's arguments."""
    brace = start
    while brace < len(text) and brace - start < 8 and text[brace].isspace():
        brace += 1
    if brace >= len(text) or text[brace] != "{":
        return None
    try:
        value, _ = _JSON_DECODER.raw_decode(text, brace)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _scan_tags(text: str) -> _Found:
    """Calls whose name is in a tag and whose arguments follow it (Llama, Mistral)."""
    found: _Found = []
    for pattern in (_FUNCTION_TAG, _MISTRAL_ARGS):
        for match in pattern.finditer(text):
            if len(found) >= TEXT_CALL_LIMIT:
                return found
            arguments = _tagged_arguments(text, match.end())
            if arguments is not None:
                found.append((match.start(), TextCall(match.group(1), arguments)))
    return found


def _closing_parenthesis(text: str, opening: int) -> int | None:
    """Where the parenthesis opened at ``opening`` closes (strings and brackets skipped), or None."""
    depth = 0
    quote = ""
    limit = min(len(text), opening + PYTHON_CALL_CHARS)
    index = opening
    while index < limit:
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote or char == "\n":
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index if char == ")" else None
        index += 1
    return None


def _literal(node: ast.expr) -> Any:
    """A literal argument value (JSON's ``true``/``false``/``null`` accepted); raises ValueError."""
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        keys = [_literal(key) if key is not None else None for key in node.keys]
        if not all(isinstance(key, str) for key in keys):
            raise ValueError("an object key that is not a string")
        return dict(zip(keys, (_literal(value) for value in node.values), strict=True))
    value = ast.literal_eval(node)
    if value is not None and not isinstance(value, str | int | float):
        raise ValueError("not a JSON value")
    return value


def _call_name(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    name = ".".join(reversed(parts))
    name = name.removesuffix(".call")
    for wrapper in CALL_NAME_WRAPPERS:
        name = name.removeprefix(wrapper)
    return name


def _python_call(node: ast.Call, offered: frozenset[str] | None) -> TextCall | None:
    """A call expression with literal keyword arguments (positional ones only for an offered tool)."""
    name = _call_name(node.func)
    if name is None:
        return None
    if name in _PRINT_WRAPPERS and len(node.args) == 1 and isinstance(node.args[0], ast.Call):
        return _python_call(node.args[0], offered)
    if node.args and (offered is None or name not in offered):
        return None
    if not node.keywords and (offered is None or name not in offered):
        return None  # "name()" in prose is a mention unless it names an offered tool
    try:
        arguments = {kw.arg: _literal(kw.value) for kw in node.keywords if kw.arg is not None}
        if len(arguments) != len(node.keywords):
            return None
        for item in node.args:
            _literal(item)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None
    return TextCall(name, arguments)


def _parse_call(source: str) -> ast.Call | None:
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return tree.body if isinstance(tree.body, ast.Call) else None


def _scan_python(text: str, skip: Sequence[tuple[int, int]], offered: frozenset[str] | None) -> _Found:
    """Python-style calls ``name(key=literal, ...)`` outside the spans already read as JSON."""
    found: _Found = []
    position = 0
    for _ in range(PYTHON_CALL_ATTEMPTS):
        match = _PYTHON_CALL.search(text, position)
        if match is None or len(found) >= TEXT_CALL_LIMIT:
            break
        start = match.start()
        position = match.end()
        if any(low <= start < high for low, high in skip):
            continue
        closing = _closing_parenthesis(text, match.end() - 1)
        node = None if closing is None else _parse_call(text[start : closing + 1])
        call = None if node is None else _python_call(node, offered)
        if call is not None and closing is not None:
            found.append((start, call))
            position = closing + 1
    return found


def _read(text: str, offered: frozenset[str] | None) -> list[TextCall]:
    found, spans = _scan_json(text)
    found += _scan_tags(text)
    found += _scan_python(text, spans, offered)
    found.sort(key=lambda item: item[0])
    return [call for _, call in found[:TEXT_CALL_LIMIT]]


def calls_in_text(text: str | None, offered_tools: Sequence[str] | None) -> list[TextCall]:
    """Every call written in ``text``, in any of the syntaxes of the module docstring, in order.

    A name need not be offered: a call of a tool that does not exist is still a call (the
    caller records it as such). ``offered_tools`` only lets a Python-style call without keyword
    arguments (``lookup_order()``, ``lookup_order("ORD-1")``) count when it names an offered
    tool (None: such calls never count). A text with doubled braces (``{{ ... }}``) is read with
    them halved when reading it as it is finds nothing. The work is bounded
    (:data:`TEXT_CALL_SCAN_CHARS`, :data:`TEXT_CALL_DECODE_ATTEMPTS`,
    :data:`PYTHON_CALL_ATTEMPTS`, :data:`TEXT_CALL_LIMIT`); nothing is repaired: a call whose
    JSON or Python does not parse is not found.
    """
    if not text:
        return []
    scanned = text[:TEXT_CALL_SCAN_CHARS]
    offered = frozenset(offered_tools) if offered_tools is not None else None
    found = _read(scanned, offered)
    if not found and "{{" in scanned:
        found = _read(scanned.replace("{{", "{").replace("}}", "}"), offered)
    return found


def text_calls_json(calls: Sequence[TextCall]) -> str:
    """Calls as compact JSON, ``[{"name": ..., "arguments": {...}}, ...]`` (an anomaly's detail)."""
    items = [{"name": call.name, "arguments": call.arguments} for call in calls]
    return json.dumps(items, ensure_ascii=False, separators=(",", ":"))


__all__ = [
    "CALL_NAME_WRAPPERS",
    "PYTHON_CALL_ATTEMPTS",
    "PYTHON_CALL_CHARS",
    "TEXT_CALL_ARGUMENT_KEYS",
    "TEXT_CALL_DECODE_ATTEMPTS",
    "TEXT_CALL_DEPTH",
    "TEXT_CALL_LIMIT",
    "TEXT_CALL_SCAN_CHARS",
    "TextCall",
    "calls_in_text",
    "text_calls_json",
]
