"""Token prices and cost per observation.

A small built-in table (USD per million tokens, list prices, check them before relying on them)
that a config's ``prices`` overrides. Unknown price -> ``cost_usd: null``; a local or simulated
endpoint costs 0.
"""

from __future__ import annotations

from collections.abc import Mapping

BUILTIN_PRICES: Mapping[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "claude-sonnet-4-0": (3.00, 15.00),
    "claude-3-5-haiku-latest": (0.80, 4.00),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-pro": (1.25, 10.00),
}
"""Model id -> (input, output) USD per million tokens."""


class PriceTable:
    """Looks up a model's price: config overrides first, then the built-in table."""

    def __init__(self, overrides: Mapping[str, tuple[float, float]] | None = None) -> None:
        self._prices = {**BUILTIN_PRICES, **(overrides or {})}

    def cost(
        self, model: str, input_tokens: int | None, output_tokens: int | None, *, local: bool
    ) -> float | None:
        """Cost of one request in USD, 0 for local endpoints, None when the price or usage is unknown."""
        if local:
            return 0.0
        price = self._prices.get(model)
        if price is None or input_tokens is None or output_tokens is None:
            return None
        return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000
