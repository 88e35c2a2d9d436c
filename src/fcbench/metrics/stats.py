"""Small, dependency-free statistics used by the metrics and the regression gate.

* :func:`percentile` exact percentile with linear interpolation between closest ranks.
* :func:`pass_hat_k` the chance that ``k`` repeats drawn without replacement all pass;
  :func:`pass_hat_ks` the same for every ``k`` at once.
* :func:`two_proportion_z` and :func:`fisher_exact` two-sided tests of two pass rates;
  :func:`proportion_test` picks Fisher's exact test when a cell would be too small for the
  normal approximation.
* :func:`wilson_interval` the Wilson score interval of a proportion (95% by default).
* :class:`ExactSum` the correctly rounded sum of floats, whatever their order.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

_FISHER_MIN_EXPECTED = 5.0
"""Below this expected count in any cell of the 2x2 table the z-test is replaced by Fisher's test."""
Z_95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""


def percentile(sorted_values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0..100) of already sorted values, or None when there are none.

    Uses linear interpolation between the two closest ranks (position ``q/100 * (n-1)``), the
    same definition as numpy's default.
    """
    if not sorted_values:
        return None
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile must be within 0..100, got {q}")
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = math.ceil(pos)
    if lo == hi:
        return float(sorted_values[lo])
    frac = pos - lo
    return float(sorted_values[lo]) * (1.0 - frac) + float(sorted_values[hi]) * frac


_EXACT_BELOW = 1 << 63
"""pass^k is a ratio of exact integers while the falling factorial ``n (n-1) ... (n-k+1)`` is below this."""


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Probability that ``k`` of ``n`` repeats, ``c`` of which passed, drawn without replacement all pass.

    ``C(c, k) / C(n, k)``, computed as :func:`pass_hat_ks` does; requires ``1 <= k <= n``.
    """
    if not 1 <= k <= n:
        raise ValueError(f"pass^k needs 1 <= k <= n (k={k}, n={n})")
    _check_passes(n, c)
    for value in _pass_hats(n, c, k):
        last = value
    return last


@functools.lru_cache(maxsize=4096)
def pass_hat_ks(n: int, c: int) -> tuple[float, ...]:
    """pass^k for every ``k`` from 1 to ``n`` (``n`` scorable repeats, ``c`` passes), in O(n).

    ``C(c, k) / C(n, k) = prod_{i<k} (c - i) / (n - i)``: while the falling factorials stay below
    2^63 the value is their exact ratio, correctly rounded (so it is exactly ``C(c, k) / C(n, k)``
    in floating point); beyond that the product goes on in floating point, one factor in [0, 1]
    per ``k``, so it never overflows, never builds big integers, and its relative error stays
    within about ``2k`` units in the last place. Once ``k > c`` every value is 0.0.
    """
    if n < 0:
        raise ValueError(f"repeat count {n} is negative")
    _check_passes(n, c)
    return tuple(_pass_hats(n, c, n))


def _pass_hats(n: int, c: int, k: int) -> Iterator[float]:
    """pass^1 .. pass^k of ``n`` repeats with ``c`` passes (``k <= n``)."""
    numerator = denominator = 1
    for i in range(k):
        if i == c:  # every later factor has a zero numerator
            yield from (0.0 for _ in range(i, k))
            return
        numerator *= c - i
        denominator *= n - i
        if denominator >= _EXACT_BELOW:
            break
        yield numerator / denominator
    else:
        return
    value = numerator / denominator
    yield value
    for j in range(i + 1, k):
        if j == c:
            yield from (0.0 for _ in range(j, k))
            return
        value *= (c - j) / (n - j)
        yield value


def _check_passes(n: int, c: int) -> None:
    if not 0 <= c <= n:
        raise ValueError(f"pass count {c} outside 0..{n}")


def two_proportion_z(x1: int, n1: int, x2: int, n2: int) -> float:
    """Two-sided p-value of the pooled two-proportion z-test of ``x1/n1`` against ``x2/n2``."""
    _check_counts(x1, n1, x2, n2)
    pooled = (x1 + x2) / (n1 + n2)
    se = math.sqrt(pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2))
    if se == 0.0:
        return 1.0
    z = (x2 / n2 - x1 / n1) / se
    return math.erfc(abs(z) / math.sqrt(2.0))


def fisher_exact(x1: int, n1: int, x2: int, n2: int) -> float:
    """Two-sided p-value of Fisher's exact test on the table ``[[x1, n1-x1], [x2, n2-x2]]``.

    Sums the probabilities of every table with the same margins that is no more likely than the
    observed one (with a small relative tolerance for floating-point ties).
    """
    _check_counts(x1, n1, x2, n2)
    successes = x1 + x2
    total = n1 + n2
    lo = max(0, successes - n2)
    hi = min(successes, n1)

    def log_prob(a: int) -> float:
        return _log_comb(n1, a) + _log_comb(n2, successes - a) - _log_comb(total, successes)

    observed = log_prob(x1)
    limit = observed + 1e-7
    p_value = sum(math.exp(lp) for lp in (log_prob(a) for a in range(lo, hi + 1)) if lp <= limit)
    return min(1.0, p_value)


