"""Evidence found in text: one value with its renderings, and the reading context."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fcbench.mock.sim.numbers import find_numbers
from fcbench.mock.sim.text import has_correction


@dataclass(frozen=True)
class Found:
    """One value found in the text for one property."""

    value: Any
    """Careful rendering: normalised, typed, within constraints; None when the text's value is unusable."""
    unbounded: Any
    """Normalised and typed, constraints (bounds, lengths) not applied."""
    loose: Any
    """As a careless model would copy it: numbers as text, codes lowercase, units unconverted."""
    kind: str
    strength: float
    """How specific the evidence is (3 for a pattern match, under 1 for weak cues)."""
    start: int = -1
    end: int = -1
    problem: str = ""
    """Why ``value`` is None (e.g. 'must be at most 50000')."""
    missing: tuple[str, ...] = ()
    """Nested required properties without a value (objects only), as dotted paths."""


class Context:
    """The text being read plus the spans already used by other properties."""

    def __init__(self, text: str, claimed: list[tuple[int, int]] | None = None) -> None:
        self.text = text
        self.numbers = find_numbers(text)
        self.claimed: list[tuple[int, int]] = list(claimed or [])
        self.correction = has_correction(text)

    def copy(self) -> Context:
        """A context over the same text with the same claims, for trying alternatives."""
        return Context(self.text, self.claimed)

    def free(self, start: int, end: int) -> bool:
        """True when the span does not overlap a claimed one."""
        if start < 0:
            return True
        return all(end <= s or start >= e for s, e in self.claimed)

    def claim(self, found: Found) -> None:
        """Mark the span of ``found`` as used."""
        if found.start >= 0:
            self.claimed.append((found.start, found.end))
