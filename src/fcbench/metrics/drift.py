"""Argument drift: how each argument of a case's tool calls varies over its repeats, in bounded memory.

Per case (target x mode), over the scorable repeats whose outcome is tool calls: for every tool
called and every argument key of those calls (``tool.argument``), the repeats that gave each
value. Values are compared by :func:`fcbench.contract.canonical_json` (``750`` and ``750.0`` are
one value, ``"750"`` and ``750`` are two) and kept as short digests, never as the values. A
repeat that calls the tool without the argument counts as the value "absent"; several calls of
one tool in a repeat give one value, their argument values as an unordered list.

Memory is bounded: at most :data:`MAX_DRIFT_VALUES` distinct values are tracked per argument (a
value first seen after that is counted, not tracked, and the summary says ``capped``) and at most
:data:`MAX_DRIFT_KEYS` arguments per case (later ones are ignored).
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from typing import Any

from fcbench.contract import canonical_json
from fcbench.metrics.models import ArgumentDrift, Rate

MAX_DRIFT_VALUES = 16
"""Distinct values tracked per case and argument."""
MAX_DRIFT_KEYS = 64
"""Arguments (``tool.argument``) tracked per case."""
_ABSENT = "~absent"
"""Stands for a missing argument among several calls' values (never valid canonical JSON)."""
_MEMO_CHARS = 200
"""Scalar values up to this length have their digest memoised (most repeats repeat their values)."""


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


@functools.lru_cache(maxsize=4096)
def _scalar_digest(kind: str, value: Any) -> str:
    """The digest of a scalar's canonical JSON; ``kind`` keeps ``True`` and ``1`` apart in the cache."""
    return _digest(canonical_json(value))


def _value_digest(value: Any) -> str:
    if (
        value is None
        or isinstance(value, int | float)
        or (isinstance(value, str) and len(value) <= _MEMO_CHARS)
    ):
        return _scalar_digest(type(value).__name__, value)
    return _digest(canonical_json(value))


@dataclass(slots=True)
class DriftState:
    """Argument values of one case's scorable tool-call repeats."""

    calls: dict[str, int] = field(default_factory=dict)
    """Tool name -> repeats that called it with an argument object."""
    values: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)
    """(tool, argument) -> value digest -> repeats that gave it."""
    untracked: dict[tuple[str, str], int] = field(default_factory=dict)
    """(tool, argument) -> repeats whose value was first seen after the cap was reached."""

    def add(self, calls: Any, repeats: int = 1) -> None:
        """Fold in the calls of one scorable repeat (the outcome's ``calls`` list), or of ``repeats``
        repeats that made the same calls."""
        by_tool: dict[str, list[dict[str, Any]]] = {}
        for call in calls if isinstance(calls, list) else ():
            arguments = call.get("arguments") if isinstance(call, dict) else None
            if isinstance(arguments, dict):
                by_tool.setdefault(str(call.get("name")), []).append(arguments)
        for tool, argument_list in by_tool.items():
            self.calls[tool] = self.calls.get(tool, 0) + repeats
            if len(argument_list) == 1:
                for argument, value in argument_list[0].items():
                    self._count((tool, str(argument)), _value_digest(value), repeats)
                continue
            for argument in sorted({str(k) for arguments in argument_list for k in arguments}):
                self._count((tool, argument), _several(argument_list, argument), repeats)

    def _count(self, key: tuple[str, str], value: str, repeats: int) -> None:
        slot = self.values.get(key)
        if slot is None:
            if len(self.values) >= MAX_DRIFT_KEYS:
                return
            slot = self.values[key] = {}
        if value in slot or len(slot) < MAX_DRIFT_VALUES:
            slot[value] = slot.get(value, 0) + repeats
        else:
            self.untracked[key] = self.untracked.get(key, 0) + repeats

    def summary(self) -> dict[str, ArgumentDrift]:
        """``tool.argument`` -> drift, for the arguments with more than one distinct value."""
        out: dict[str, ArgumentDrift] = {}
        for (tool, argument), slot in sorted(self.values.items()):
            untracked = self.untracked.get((tool, argument), 0)
            absent = self.calls[tool] - sum(slot.values()) - untracked
            counts = [*slot.values(), *([absent] if absent > 0 else [])]
            distinct = len(counts) + (1 if untracked else 0)
            if distinct > 1:
                out[f"{tool}.{argument}"] = ArgumentDrift(
                    distinct=distinct, top=Rate(n=max(counts), d=self.calls[tool]), capped=bool(untracked)
                )
        return out


def _several(argument_list: list[dict[str, Any]], argument: str) -> str:
    """The digest of one repeat's values of ``argument`` over several calls of a tool (an unordered list)."""
    texts = sorted(canonical_json(a[argument]) if argument in a else _ABSENT for a in argument_list)
    return _digest(canonical_json(texts))
