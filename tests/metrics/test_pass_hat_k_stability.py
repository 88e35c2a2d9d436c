"""pass^k as a product of factors in [0, 1]: exact where the old binomials were, stable far beyond them."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest
from records_builder import RunBuilder, call_outcome, verdict

from fcbench.metrics import compute_metrics, stats


def exact(n: int, c: int, k: int) -> Fraction:
    return Fraction(math.comb(c, k), math.comb(n, k))


def test_small_cases_are_the_correctly_rounded_binomial_ratio() -> None:
    # Up to 20 repeats the falling factorials fit in 63 bits: every value is C(c,k)/C(n,k) rounded
    # once, exactly what the binomials gave.
    for n in range(1, 21):
        for c in range(n + 1):
            values = stats.pass_hat_ks(n, c)
            assert len(values) == n
            for k, value in enumerate(values, 1):
                assert value == float(exact(n, c, k)), (n, c, k)
                assert value == math.comb(c, k) / math.comb(n, k)
                assert stats.pass_hat_k(n, c, k) == value


def test_beyond_the_exact_range_the_product_stays_within_a_few_ulps() -> None:
    for n in (21, 37, 64, 100):
        for c in (0, 1, n // 3, n // 2, n - 2, n - 1, n):
            for k, value in enumerate(stats.pass_hat_ks(n, c), 1):
                truth = float(exact(n, c, k))
                assert abs(value - truth) <= 4 * k * math.ulp(truth), (n, c, k, value, truth)


@pytest.mark.parametrize("c", [0, 1, 5_000, 9_000, 9_900, 9_999, 10_000])
def test_ten_thousand_repeats_all_k_finite_monotone_and_accurate(c: int) -> None:
    n = 10_000
    values = stats.pass_hat_ks(n, c)
    assert len(values) == n
    assert all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in values)
    assert all(b <= a for a, b in zip(values, values[1:], strict=False))
    assert not any(v == 0.0 and math.copysign(1.0, v) < 0 for v in values), "no -0.0"
    for k in (1, 2, 10, 100):
        truth = float(exact(n, c, k))
        assert values[k - 1] == pytest.approx(truth, rel=1e-12, abs=1e-300), k
        assert stats.pass_hat_k(n, c, k) == values[k - 1]
    if c < n:
        assert values[c:] == (0.0,) * (n - c)  # k > c: no draw of k repeats can all pass


def test_huge_n_and_k_never_overflow() -> None:
    values = stats.pass_hat_ks(200_000, 199_990)
    assert math.isfinite(values[99_999]) and values[99_999] >= 0.0
    assert values[-1] == 0.0
    assert stats.pass_hat_k(200_000, 200_000, 150_000) == 1.0


def test_impossible_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        stats.pass_hat_ks(3, 4)
    with pytest.raises(ValueError):
        stats.pass_hat_ks(-1, 0)
    assert stats.pass_hat_ks(0, 0) == ()


def test_a_run_with_hundreds_of_repeats_reports_every_k(tmp_path: Path) -> None:
    repeats = 300
    b = RunBuilder(tmp_path, repeats=repeats, planned=repeats)
    call = call_outcome(("lookup_order", {"order_id": "ORD-104821"}))
    for r in range(repeats):
        b.add("c1", call, verdict("correct_call", r % 10 != 0), repeat=r)
    (t,) = compute_metrics(b.write()).targets
    assert sorted(t.pass_hat_k) == list(range(1, repeats + 1))
    assert t.pass_hat_k[1] == pytest.approx(0.9)
    assert t.pass_hat_k[100] == pytest.approx(float(exact(repeats, 270, 100)), rel=1e-12)
    assert t.pass_hat_k[271] == 0.0 and t.pass_hat_k_cases[repeats] == 1
