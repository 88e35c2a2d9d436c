"""Keyword probes derived from a suite's own tools: every JSON Schema keyword each tool uses, and where.

The walk starts at each tool's ``parameters`` and goes, parents first, into ``properties``
(the argument path gains the property name), ``items`` (``[]``), ``prefixItems`` (``[i]``),
``additionalProperties`` and ``patternProperties`` subschemas (``*``), the branches of
``oneOf``/``anyOf``/``allOf`` (same argument path) and the targets of local ``$ref`` keywords
(same argument path; a definition is walked once, from the first reference met, and a reference
back into a definition being walked is not followed). Definitions no reference reaches are not
used by the tool and are not probed. ``not``, ``if``/``then``/``else``, ``contains``,
``propertyNames`` and ``dependentSchemas`` are not walked.

In each subschema every keyword of :data:`fcbench.compat.tempt.RULES` is one *use*, probed
when its rule applies (``additionalProperties`` only when ``false``, ``type`` only as a list,
``properties`` only below the root, ...). A use becomes a :class:`~fcbench.compat.models.KeywordProbe`
with id ``<tool>.#<pointer>.<keyword>`` (``get_weather.#/properties/city.pattern``; the root is
``get_weather.#.additionalProperties``): the same suite gives the same ids, in the same order. The
probe offers the tool exactly as the suite defines it, forces a call, and counts only the errors
of that use (the keyword at that pointer, see :attr:`~fcbench.compat.models.KeywordProbe.scope`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fcbench.compat.checks import resolve_ref
from fcbench.compat.models import KeywordProbe
from fcbench.compat.tempt import RULES, Use
from fcbench.contract import Tool
from fcbench.schema.transform import pointer

DERIVE_VERSION = "1"
"""Version of the derivation rules; part of the derived probe set's hash."""

ITEMS = "[]"
"""Argument-path step of an array's items."""
ANY_KEY = "*"
"""Argument-path step of ``additionalProperties``/``patternProperties`` values."""

_BRANCH = re.compile(r"/(oneOf|anyOf|allOf)/([0-9]+)")


@dataclass(frozen=True)
class KeywordUse:
    """One JSON Schema keyword used by one tool, at one place."""

    tool: str
    """The tool's name."""
    pointer: str
    """JSON pointer of the subschema holding the keyword, inside the tool's parameters (root: ``""``)."""
    keyword: str
    """The keyword."""
    where: tuple[str, ...]
    """Where it applies in the arguments: property names, ``[]`` for items, ``*`` for any key."""
    node: Mapping[str, Any] = field(compare=False, repr=False)
    """The subschema holding the keyword."""
    within: tuple[str, ...] = ()
    """The pointer and the ``$ref`` targets reached from beneath it (for nested uses)."""

    @property
    def probe_id(self) -> str:
        """``<tool>.#<pointer>.<keyword>``."""
        return f"{self.tool}.#{self.pointer}.{self.keyword}"

    @property
    def property(self) -> str:
        """The argument path in words, for reports: ``address.postal_code``, ``lines[].quantity``
        (root: ``""``), followed by the combinator branches on the way (``channel.kind (oneOf 0)``)
        so that two branches' uses of one property read apart."""
        branches = _BRANCH.findall(self.pointer)
        suffix = " (" + ", ".join(f"{k} {i}" for k, i in branches) + ")" if branches else ""
        return (property_label(self.where) + suffix).strip()


def property_label(where: Sequence[str]) -> str:
    """``("lines", "[]", "quantity")`` -> ``lines[].quantity``."""
    text = ""
    for step in where:
        text += step if step.startswith("[") or not text else "." + step
    return text


def _children(node: Mapping[str, Any], at: str) -> Iterator[tuple[Any, str, tuple[str, ...]]]:
    """Subschemas walked from ``node``, with their pointer and argument-path step."""
    properties = node.get("properties")
    if isinstance(properties, dict):
        for name, child in properties.items():
            yield child, pointer(at, "properties", name), (str(name),)
    items = node.get("items")
    if isinstance(items, dict):
        yield items, pointer(at, "items"), (ITEMS,)
    for index, child in enumerate(node.get("prefixItems") or []):
        yield child, pointer(at, "prefixItems", index), (f"[{index}]",)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        yield extra, pointer(at, "additionalProperties"), (ANY_KEY,)
    patterns = node.get("patternProperties")
    if isinstance(patterns, dict):
        for name, child in patterns.items():
            yield child, pointer(at, "patternProperties", name), (ANY_KEY,)
    for keyword in ("oneOf", "anyOf", "allOf"):
        branches = node.get(keyword)
        for index, child in enumerate(branches if isinstance(branches, list) else []):
            yield child, pointer(at, keyword, index), ()


