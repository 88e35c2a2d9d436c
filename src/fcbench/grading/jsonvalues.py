"""Strict JSON value semantics: equality and short descriptions.

The canonical text and the type name of a value are :mod:`fcbench.contract.values`' (one
definition each, shared with the mock, the suite and the schema layer).

Equality follows JSON, not Python: numbers compare by value (``1`` equals ``1.0``) but a
boolean is never a number (``True`` is not ``1``) and a string is never a number (``"750"`` is
not ``750``). Objects compare key by key, arrays element by element in order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fcbench.contract import canonical_json


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if _is_number(a) or _is_number(b):
        return _is_number(a) and _is_number(b) and a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return False


def json_equal(a: Any, b: Any) -> bool:
    """True when ``a`` and ``b`` are the same JSON value (strict: no coercion between types)."""
    try:
        return _equal(a, b)
    except RecursionError:
        return False


def short(value: Any, limit: int = 80) -> str:
    """A one-line JSON rendering of ``value`` cut to ``limit`` characters, for human-readable reasons."""
    text = canonical_json(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
