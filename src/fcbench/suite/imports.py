"""Tool lists in the formats providers and MCP servers publish, converted to canonical tools.

A suite's tool list (a ``tools.<set>.json`` file, or a ``tools`` entry of a one-file suite) may be
written in any of these formats; :func:`import_tool_list` detects which and converts every item:

=================  ===================================================================================
format             one item (the list may also come wrapped, see below)
=================  ===================================================================================
canonical          ``{name, description, parameters, side_effect}``
openai-chat        ``{"type": "function", "function": {name, description, parameters, strict}}``
openai-responses   ``{"type": "function", name, description, parameters, strict}``
anthropic          ``{name, description, input_schema}`` (``type: "custom"`` and ``cache_control``
                   allowed)
gemini             ``{name, description, parameters | parametersJsonSchema}`` (a functionDeclaration)
mcp                ``{name, title?, description?, inputSchema, outputSchema?, annotations?}``
=================  ===================================================================================

Wrappers: a bare list; ``{"tools": [...]}`` (the folder form's file, an MCP ``tools/list``
result, an Anthropic request's ``tools``); ``{"functionDeclarations": [...]}`` and
``{"tools": [{"functionDeclarations": [...]}, ...]}`` (Gemini; every item is then read as
Gemini); ``{"jsonrpc": ..., "result": {"tools": [...]}}`` (a captured MCP response).

Detection goes item by item through :data:`FORMATS` in order, the first detector that holds
naming the item's format; every item of one list must agree (a mixed list is an error naming the
item). A canonical-looking item (``name``, ``description``, lowercase JSON Schema ``parameters``,
no ``side_effect``) reads the same as a Gemini declaration, so it joins a Gemini list.

Conversion is faithful or refuses: Gemini's OpenAPI-subset schemas become JSON Schema (type names
lowercased, ``nullable: true`` -> a ``"null"`` type, ``example`` -> ``examples``, int64 bounds
given as strings -> integers, ``propertyOrdering`` applied to ``properties``); any other key is an
error, never dropped. Keys a model is not offered for calling (output schemas, titles, icons,
``strict``, ``cache_control``, ``_meta``) are accepted and not carried over. MCP
``annotations``: ``readOnlyHint: false`` or ``destructiveHint: true`` makes a ``write`` tool;
no hints (or ``readOnlyHint: true``) a ``read`` tool.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from fcbench.contract import Tool
from fcbench.suite.gemini_schema import gemini_schema, has_gemini_marker
from fcbench.suite.tools import Finding, Key, pydantic_findings, tool_findings

CANONICAL = "canonical"
"""The format name of fcbench's own tool shape (a list in it is not an import)."""

_MCP_RESULT_KEYS = frozenset({"tools", "nextCursor", "_meta", "ttlMs", "cacheScope", "resultType"})


