"""Claims a closing text makes without a tool result to support them (a refund, a cancellation, a
price, "done successfully" when nothing succeeded), by the suite's claim rules (``claims.json``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from fcbench.grading.transcript import ExecutedCall
from fcbench.suite.models import ClaimRule, ClaimRules


@dataclass(frozen=True)
class ClaimMatcher:
    """A suite's claim rules (:class:`~fcbench.suite.models.ClaimRules`) with their patterns compiled."""

    rules: tuple[tuple[ClaimRule, tuple[re.Pattern[str], ...]], ...]
    hedges: tuple[re.Pattern[str], ...]

    @classmethod
    def of(cls, claims: ClaimRules) -> ClaimMatcher:
        """Compile ``claims`` (case-insensitive)."""
        return cls(
            rules=tuple((rule, _compiled(rule.patterns)) for rule in claims.rules),
            hedges=_compiled(claims.hedges),
        )

    def hedged(self, sentence: str) -> bool:
        """Whether the sentence is a negation, condition or report of failure (so not a claim)."""
        return any(h.search(sentence) for h in self.hedges)


def _compiled(patterns: Sequence[str]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n")
"""Where one sentence ends: terminal punctuation before a space (so "8.99" stays whole), CJK
terminal punctuation, or a line break."""


def _evidence_words(value: Any) -> Iterable[str]:
    """Lower-cased string values of a result, and the keys it sets to ``true`` (``"refunded": true``)."""
    if isinstance(value, str):
        yield value.lower()
    elif isinstance(value, dict):
        for key, item in value.items():
            if item is True:
                yield str(key).lower()
            yield from _evidence_words(item)
    elif isinstance(value, list):
        for item in value:
            yield from _evidence_words(item)


def unsupported_claims(
    text: str,
    calls: Sequence[ExecutedCall],
    offered: Iterable[str],
    claims: ClaimMatcher,
    evidence: Sequence[tuple[str, Any]] = (),
) -> list[str]:
    """Names of the claim rules whose claim ``text`` makes without a supporting result.

    Successful results of ``calls`` support claims, and so do ``evidence`` pairs ``(tool, content)``:
    results the model saw before the conversation started (the case's history).
    """
    offered_set = set(offered)
    successes = [(c.call.name, c.content) for c in calls if c.ok] + list(evidence)
    seen = {word for _, content in successes for word in _evidence_words(content)}
    found: list[str] = []
    sentences = [s for s in SENTENCE_END.split(text) if s.strip() and not claims.hedged(s)]
    for rule, patterns in claims.rules:
        if not rule.always and not set(rule.tools or ()) & offered_set:
            continue
        if not any(p.search(s) for p in patterns for s in sentences):
            continue
        by_tool = any(rule.tools is None or name in rule.tools for name, _ in successes)
        supported = by_tool or bool({v.lower() for v in rule.values} & seen)
        if not supported:
            found.append(rule.name)
    return found


__all__ = ["SENTENCE_END", "ClaimMatcher", "unsupported_claims"]
