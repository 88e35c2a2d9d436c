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

The dialects' formats are declared by their adapters (``tool_list`` in each adapter package,
:mod:`fcbench.adapters.tool_lists`), wrappers and all; MCP's and fcbench's own are here.
Detection goes item by item through :func:`formats` in order, the first detector that holds
naming the item's format; every item of one list must agree (a mixed list is an error naming the
item). A canonical-looking item (``name``, ``description``, lowercase JSON Schema ``parameters``,
no ``side_effect``) reads the same as a Gemini declaration, so it joins a Gemini list.

Conversion is faithful or refuses: Gemini's OpenAPI-subset schemas become JSON Schema (type names
lowercased, ``nullable: true`` -> a ``"null"`` type, ``example`` -> ``examples``, int64 bounds
given as strings -> integers, ``propertyOrdering`` applied to ``properties``); any other key is an
error, never dropped. Keys a model is not offered for calling (output schemas, titles, icons,
``strict``, ``cache_control``, ``_meta``) are accepted and not carried over. MCP
``annotations``: ``readOnlyHint: false`` or ``destructiveHint: true`` makes a ``write`` tool;
no hints (or ``readOnlyHint: true``) a ``read`` tool. In every format an item may say
``side_effect: write`` (or ``read``) beside its own keys, which wins over the format's reading
(a pasted OpenAI or Anthropic tool keeps its write status).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from fcbench.adapters import tool_list_formats
from fcbench.adapters.tool_lists import ConvertedTool, Problem, ToolListFormat, renaming, unknown_keys
from fcbench.contract import Tool, canonical_json
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
    """The detected format: a name of :func:`formats`."""
    sha256: str
    """SHA-256 (hex) of the original: a tool file's decoded text; for a one-file suite's list and an
    MCP ``tools/list`` result, of the list as canonical JSON
    (:func:`fcbench.contract.canonical_json`)."""
    tools: int
    """How many tools it holds."""
    server_name: str | None = None
    """MCP only: the server's name from ``initialize``."""
    server_version: str | None = None
    """MCP only: the server's version from ``initialize``."""


def _mcp_side_effect(item: Mapping[str, Any]) -> tuple[str, list[Problem]]:
    hints = item.get("annotations")
    if hints is None:
        return "read", []
    if not isinstance(hints, Mapping):
        return "read", [(("annotations",), "must be an object")]
    if hints.get("readOnlyHint") is True:
        return "read", []
    written = hints.get("readOnlyHint") is False or hints.get("destructiveHint") is True
    return ("write" if written else "read"), []


