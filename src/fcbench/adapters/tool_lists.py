"""Tool lists as a dialect writes them, for tool import: how to recognise one item and convert it.

A dialect that has its own way of writing a tool list declares it as ``FORMAT`` (a
:class:`ToolListFormat`) in its package's ``tool_list`` module; tool import
(:mod:`fcbench.suite.imports`) takes every declared format from the adapter registry
(:func:`fcbench.adapters.tool_list_formats`) and adds the formats that belong to no dialect (MCP,
fcbench's own). Conversion is faithful or refuses: a key it does not know is a problem at its
path, never dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fcbench.schema.gemini import Path

Problem = tuple[Path, str]
"""``(path inside the item, message)``: one part that could not be converted."""


@dataclass(frozen=True)
class ConvertedTool:
    """One item turned into a canonical tool dict, and where its parts came from."""

    tool: dict[str, Any]
    """Canonical tool fields (not yet validated)."""
    origin: Mapping[str, Path] = field(default_factory=dict)
    """Canonical top-level key -> its path inside the original item (for error positions)."""
    problems: tuple[Problem, ...] = ()
    """What could not be converted (paths inside the original item)."""


@dataclass(frozen=True)
class ToolListFormat:
    """One tool-list format: its name, how to recognise an item of it and how to convert one."""

    name: str
    """The format's name, as a suite's import record keeps it (``openai-chat``, ``anthropic``)."""
    detect: Callable[[Mapping[str, Any]], bool]
    """Whether an item is in this format."""
    convert: Callable[[Mapping[str, Any]], ConvertedTool]
    """The canonical form of one item."""
    list_key: str | None = None
    """A key whose list holds items of this format only (``functionDeclarations``), at the top of
    the value or in each entry of its ``tools``."""
    takes_canonical: bool = False
    """A canonical-looking item (name, description, JSON Schema parameters, no ``side_effect``)
    reads the same in this format, so it joins a list of it."""


def unknown_keys(item: Mapping[str, Any], known: frozenset[str], prefix: Path = ()) -> list[Problem]:
    """An ``unknown key`` problem for each key of ``item`` not in ``known``."""
    return [((*prefix, key), "unknown key") for key in item if key not in known]


def schema_or_empty(value: Any) -> Any:
    """A tool's parameter schema, or an empty object schema when it gives none."""
    return {"type": "object", "properties": {}} if value is None else value


SideEffect = Callable[[Mapping[str, Any]], tuple[str, list[Problem]]]
"""``item -> (side_effect, problems)``: a format's own reading of whether a tool writes."""


def renaming(
    name_key: Path, schema_key: str, known: frozenset[str], side_effect: SideEffect | None = None
) -> Callable[[Mapping[str, Any]], ConvertedTool]:
    """A converter for formats that only rename: name and description in the object at
    ``name_key`` (the item itself when empty), the schema at its ``schema_key``."""

    def convert(item: Mapping[str, Any]) -> ConvertedTool:
        body: Any = item
        for key in name_key:
            body = body.get(key) if isinstance(body, Mapping) else None
        if not isinstance(body, Mapping):
            return ConvertedTool({}, problems=((name_key, "must be an object"),))
        problems = unknown_keys(body, known, name_key)
        if name_key:
            problems += unknown_keys(item, frozenset({"type", *map(str, name_key)}))
        tool: dict[str, Any] = {"name": body.get("name"), "parameters": schema_or_empty(body.get(schema_key))}
        if "name" not in body:
            tool.pop("name")
        if "description" in body:
            tool["description"] = body["description"]
        if side_effect is not None:
            tool["side_effect"], more = side_effect(item)
            problems += more
        origin = {
            "name": (*name_key, "name"),
            "description": (*name_key, "description"),
            "parameters": (*name_key, schema_key),
        }
        return ConvertedTool(tool, origin, tuple(problems))

    return convert


__all__ = [
    "ConvertedTool",
    "Problem",
    "SideEffect",
    "ToolListFormat",
    "renaming",
    "schema_or_empty",
    "unknown_keys",
]
