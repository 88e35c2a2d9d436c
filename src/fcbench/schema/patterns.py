"""Time-bounded regular expressions for every pattern that comes from a suite.

A suite is untrusted input: a tool schema's ``pattern`` or ``patternProperties``, or a case
constraint, may backtrack catastrophically (``^(a|aa)+$`` against ``"a" * 30 + "!"``), and the
stdlib ``re`` would then block the event loop for minutes, freezing every target of the run.
Patterns are matched with the ``regex`` engine, which avoids most catastrophic backtracking,
under deadlines:

* every match is first tried for :data:`QUICK_TIMEOUT_S`, keeping the GIL (``concurrent=False``):
  the engine would otherwise release it for every search, and taking it back while another thread
  of the process runs costs up to a thread switch interval, hundreds of times what a short match
  itself costs. Nearly every match ends here.
* inside :func:`quick_matches_only` (the run's event loop grades there) a match that needs more
  raises :class:`MatchNeedsTime`: the caller grades that observation again on a worker thread, so
  one target's catastrophic pattern never delays another target's requests.
* elsewhere the match is tried for :data:`MATCH_TIMEOUT_S`, then once more for
  :data:`RETRY_TIMEOUT_S` (the deadline is wall-clock time, and a busy machine must not change a
  verdict), releasing the GIL so the rest of the process goes on; one that runs out of that too is
  reported as unchecked (``None``), never as a pass, and the run goes on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache

import regex

QUICK_TIMEOUT_S = 0.002
"""Time any match gets first, holding the GIL (all an event loop's thread gives it)."""
MATCH_TIMEOUT_S = 0.05
"""Time one pattern may spend on one value at first."""
RETRY_TIMEOUT_S = 0.5
"""Time a match that ran out of :data:`MATCH_TIMEOUT_S` gets on its second try."""

_QUICK_ONLY: ContextVar[bool] = ContextVar("fcbench_quick_matches_only", default=False)
"""Set by :func:`quick_matches_only` for the code it wraps (per thread and task, never shared)."""

_NESTED_QUANTIFIER = re.compile(r"\((?:[^()\\]|\\.)*?[+*}](?:[^()\\]|\\.)*\)[+*{]")
"""A group holding a quantifier, itself quantified: the shape of catastrophic backtracking."""


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> regex.Pattern[str]:
    return regex.compile(pattern)


class MatchNeedsTime(Exception):  # noqa: N818 (a request for more time, not a failure)
    """A match inside :func:`quick_matches_only` ran out of :data:`QUICK_TIMEOUT_S`: do the work
    again outside it (on a worker thread), where the match gets its full budget."""

    def __init__(self, pattern: str) -> None:
        super().__init__(f"matching {pattern!r} needs more than {QUICK_TIMEOUT_S * 1000:g} ms")
        self.pattern = pattern
        """The pattern that needed more time."""


@contextmanager
def quick_matches_only() -> Iterator[None]:
    """Inside this block a match that does not end within :data:`QUICK_TIMEOUT_S` raises
    :class:`MatchNeedsTime` instead of going on (for code running on an event loop's thread)."""
    token = _QUICK_ONLY.set(True)
    try:
        yield
    finally:
        _QUICK_ONLY.reset(token)


def bounded_search(pattern: str, text: str) -> bool | None:
    """Whether ``pattern`` is found in ``text`` (``re.search`` semantics); None when the match ran
    out of time. Raises ``regex.error`` for a pattern that does not compile, and
    :class:`MatchNeedsTime` inside :func:`quick_matches_only` (see the module)."""
    compiled = _compiled(pattern)
    try:
        return compiled.search(text, timeout=QUICK_TIMEOUT_S, concurrent=False) is not None
    except TimeoutError:
        if _QUICK_ONLY.get():
            raise MatchNeedsTime(pattern) from None
    for deadline in (MATCH_TIMEOUT_S, RETRY_TIMEOUT_S):
        try:
            return compiled.search(text, timeout=deadline, concurrent=True) is not None
        except TimeoutError:
            continue
    return None


def has_nested_quantifier(pattern: str) -> bool:
    """Whether ``pattern`` quantifies a group that holds a quantifier (``(a+)+``, ``(\\d*)*``): a
    pattern that may backtrack catastrophically, worth a warning when a suite is checked."""
    return bool(_NESTED_QUANTIFIER.search(pattern))