def proportion_test(x1: int, n1: int, x2: int, n2: int) -> float | None:
    """Two-sided p-value comparing two pass rates, or None when either side has no observations.

    Uses the z-test when every expected cell count is at least 5, Fisher's exact test otherwise.
    """
    if n1 <= 0 or n2 <= 0:
        return None
    successes = x1 + x2
    failures = n1 + n2 - successes
    total = n1 + n2
    smallest = min(n1, n2) * min(successes, failures) / total
    if smallest < _FISHER_MIN_EXPECTED:
        return fisher_exact(x1, n1, x2, n2)
    return two_proportion_z(x1, n1, x2, n2)


def wilson_interval(n: int, d: int, z: float = Z_95) -> tuple[float, float] | None:
    """The Wilson score interval of the proportion ``n / d`` (95% by default), or None when ``d`` is 0.

    ``(p + z²/2d ± z·sqrt(p(1-p)/d + z²/4d²)) / (1 + z²/d)``: unlike the normal approximation it
    stays inside 0..1 and is not empty at 0/d or d/d (5/10 gives about [0.237, 0.763]).
    """
    if d <= 0:
        return None
    if not 0 <= n <= d:
        raise ValueError(f"successes {n} outside 0..{d}")
    p = n / d
    z2 = z * z
    denominator = 1.0 + z2 / d
    centre = (p + z2 / (2 * d)) / denominator
    half = z * math.sqrt(p * (1.0 - p) / d + z2 / (4 * d * d)) / denominator
    low = 0.0 if n == 0 else max(0.0, centre - half)
    high = 1.0 if n == d else min(1.0, centre + half)
    return low, high


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _check_counts(x1: int, n1: int, x2: int, n2: int) -> None:
    if n1 <= 0 or n2 <= 0:
        raise ValueError("both samples need at least one observation")
    if not (0 <= x1 <= n1 and 0 <= x2 <= n2):
        raise ValueError(f"successes outside 0..n: {x1}/{n1}, {x2}/{n2}")


EXACT_SUM_VALUES = 4096
"""Distinct values an :class:`ExactSum` counts before adding them into its exact total."""


@dataclass(slots=True)
class ExactSum:
    """A sum of floats kept exactly, so it does not depend on the order they are added in (nor on
    how they were split between parts): :meth:`total` is the exact sum rounded once, as
    :func:`math.fsum` rounds it; NaN when a NaN or both infinities were added, an infinity when one
    was or when the exact sum is beyond the float range. Memory is bounded: values are counted
    (repeated costs are counted once), and added into an exact fraction every
    :data:`EXACT_SUM_VALUES` distinct values."""

    counts: dict[float, int] = field(default_factory=dict)
    """Value -> times added, since the last :meth:`flush`."""
    exact: Fraction = Fraction(0)
    """The finite values flushed, summed exactly."""
    nan: bool = False
    """A NaN was added."""
    positive_infinity: bool = False
    """Infinity was added."""
    negative_infinity: bool = False
    """Minus infinity was added."""

    def add(self, value: float) -> None:
        """Add one value."""
        counts = self.counts
        counts[value] = counts.get(value, 0) + 1
        if len(counts) > EXACT_SUM_VALUES:
            self.flush()

    def flush(self) -> None:
        """Add the counted values into the exact total."""
        exact = self.exact
        for value, times in self.counts.items():
            if math.isfinite(value):
                exact += Fraction(value) * times
            elif value != value:
                self.nan = True
            elif value > 0:
                self.positive_infinity = True
            else:
                self.negative_infinity = True
        self.exact = exact
        self.counts = {}

    def merge(self, other: ExactSum) -> None:
        """Add every value ``other`` was given."""
        other.flush()
        self.flush()
        self.exact += other.exact
        self.nan = self.nan or other.nan
        self.positive_infinity = self.positive_infinity or other.positive_infinity
        self.negative_infinity = self.negative_infinity or other.negative_infinity

    def total(self) -> float:
        """The sum, rounded once."""
        self.flush()
        if self.nan or (self.positive_infinity and self.negative_infinity):
            return math.nan
        if self.positive_infinity or self.negative_infinity:
            return math.inf if self.positive_infinity else -math.inf
        try:
            return float(self.exact)
        except OverflowError:
            return math.inf if self.exact > 0 else -math.inf
