"""Stratified sampling and tag exclusion of the plan's case selection."""

from __future__ import annotations

from collections import Counter

import pytest

from fcbench.errors import ConfigError
from fcbench.run.plan import select_cases, stratified_sample
from fcbench.suite.loader import load_suite

CASES = load_suite("core").cases


def shares(cases: list) -> Counter[tuple[str, bool]]:  # type: ignore[type-arg]
    return Counter((c.category, c.recovery is not None) for c in cases)


@pytest.mark.parametrize("size", [1, 5, 12, 40, len(CASES) - 1])
def test_a_sample_has_the_size_asked_and_follows_the_strata(size: int) -> None:
    sample = stratified_sample(CASES, size, seed=3)
    assert len(sample) == size
    assert len({c.id for c in sample}) == size
    whole = shares(CASES)
    for key, count in shares(sample).items():
        assert abs(count - size * whole[key] / len(CASES)) < 1, (key, count)
    order = [c.id for c in CASES]
    assert [c.id for c in sample] == sorted((c.id for c in sample), key=order.index)


def test_the_same_seed_gives_the_same_sample_and_another_seed_another() -> None:
    one = [c.id for c in stratified_sample(CASES, 20, seed=1)]
    assert one == [c.id for c in stratified_sample(CASES, 20, seed=1)]
    assert any(one != [c.id for c in stratified_sample(CASES, 20, seed=s)] for s in range(2, 6))


def test_a_sample_larger_than_the_suite_is_the_suite() -> None:
    assert stratified_sample(CASES, len(CASES) + 5, seed=0) == list(CASES)


def test_exclude_tags_then_sample() -> None:
    kept = select_cases(CASES, [], [], [], exclude_tags=["abstention"])
    assert kept and all("abstention" not in c.tags for c in kept)
    assert len(select_cases(CASES, [], [], [], exclude_tags=["abstention"], sample=7, seed=2)) == 7
    with pytest.raises(ConfigError, match="exclude-tag"):
        select_cases(CASES, ["normal"], [], [], exclude_tags=[t for c in CASES for t in c.tags])


@pytest.mark.parametrize(("modes", "recovery"), [(["selection"], False), (["recovery"], True)])
def test_a_sample_is_n_cases_in_total_of_the_cases_the_modes_observe(
    modes: list[str], recovery: bool
) -> None:
    sample = select_cases(CASES, [], [], [], sample=9, seed=0, modes=modes)
    assert len(sample) == 9
    assert all((c.recovery is not None) is recovery for c in sample)
    pool = [c for c in CASES if (c.recovery is not None) is recovery]
    categories = Counter(c.category for c in pool)
    for category, count in Counter(c.category for c in sample).items():  # in proportion per category
        assert abs(count - 9 * categories[category] / len(pool)) < 1, (category, count)
