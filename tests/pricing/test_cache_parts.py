"""Each part of a request's input at its own price: cache reads, cache writes, the rest."""

from __future__ import annotations

import pytest

from fcbench.config import RunConfig
from fcbench.contract import Usage
from fcbench.pricing import BUILTIN_PRICES, ModelPrice, PriceTable

PARTS = Usage(
    input_tokens=1_000, output_tokens=100, cache_read_input_tokens=600, cache_creation_input_tokens=300
)
"""1,000 input tokens: 600 read from a cache, 300 written to one, 100 neither."""


def test_each_input_part_is_priced_at_its_own_price() -> None:
    table = PriceTable({"m": ModelPrice(input=2.0, output=10.0, cache_read=0.5, cache_write=4.0)})
    expected = (100 * 2.0 + 600 * 0.5 + 300 * 4.0 + 100 * 10.0) / 1_000_000
    assert table.cost("m", PARTS, local=False) == pytest.approx(expected)


def test_a_part_without_its_own_price_costs_the_input_price() -> None:
    table = PriceTable({"m": (2.0, 10.0)})
    assert table.cost("m", PARTS, local=False) == pytest.approx((1_000 * 2.0 + 100 * 10.0) / 1_000_000)
    only_reads = PriceTable({"m": ModelPrice(2.0, 10.0, cache_read=0.5)})
    expected = ((100 + 300) * 2.0 + 600 * 0.5 + 100 * 10.0) / 1_000_000
    assert only_reads.cost("m", PARTS, local=False) == pytest.approx(expected)


def test_the_builtin_cache_prices_apply_to_pinned_ids() -> None:
    price = BUILTIN_PRICES["claude-sonnet-4"]
    assert price.cache_read is not None and price.cache_write is not None
    expected = (
        100 * price.input + 600 * price.cache_read + 300 * price.cache_write + 100 * price.output
    ) / 1e6
    assert PriceTable().cost("claude-sonnet-4-20250514", PARTS, local=False) == pytest.approx(expected)
    assert expected < PriceTable({"x": (price.input, price.output)}).cost("x", PARTS, local=False)  # type: ignore[operator]


def test_cache_parts_larger_than_the_input_give_no_cost() -> None:
    broken = Usage(input_tokens=10, output_tokens=1, cache_read_input_tokens=11)
    assert PriceTable().cost("gpt-4o", broken, local=False) is None
    assert PriceTable().cost("gpt-4o", broken, local=True) == 0.0


def test_config_prices_carry_the_cache_prices_and_keep_the_hash_when_unset() -> None:
    plain = RunConfig.model_validate({"prices": {"m": {"input": 2.0, "output": 10.0}}})
    cached = RunConfig.model_validate(
        {"prices": {"m": {"input": 2.0, "output": 10.0, "cache_read": 0.5, "cache_write": 4.0}}}
    )
    assert plain.price_table().price("m") == ModelPrice(2.0, 10.0)
    assert cached.price_table().price("m") == ModelPrice(2.0, 10.0, 0.5, 4.0)
    assert "cache_read" not in plain.model_dump(mode="json")["prices"]["m"]
    assert plain.hash() != cached.hash()