class ToolImport(BaseModel):
    """Where a suite's tool set came from when it was not written in canonical form."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    source: str
    """The file it was read from (``tools.core.json``, ``suite.yaml#tools.core``) or ``mcp:<command>``."""
    tool_set: str
    """The suite's tool set it became (``core``, ...)."""
    format: str
    """The detected format: a name of :data:`FORMATS`."""
    sha256: str
    """SHA-256 (hex) of the original: a tool file's decoded text; for a one-file suite's list and an
    MCP ``tools/list`` result, of the list as canonical JSON (:func:`canonical_json`)."""
    tools: int
    """How many tools it holds."""
    server_name: str | None = None
    """MCP only: the server's name from ``initialize``."""
    server_version: str | None = None
    """MCP only: the server's version from ``initialize``."""


@dataclass(frozen=True)
class Converted:
    """One item turned into a canonical tool dict, and where its parts came from."""

    tool: dict[str, Any]
    """Canonical tool fields (not yet validated)."""
    origin: Mapping[str, tuple[Key, ...]] = field(default_factory=dict)
    """Canonical top-level key -> its path inside the original item (for error positions)."""
    findings: tuple[Finding, ...] = ()
    """What could not be converted (paths inside the original item)."""


@dataclass(frozen=True)
class ToolFormat:
    """One tool-list format: how to recognise an item of it and how to convert one."""

    detect: Callable[[Mapping[str, Any]], bool]
    """Whether an item is in this format."""
    convert: Callable[[Mapping[str, Any]], Converted]
    """The canonical form of one item."""


def _unknown(item: Mapping[str, Any], known: frozenset[str], prefix: tuple[Key, ...] = ()) -> list[Finding]:
    return [Finding((*prefix, key), "unknown key") for key in item if key not in known]


def _schema_or_empty(value: Any) -> Any:
    return {"type": "object", "properties": {}} if value is None else value


def _plain(
    name_key: tuple[Key, ...],
    schema_key: str,
    known: frozenset[str],
    side_effect: Callable[[Mapping[str, Any]], tuple[str, list[Finding]]] | None = None,
) -> Callable[[Mapping[str, Any]], Converted]:
    """A converter for formats that only rename: name and description at ``name_key``, the schema
    at ``schema_key``."""

    def convert(item: Mapping[str, Any]) -> Converted:
        body: Any = item
        for key in name_key:
            body = body.get(key) if isinstance(body, Mapping) else None
        if not isinstance(body, Mapping):
            return Converted({}, findings=(Finding(name_key, "must be an object"),))
        findings = _unknown(body, known, name_key)
        if name_key:
            findings += _unknown(item, frozenset({"type", *map(str, name_key)}))
        tool: dict[str, Any] = {
            "name": body.get("name"),
            "parameters": _schema_or_empty(body.get(schema_key)),
        }
        if "name" not in body:
            tool.pop("name")
        if "description" in body:
            tool["description"] = body["description"]
        if side_effect is not None:
            tool["side_effect"], more = side_effect(item)
            findings += more
        origin = {
            "name": (*name_key, "name"),
            "description": (*name_key, "description"),
            "parameters": (*name_key, schema_key),
        }
        return Converted(tool, origin, tuple(findings))

    return convert


def _mcp_side_effect(item: Mapping[str, Any]) -> tuple[str, list[Finding]]:
    hints = item.get("annotations")
    if hints is None:
        return "read", []
    if not isinstance(hints, Mapping):
        return "read", [Finding(("annotations",), "must be an object")]
    if hints.get("readOnlyHint") is True:
        return "read", []
    written = hints.get("readOnlyHint") is False or hints.get("destructiveHint") is True
    return ("write" if written else "read"), []


def _convert_gemini(item: Mapping[str, Any]) -> Converted:
    known = frozenset(
        {
            "name",
            "description",
            "parameters",
            "parametersJsonSchema",
            "response",
            "responseJsonSchema",
            "behavior",
        }
    )
    findings = _unknown(item, known)
    tool: dict[str, Any] = {key: item[key] for key in ("name", "description") if key in item}
    origin: dict[str, tuple[Key, ...]] = {"name": ("name",), "description": ("description",)}
    if "parameters" in item and "parametersJsonSchema" in item:
        findings.append(
            Finding(("parametersJsonSchema",), "give parameters or parametersJsonSchema, not both")
        )
    if "parametersJsonSchema" in item:
        tool["parameters"] = item["parametersJsonSchema"]
        origin["parameters"] = ("parametersJsonSchema",)
    else:
        schema = item.get("parameters")
        tool["parameters"] = (
            gemini_schema(schema, ("parameters",), findings) if schema is not None else _schema_or_empty(None)
        )
        origin["parameters"] = ("parameters",)
    return Converted(tool, origin, tuple(findings))


FORMATS: dict[str, ToolFormat] = {
    "openai-chat": ToolFormat(
        detect=lambda item: item.get("type") == "function" and isinstance(item.get("function"), Mapping),
        convert=_plain(
            ("function",), "parameters", frozenset({"name", "description", "parameters", "strict"})
        ),
    ),
    "openai-responses": ToolFormat(
        detect=lambda item: item.get("type") == "function" and "function" not in item,
        convert=_plain((), "parameters", frozenset({"type", "name", "description", "parameters", "strict"})),
    ),
    "anthropic": ToolFormat(
        detect=lambda item: "input_schema" in item,
        convert=_plain(
            (), "input_schema", frozenset({"type", "name", "description", "input_schema", "cache_control"})
        ),
    ),
    "mcp": ToolFormat(
        detect=lambda item: "inputSchema" in item,
        convert=_plain(
            (),
            "inputSchema",
            frozenset(
                {
                    "name",
                    "title",
                    "description",
                    "inputSchema",
                    "outputSchema",
                    "annotations",
                    "icons",
                    "_meta",
                    "execution",
                }
            ),
            _mcp_side_effect,
        ),
    ),
    "gemini": ToolFormat(
        detect=lambda item: "parametersJsonSchema" in item or has_gemini_marker(item.get("parameters")),
        convert=_convert_gemini,
    ),
    CANONICAL: ToolFormat(detect=lambda item: "name" in item, convert=lambda item: Converted(dict(item))),
}
"""Format name -> detector and converter, tried in this order (the first detector that holds wins)."""


def _format_of(item: Any) -> str | None:
    if not isinstance(item, Mapping):
        return None
    return next((name for name, fmt in FORMATS.items() if fmt.detect(item)), None)


@dataclass(frozen=True)
class ImportedList:
    """A tool list read in some format: canonical tool dicts and what went wrong."""

    format: str
    """The detected format (``canonical`` when nothing was converted)."""
    items: list[tuple[tuple[Key, ...], Converted]]
    """Each item's path inside the list value, and its conversion."""
    findings: list[Finding]
    """Problems, with paths inside the list value."""


SHAPE_HINT = (
    'must be {"tools": [ ... ]}, a list of tools, {"functionDeclarations": [ ... ]} '
    "or an MCP tools/list result"
)


def _unwrap(value: Any) -> tuple[list[tuple[tuple[Key, ...], Any]], str | None, list[Finding]] | None:
    """The items of a tool-list value with their paths, the format its wrapper forces, and shape problems."""
    if isinstance(value, list):
        return [((i,), item) for i, item in enumerate(value)], None, []
    if not isinstance(value, Mapping):
        return None
    if isinstance(value.get("result"), Mapping) and "jsonrpc" in value:
        inner = _unwrap(value["result"])
        if inner is None:
            return None
        wrapped, forced, findings = inner
        return (
            [(("result", *keys), item) for keys, item in wrapped],
            forced,
            [f.under("result") for f in findings],
        )
    if isinstance(value.get("functionDeclarations"), list):
        extra = _unknown(value, frozenset({"functionDeclarations"}))
        return (
            [(("functionDeclarations", i), item) for i, item in enumerate(value["functionDeclarations"])],
            "gemini",
            extra,
        )
    tools = value.get("tools")
    if not isinstance(tools, list):
        return None
    extra = _unknown(value, _MCP_RESULT_KEYS)
    if tools and all(isinstance(t, Mapping) and "functionDeclarations" in t for t in tools):
        items: list[tuple[tuple[Key, ...], Any]] = []
        for i, entry in enumerate(tools):
            declarations = entry["functionDeclarations"]
            extra += _unknown(entry, frozenset({"functionDeclarations"}), ("tools", i))
            if not isinstance(declarations, list):
                extra.append(Finding(("tools", i, "functionDeclarations"), "must be a list"))
                continue
            items += [(("tools", i, "functionDeclarations", j), d) for j, d in enumerate(declarations)]
        return items, "gemini", extra
    return [(("tools", i), item) for i, item in enumerate(tools)], None, extra


def import_tool_list(value: Any) -> ImportedList:
    """Detect the format of a tool-list value and convert every item (see the module docstring)."""
    unwrapped = _unwrap(value)
    if unwrapped is None:
        return ImportedList(CANONICAL, [], [Finding((), SHAPE_HINT)])
    entries, forced, findings = unwrapped
    if not entries:
        where: tuple[Key, ...] = ("tools",) if isinstance(value, Mapping) and "tools" in value else ()
        return ImportedList(
            CANONICAL, [], [*findings, Finding(where, f"the tool list is empty ({SHAPE_HINT})")]
        )
    formats = [forced or _format_of(item) for _, item in entries]
    for (keys, item), fmt in zip(entries, formats, strict=True):
        if fmt is None:
            shown = "an object without a name" if isinstance(item, Mapping) else type(item).__name__
            findings.append(Finding(keys, f"not a tool in any known format ({shown})"))
    known = [f for f in formats if f is not None]
    chosen = known[0] if known else CANONICAL
    if set(known) == {"gemini", CANONICAL} and not any(
        isinstance(item, Mapping) and "side_effect" in item for _, item in entries
    ):
        chosen, formats = "gemini", ["gemini" if f == CANONICAL else f for f in formats]
    elif len(set(known)) > 1:
        first = next(keys for (keys, _), f in zip(entries, formats, strict=True) if f == chosen)
        for (keys, _), fmt in zip(entries, formats, strict=True):
            if fmt is not None and fmt != chosen:
                findings.append(
                    Finding(
                        keys,
                        f"a mixed list: this item is {fmt}, item {_show(first)} is {chosen} "
                        "(use one format per list)",
                    )
                )
        return ImportedList(chosen, [], findings)
    try:
        converted = [
            (keys, FORMATS[chosen].convert(item)) for keys, item in entries if isinstance(item, Mapping)
        ]
    except RecursionError:
        return ImportedList(chosen, [], [*findings, Finding((), "nested too deeply to read")])
    for keys, result in converted:
        findings += [f.under(*keys) for f in result.findings]
    return ImportedList(chosen, converted, findings)


def _show(keys: Sequence[Key]) -> str:
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in keys).lstrip(".")