MCP = ToolListFormat(
    name="mcp",
    detect=lambda item: "inputSchema" in item,
    convert=renaming(
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
)
"""An MCP ``tools/list`` item (``annotations`` decide ``side_effect``)."""

OWN = ToolListFormat(
    name=CANONICAL, detect=lambda item: "name" in item, convert=lambda item: ConvertedTool(dict(item))
)
"""fcbench's own tool shape: anything with a name that no other format claims."""


@cache
def formats() -> Mapping[str, ToolListFormat]:
    """Format name -> format, tried in this order (the first detector that holds wins): the
    dialects' formats (:func:`fcbench.adapters.tool_list_formats`), then MCP, then the canonical
    shape. The dialects' detectors claim disjoint items, so their order decides nothing."""
    ordered = [*tool_list_formats(), MCP, OWN]
    return MappingProxyType({fmt.name: fmt for fmt in ordered})


def _format_of(item: Any) -> str | None:
    if not isinstance(item, Mapping):
        return None
    return next((name for name, fmt in formats().items() if fmt.detect(item)), None)


def _findings(problems: Sequence[Problem], *prefix: Key) -> list[Finding]:
    return [Finding((*prefix, *keys), message) for keys, message in problems]


@dataclass(frozen=True)
class ImportedList:
    """A tool list read in some format: canonical tool dicts and what went wrong."""

    format: str
    """The detected format (``canonical`` when nothing was converted)."""
    items: list[tuple[tuple[Key, ...], ConvertedTool]]
    """Each item's path inside the list value, and its conversion."""
    findings: list[Finding]
    """Problems, with paths inside the list value."""


def _keyed_formats() -> list[ToolListFormat]:
    return [fmt for fmt in formats().values() if fmt.list_key is not None]


def shape_hint() -> str:
    """What a tool-list value must be, for a finding about its shape."""
    keyed = "".join(f'{{"{fmt.list_key}": [ ... ]}}, ' for fmt in _keyed_formats())
    return f'must be {{"tools": [ ... ]}}, a list of tools, {keyed}or an MCP tools/list result'


Entries = list[tuple[tuple[Key, ...], Any]]
"""Items of a tool-list value, each with its path inside the value."""


def _keyed(value: Mapping[str, Any], tools: Any) -> tuple[Entries, str, list[Finding]] | None:
    """The items of a value wrapped in a format's own list key (at the top, or in every entry of
    ``tools``), the format that key forces, and shape problems; None when no such key wraps it."""
    for fmt in _keyed_formats():
        key = str(fmt.list_key)
        if isinstance(value.get(key), list):
            extra = _findings(unknown_keys(value, frozenset({key})))
            return [((key, i), item) for i, item in enumerate(value[key])], fmt.name, extra
        if not (
            tools and isinstance(tools, list) and all(isinstance(t, Mapping) and key in t for t in tools)
        ):
            continue
        items: Entries = []
        extra = _findings(unknown_keys(value, _MCP_RESULT_KEYS))
        for i, entry in enumerate(tools):
            extra += _findings(unknown_keys(entry, frozenset({key}), ("tools", i)))
            if not isinstance(entry[key], list):
                extra.append(Finding(("tools", i, key), "must be a list"))
                continue
            items += [(("tools", i, key, j), d) for j, d in enumerate(entry[key])]
        return items, fmt.name, extra
    return None


def _unwrap(value: Any) -> tuple[Entries, str | None, list[Finding]] | None:
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
    tools = value.get("tools")
    keyed = _keyed(value, tools)
    if keyed is not None:
        return keyed
    if not isinstance(tools, list):
        return None
    extra = _findings(unknown_keys(value, _MCP_RESULT_KEYS))
    return [(("tools", i), item) for i, item in enumerate(tools)], None, extra


def import_tool_list(value: Any) -> ImportedList:
    """Detect the format of a tool-list value and convert every item (see the module docstring)."""
    unwrapped = _unwrap(value)
    if unwrapped is None:
        return ImportedList(CANONICAL, [], [Finding((), shape_hint())])
    entries, forced, findings = unwrapped
    if not entries:
        where: tuple[Key, ...] = ("tools",) if isinstance(value, Mapping) and "tools" in value else ()
        return ImportedList(
            CANONICAL, [], [*findings, Finding(where, f"the tool list is empty ({shape_hint()})")]
        )
    named = [forced or _format_of(item) for _, item in entries]
    for (keys, item), fmt in zip(entries, named, strict=True):
        if fmt is None:
            shown = "an object without a name" if isinstance(item, Mapping) else type(item).__name__
            findings.append(Finding(keys, f"not a tool in any known format ({shown})"))
    known = [f for f in named if f is not None]
    chosen = known[0] if known else CANONICAL
    taker = _canonical_taker(set(known), entries)
    if taker is not None:
        chosen = taker
    elif len(set(known)) > 1:
        first = next(keys for (keys, _), f in zip(entries, named, strict=True) if f == chosen)
        for (keys, _), fmt in zip(entries, named, strict=True):
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
            (keys, _convert(formats()[chosen], item)) for keys, item in entries if isinstance(item, Mapping)
        ]
    except RecursionError:
        return ImportedList(chosen, [], [*findings, Finding((), "nested too deeply to read")])
    for keys, result in converted:
        findings += _findings(result.problems, *keys)
    return ImportedList(chosen, converted, findings)


def _convert(fmt: ToolListFormat, item: Mapping[str, Any]) -> ConvertedTool:
    """``fmt``'s conversion of ``item``, with the ``side_effect`` written beside its own keys kept."""
    if fmt.name == CANONICAL or "side_effect" not in item:
        return fmt.convert(item)
    result = fmt.convert({key: value for key, value in item.items() if key != "side_effect"})
    tool = {**result.tool, "side_effect": item["side_effect"]}
    return replace(result, tool=tool, origin={**result.origin, "side_effect": ("side_effect",)})


def _canonical_taker(known: set[str], entries: Entries) -> str | None:
    """The format a list of its items and canonical-looking ones is read in (one whose
    ``takes_canonical`` holds; never when an item says its ``side_effect``), else None."""
    others = known - {CANONICAL}
    if CANONICAL not in known or len(others) != 1:
        return None
    (name,) = others
    if not formats()[name].takes_canonical:
        return None
    return None if any(isinstance(item, Mapping) and "side_effect" in item for _, item in entries) else name


def _show(keys: Sequence[Key]) -> str:
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in keys).lstrip(".")


def build_tools(imported: ImportedList) -> tuple[list[Tool] | None, list[Finding]]:
    """Validate converted tools (names, schemas, duplicates); findings carry paths in the original value."""
    findings = list(imported.findings)
    tools: list[Tool] = []
    paths: list[tuple[tuple[Key, ...], ConvertedTool]] = []
    for keys, result in imported.items:
        if result.problems:
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


def _placed(keys: tuple[Key, ...], result: ConvertedTool, finding: Finding) -> Finding:
    """A finding on a canonical field moved to where that field sits in the original item."""
    head = finding.keys[0] if finding.keys else None
    origin = result.origin.get(head) if isinstance(head, str) else None
    inner = (*origin, *finding.keys[1:]) if origin is not None else finding.keys
    return Finding((*keys, *inner), finding.message)


def text_sha256(text: str) -> str:
    """SHA-256 (hex) of a text as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def json_sha256(value: Any) -> str:
    """SHA-256 (hex) of a JSON value in canonical form (:func:`fcbench.contract.canonical_json`)."""
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
    "MCP",
    "OWN",
    "ImportedList",
    "ToolImport",
    "build_tools",
    "formats",
    "import_tool_list",
    "json_sha256",
    "read_tool_list",
    "shape_hint",
    "text_sha256",
]
