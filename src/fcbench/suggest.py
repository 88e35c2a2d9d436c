"""Did you mean: the closest known names to a name nobody knows, for error messages.

The one reading of a near miss (``difflib``'s ratio, at least 0.6), used by every message that
rejects a name: a verb, a config key, a case id, a target's endpoint.

>>> did_you_mean("selction", ["selection", "recovery"])
" (did you mean 'selection'?)"
>>> unknown_name("case", "types-1", ["types-01", "types-02", "select-01"])
"unknown case 'types-1' (did you mean 'types-01' or 'types-02'?)"
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.6
"""How alike a known name must be (``difflib.SequenceMatcher.ratio``) to be suggested."""

MAX_SUGGESTIONS = 3
"""Most names one message suggests."""


def close_names(name: str, known: Iterable[str], count: int = MAX_SUGGESTIONS) -> list[str]:
    """The known names closest to ``name``, best first (none when nothing is alike)."""
    return difflib.get_close_matches(name, list(dict.fromkeys(known)), n=count, cutoff=CUTOFF)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x' or 'y'?)`` for the names closest to ``name``, or an empty string."""
    close = close_names(name, known)
    return f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""


def unknown_name(what: str, name: str, known: Iterable[str]) -> str:
    """``unknown WHAT 'name'``, with the closest known names, else the list of every known one."""
    names = list(dict.fromkeys(known))
    hint = did_you_mean(name, names)
    return f"unknown {what} {name!r}{hint or '; known: ' + ', '.join(names)}"


__all__ = ["close_names", "did_you_mean", "unknown_name"]
