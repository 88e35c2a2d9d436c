"""Time-bounded regular expressions for every pattern that comes from a suite.

A suite is untrusted input: a tool schema's ``pattern`` or ``patternProperties``, or a case
constraint, may backtrack catastrophically (``^(a|aa)+$`` against ``"a" * 30 + "!"``), and the
stdlib ``re`` would then block the event loop for minutes, freezing every target of the run.
Patterns are matched with the ``regex`` engine, which avoids most catastrophic backtracking,
under a deadline of :data:`MATCH_TIMEOUT_S` per match. The deadline is wall-clock time, so a
match that runs out of it is tried once more with :data:`RETRY_TIMEOUT_S` (a busy machine must not
change a verdict); one that runs out of that too is reported as unchecked (``None``), never as a
pass, and the run goes on. A match keeps the GIL (``concurrent=False``): the regex engine would
otherwise release it for every search, and taking it back while any other thread of the process
runs costs up to a thread switch interval, hundreds of times what a short match itself costs.
"""

from __future__ import annotations

import re
from functools import lru_cache

import regex

MATCH_TIMEOUT_S = 0.05
"""Time one pattern may spend on one value at first."""
RETRY_TIMEOUT_S = 0.5
"""Time a match that ran out of :data:`MATCH_TIMEOUT_S` gets on its second try."""

_NESTED_QUANTIFIER = re.compile(r"\((?:[^()\\]|\\.)*?[+*}](?:[^()\\]|\\.)*\)[+*{]")
"""A group holding a quantifier, itself quantified: the shape of catastrophic backtracking."""


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> regex.Pattern[str]:
    return regex.compile(pattern)


def bounded_search(pattern: str, text: str) -> bool | None:
    """Whether ``pattern`` is found in ``text`` (``re.search`` semantics); None when the match ran
    out of time. Raises ``regex.error`` for a pattern that does not compile."""
    compiled = _compiled(pattern)
    for deadline in (MATCH_TIMEOUT_S, RETRY_TIMEOUT_S):
        try:
            return compiled.search(text, timeout=deadline, concurrent=False) is not None
        except TimeoutError:
            continue
    return None


def has_nested_quantifier(pattern: str) -> bool:
    """Whether ``pattern`` quantifies a group that holds a quantifier (``(a+)+``, ``(\\d*)*``): a
    pattern that may backtrack catastrophically, worth a warning when a suite is checked."""
    return bool(_NESTED_QUANTIFIER.search(pattern))