def build_tools(imported: ImportedList) -> tuple[list[Tool] | None, list[Finding]]:
    """Validate converted tools (names, schemas, duplicates); findings carry paths in the original value."""
    findings = list(imported.findings)
    tools: list[Tool] = []
    paths: list[tuple[tuple[Key, ...], Converted]] = []
    for keys, result in imported.items:
        if result.findings:
            continue
        try:
            tools.append(Tool.model_validate(result.tool))
            paths.append((keys, result))
        except ValidationError as exc:
            findings += [_placed(keys, result, f) for f in pydantic_findings(exc, result.tool)]
    if findings:
        return None, findings
    checked = tool_findings(tools)
    for finding in checked:
        position = finding.keys[0]
        assert isinstance(position, int)
        keys, result = paths[position]
        findings.append(_placed(keys, result, Finding(finding.keys[1:], finding.message)))
    return (None if checked else tools), findings


def _placed(keys: tuple[Key, ...], result: Converted, finding: Finding) -> Finding:
    """A finding on a canonical field moved to where that field sits in the original item."""
    head = finding.keys[0] if finding.keys else None
    origin = result.origin.get(head) if isinstance(head, str) else None
    inner = (*origin, *finding.keys[1:]) if origin is not None else finding.keys
    return Finding((*keys, *inner), finding.message)


