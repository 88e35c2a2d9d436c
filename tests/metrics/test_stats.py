"""The small statistics module: percentiles, pass^k and the two-proportion tests."""

from __future__ import annotations

import math

import pytest

from fcbench.metrics import stats


def test_percentile_interpolates_between_closest_ranks() -> None:
    values = [10.0, 20.0, 30.0, 40.0, 100.0]
    assert stats.percentile(values, 50) == 30.0
    assert stats.percentile(values, 95) == pytest.approx(40.0 * 0.2 + 100.0 * 0.8)
    assert stats.percentile(values, 0) == 10.0
    assert stats.percentile(values, 100) == 100.0
    assert stats.percentile([7.0], 95) == 7.0
    assert stats.percentile([], 50) is None
    with pytest.raises(ValueError):
        stats.percentile(values, 101)


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (5, 3, 1, 3 / 5),
        (5, 3, 2, 3 / 10),
        (5, 3, 3, 1 / 10),
        (5, 3, 4, 0.0),
        (5, 5, 5, 1.0),
        (4, 0, 1, 0.0),
        (10, 7, 3, 35 / 120),
    ],
)
def test_pass_hat_k_is_the_hypergeometric_all_pass_probability(
    n: int, c: int, k: int, expected: float
) -> None:
    assert stats.pass_hat_k(n, c, k) == pytest.approx(expected)


def test_pass_hat_k_rejects_impossible_arguments() -> None:
    with pytest.raises(ValueError):
        stats.pass_hat_k(3, 1, 4)
    with pytest.raises(ValueError):
        stats.pass_hat_k(3, 4, 1)


def test_two_proportion_z_matches_the_textbook_formula() -> None:
    # 50/100 against 70/100: pooled 0.6, se = sqrt(0.6 * 0.4 * 0.02), z = 0.2 / se.
    z = 0.2 / math.sqrt(0.6 * 0.4 * 0.02)
    expected = math.erfc(z / math.sqrt(2))
    assert stats.two_proportion_z(50, 100, 70, 100) == pytest.approx(expected)
    assert stats.two_proportion_z(50, 100, 70, 100) == pytest.approx(0.00389, abs=1e-4)
    assert stats.two_proportion_z(10, 10, 20, 20) == 1.0


def test_fisher_exact_known_tables() -> None:
    # Lady tasting tea: [[3, 1], [1, 3]], two-sided p = 34/70.
    assert stats.fisher_exact(3, 4, 1, 4) == pytest.approx(34 / 70)
    # [[10, 0], [0, 10]]: two extreme tables out of C(20, 10).
    assert stats.fisher_exact(10, 10, 0, 10) == pytest.approx(2 / math.comb(20, 10))
    assert stats.fisher_exact(5, 10, 5, 10) == pytest.approx(1.0)


def test_proportion_test_chooses_fisher_for_small_counts() -> None:
    assert stats.proportion_test(3, 4, 1, 4) == pytest.approx(stats.fisher_exact(3, 4, 1, 4))
    assert stats.proportion_test(50, 100, 70, 100) == pytest.approx(stats.two_proportion_z(50, 100, 70, 100))
    assert stats.proportion_test(1, 0, 1, 1) is None