def _target(root: Mapping[str, Any], ref: Any) -> tuple[str, Mapping[str, Any]] | None:
    """``(pointer, subschema)`` of a local reference to a subschema, or None."""
    found = resolve_ref(root, ref)
    return found if found is not None and isinstance(found[1], Mapping) else None


class _Walk:
    """One tool's walk: the uses found, the definitions walked."""

    def __init__(self, tool: Tool) -> None:
        self.tool = tool
        self.root: Mapping[str, Any] = tool.parameters
        self.uses: list[KeywordUse] = []
        self.walked: set[str] = set()

    def visit(self, node: Any, at: str, where: tuple[str, ...], active: frozenset[str]) -> set[str]:
        """Collect the uses in ``node`` and beneath it; returns the ``$ref`` targets walked beneath."""
        if not isinstance(node, Mapping):
            return set()
        start = len(self.uses)
        for keyword, rule in RULES.items():
            if keyword in node and rule.applies(node[keyword], node, at):
                self.uses.append(KeywordUse(self.tool.name, at, keyword, where, node))
        own = range(start, len(self.uses))
        reached: set[str] = set()
        for child, child_at, step in _children(node, at):
            reached |= self.visit(child, child_at, where + step, active)
        target = _target(self.root, node.get("$ref"))
        if target is not None and target[0] not in active:
            reached.add(target[0])
            if target[0] not in self.walked:
                self.walked.add(target[0])
                reached |= self.visit(target[1], target[0], where, active | {target[0]})
        within = (at, *sorted(reached))
        for index in own:
            use = self.uses[index]
            self.uses[index] = KeywordUse(use.tool, use.pointer, use.keyword, use.where, use.node, within)
        return reached


def keyword_uses(tool: Tool) -> list[KeywordUse]:
    """Every probed keyword use of ``tool``, in walk order (parents first, keywords in rule order)."""
    walk = _Walk(tool)
    walk.visit(tool.parameters, "", (), frozenset())
    return walk.uses


def probe_for(use: KeywordUse, tool: Tool) -> KeywordProbe | None:
    """The probe of one use (None when its rule cannot make a tempting prompt)."""
    rule = RULES[use.keyword]
    target = property_label(use.where)
    temptation = rule.tempt(
        Use(tool.name, use.keyword, use.node[use.keyword], use.node, target, tool.parameters)
    )
    if temptation is None:
        return None
    top = use.where[0] if use.where and use.where[0] not in (ITEMS, ANY_KEY) else None
    omission = use.keyword in ("required", "additionalProperties") or top is None
    return KeywordProbe(
        id=use.probe_id,
        keyword=use.keyword,
        tool=tool.name,
        prompt=temptation.prompt,
        keywords=[use.keyword],
        fields=[] if omission else [str(top)],
        why=temptation.why,
        pointer=use.pointer,
        scope=temptation.scope,
        property=use.property,
        within=list(use.within) if temptation.scope != "keyword" else [],
    )


def derive_probes(tools: Sequence[Tool]) -> list[KeywordProbe]:
    """The probes of every keyword use of every tool, tools in the order given."""
    probes = []
    for tool in tools:
        for use in keyword_uses(tool):
            probe = probe_for(use, tool)
            if probe is not None:
                probes.append(probe)
    return probes


def probes_digest(probes: Sequence[KeywordProbe], tools: Sequence[Tool]) -> str:
    """SHA-256 over the derivation version, the probes and the tools they offer (pinned in the manifest)."""
    payload = {
        "version": DERIVE_VERSION,
        "probes": [p.model_dump(mode="json") for p in probes],
        "tools": [t.model_dump(mode="json") for t in tools],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