def text_sha256(text: str) -> str:
    """SHA-256 (hex) of a text as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_json(value: Any) -> str:
    """A JSON value as canonical text (sorted keys, no spaces; a non-JSON value shown as text)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def json_sha256(value: Any) -> str:
    """SHA-256 (hex) of a JSON value in canonical form (:func:`canonical_json`)."""
    return text_sha256(canonical_json(value))


def read_tool_list(
    value: Any, *, original: str, source: str, tool_set: str
) -> tuple[list[Tool] | None, list[Finding], ToolImport | None]:
    """Import, convert and check one tool list: the tools (None when any problem), the problems
    (paths inside ``value``), and the import record when it was not in canonical form."""
    imported = import_tool_list(value)
    tools, findings = build_tools(imported)
    record = None
    if tools is not None and imported.format != CANONICAL:
        record = ToolImport(
            source=source,
            tool_set=tool_set,
            format=imported.format,
            sha256=text_sha256(original),
            tools=len(tools),
        )
    return tools, findings, record


__all__ = [
    "CANONICAL",
    "FORMATS",
    "SHAPE_HINT",
    "Converted",
    "ImportedList",
    "ToolFormat",
    "ToolImport",
    "build_tools",
    "canonical_json",
    "import_tool_list",
    "json_sha256",
    "read_tool_list",
    "text_sha256",
]
