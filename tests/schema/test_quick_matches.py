"""Quick matches only: inside ``quick_matches_only`` a match that needs longer says so instead of
holding the thread; outside, the same match gets its full budget (and is reported unchecked)."""

from __future__ import annotations

import pytest

from fcbench.schema.patterns import MatchNeedsTime, bounded_search, quick_matches_only
from fcbench.schema.validate import ValidatorCache

EVIL = r"^(a|aa)+$"
ATTACK = "a" * 60 + "!"


def test_a_slow_match_inside_quick_matches_only_asks_for_more_time() -> None:
    with quick_matches_only():
        assert bounded_search(r"^\d{5}$", "02139") is True
        assert bounded_search(r"^\d{5}$", "2139") is False
        with pytest.raises(MatchNeedsTime) as raised:
            bounded_search(EVIL, ATTACK)
    assert raised.value.pattern == EVIL
    assert bounded_search(EVIL, ATTACK) is None  # outside: the full budget, then unchecked


def test_validation_inside_quick_matches_only_lets_the_request_for_time_through() -> None:
    cache = ValidatorCache()
    schema = {"type": "object", "properties": {"x": {"type": "string", "pattern": EVIL}}}
    with quick_matches_only(), pytest.raises(MatchNeedsTime):
        cache.validate(schema, {"x": ATTACK})
    result = cache.validate(schema, {"x": ATTACK})
    assert not result.valid and "could not be checked" in result.errors[0]
