"""Price lookup: exact ids, pinned ids by version suffix, no cross-family matches, costs."""

from __future__ import annotations

import pytest

from fcbench.contract import Usage
from fcbench.pricing import BUILTIN_PRICES, ModelPrice, PriceTable


def _usage(input_tokens: int | None, output_tokens: int | None) -> Usage:
    return Usage(input_tokens=input_tokens, output_tokens=output_tokens)


@pytest.mark.parametrize(
    ("model", "key"),
    [
        # exact ids
        ("gpt-4o", "gpt-4o"),
        ("gpt-4o-mini", "gpt-4o-mini"),
        ("claude-sonnet-4-0", "claude-sonnet-4-0"),
        ("claude-3-5-haiku-latest", "claude-3-5-haiku-latest"),
        ("gemini-2.5-flash", "gemini-2.5-flash"),
        # -YYYY-MM-DD
        ("gpt-4o-2024-08-06", "gpt-4o"),
        ("gpt-4o-2024-11-20", "gpt-4o"),
        ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("gpt-4.1-2025-04-14", "gpt-4.1"),
        ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
        # -YYYYMMDD
        ("claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("claude-3-5-haiku-20241022", "claude-3-5-haiku"),
        # -NNN
        ("gemini-2.5-flash-001", "gemini-2.5-flash"),
        # -preview...
        ("gemini-2.5-pro-preview-05-06", "gemini-2.5-pro"),
        ("gemini-2.5-flash-preview-04-17", "gemini-2.5-flash"),
        ("gemini-2.5-pro-preview", "gemini-2.5-pro"),
        # -latest
        ("gpt-4o-latest", "gpt-4o"),
        # @version (Vertex AI)
        ("claude-sonnet-4@20250514", "claude-sonnet-4"),
        ("claude-3-5-haiku@20241022", "claude-3-5-haiku"),
        # leading models/
        ("models/gemini-2.5-flash", "gemini-2.5-flash"),
        ("models/gemini-2.5-flash-001", "gemini-2.5-flash"),
        ("models/gemini-2.5-pro-preview-05-06", "gemini-2.5-pro"),
    ],
)
def test_pinned_ids_are_priced_as_their_model(model: str, key: str) -> None:
    table = PriceTable()
    assert table.match(model) == key
    assert table.cost(model, _usage(1_000_000, 1_000_000), local=False) == pytest.approx(
        BUILTIN_PRICES[key].input + BUILTIN_PRICES[key].output
    )


@pytest.mark.parametrize(
    "model",
    [
        "gpt-4.1-nano",  # another model than gpt-4.1
        "gpt-4.1-nano-2025-04-14",
        "claude-sonnet-4-5",  # neither claude-sonnet-4 nor claude-sonnet-4-0
        "claude-sonnet-4-5-20250929",
        "claude-sonnet-4-1",
        "gemini-2.5-flash-lite",  # another model than gemini-2.5-flash
        "gemini-2.5-flash-lite-preview-06-17",
        "gemini-2.5-flash-preview-tts",
        "gpt-4o-realtime-preview",
        "gpt-4o-audio-preview-2024-12-17",
        "gpt-4o-2024",  # not a date
        "gpt-4o-01",  # not three digits
        "gpt-4o-latest-2024-08-06",  # one suffix only
        "gpt-4o-",
        "gpt-4o@",
        "gpt-4",  # shorter than a key
        "gpt-4ox",
        "GPT-4O",  # case-sensitive
        "openai/gpt-4o",  # only models/ is stripped
        "models/",
        "qwen2.5-7b-instruct",
        "",
    ],
)
def test_other_models_have_no_price(model: str) -> None:
    table = PriceTable()
    assert table.match(model) is None
    assert table.price(model) is None
    assert table.cost(model, _usage(100, 100), local=False) is None


def test_mini_gets_minis_price_not_the_larger_models() -> None:
    table = PriceTable()
    assert table.price("gpt-4o-mini-2024-07-18") == BUILTIN_PRICES["gpt-4o-mini"]
    assert table.price("gpt-4o-mini-2024-07-18") != BUILTIN_PRICES["gpt-4o"]


def test_exact_config_override_beats_the_prefix_match() -> None:
    table = PriceTable({"gpt-4o-2024-08-06": (1.0, 2.0)})
    assert table.match("gpt-4o-2024-08-06") == "gpt-4o-2024-08-06"
    assert table.cost("gpt-4o-2024-08-06", _usage(1_000_000, 1_000_000), local=False) == pytest.approx(3.0)
    assert table.match("gpt-4o-2024-11-20") == "gpt-4o"  # other pins still use the built-in key


def test_config_override_replaces_a_builtin_key_for_its_pinned_ids_too() -> None:
    table = PriceTable({"gpt-4o": (1.0, 1.0)})
    assert table.match("gpt-4o-2024-08-06") == "gpt-4o"
    assert table.price("gpt-4o-2024-08-06") == ModelPrice(1.0, 1.0)
    assert table.price("gpt-4o-mini-2024-07-18") == BUILTIN_PRICES["gpt-4o-mini"]


def test_config_keys_take_part_in_prefix_matching_and_the_longest_key_wins() -> None:
    table = PriceTable({"gpt-4.1-nano": (0.1, 0.4), "gemini-2.5-flash-preview": (9.0, 9.0)})
    assert table.match("gpt-4.1-nano-2025-04-14") == "gpt-4.1-nano"
    assert table.price("gpt-4.1-nano") == ModelPrice(0.1, 0.4)
    assert table.match("gemini-2.5-flash-preview-latest") == "gemini-2.5-flash-preview"
    assert table.match("gemini-2.5-flash-preview-05-20") == "gemini-2.5-flash"


def test_an_exact_id_written_with_models_prefix_is_found_as_written_first() -> None:
    table = PriceTable({"models/gemini-2.5-flash": (7.0, 7.0)})
    assert table.match("models/gemini-2.5-flash") == "models/gemini-2.5-flash"
    assert table.match("gemini-2.5-flash") == "gemini-2.5-flash"


def test_overrides_do_not_leak_into_other_tables_or_the_builtin_table() -> None:
    PriceTable({"my-model": (1.0, 1.0), "gpt-4o": (0.0, 0.0)})
    assert PriceTable().match("my-model") is None
    assert PriceTable().price("gpt-4o") == ModelPrice(2.50, 10.00, cache_read=1.25)
    assert "my-model" not in BUILTIN_PRICES
    with pytest.raises(TypeError):
        BUILTIN_PRICES["x"] = ModelPrice(0.0, 0.0)  # type: ignore[index]


@pytest.mark.parametrize("model", ["gpt-4o-2024-08-06", "qwen2.5-7b-instruct", "unknown"])
@pytest.mark.parametrize(("input_tokens", "output_tokens"), [(10, 20), (None, 20), (10, None), (None, None)])
def test_local_endpoints_cost_zero(model: str, input_tokens: int | None, output_tokens: int | None) -> None:
    assert PriceTable().cost(model, _usage(input_tokens, output_tokens), local=True) == 0.0


@pytest.mark.parametrize(("input_tokens", "output_tokens"), [(None, 20), (10, None), (None, None)])
def test_unknown_usage_gives_none(input_tokens: int | None, output_tokens: int | None) -> None:
    assert PriceTable().cost("gpt-4o-2024-08-06", _usage(input_tokens, output_tokens), local=False) is None


def test_cost_is_tokens_times_price_per_million() -> None:
    cost = PriceTable().cost("gpt-4o-mini-2024-07-18", _usage(2_000, 500), local=False)
    assert cost == pytest.approx((2_000 * 0.15 + 500 * 0.60) / 1_000_000)
    assert PriceTable().cost("gpt-4o", _usage(0, 0), local=False) == 0.0
