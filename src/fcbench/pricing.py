"""Token prices and cost per observation.

A small built-in table (USD per million tokens, list prices, check them before relying on them)
that a config's ``prices`` overrides. Unknown price -> ``cost_usd: null``; a local or simulated
endpoint costs 0.

Each part of a request's input is priced apart (:meth:`PriceTable.cost`): the input tokens read
from a prompt cache at the cache-read price, those written to one at the cache-write price, the
rest at the input price. A price without a cache-read or cache-write figure prices that part at the
input price (so a cache never makes a request look cheaper than the table says).

How a model id finds its price (:meth:`PriceTable.match` names the table key used):

1. **Exact id.** The id as written, looked up in the config's ``prices`` first, then in the
   built-in table.
2. **Leading ``models/`` stripped.** Gemini's ``models/gemini-2.5-flash`` is looked up as
   ``gemini-2.5-flash`` (exactly, then by rule 3).
3. **Table key + version suffix.** Otherwise the longest table key (config keys and built-in
   keys alike; a config key replaces the built-in key of the same name) such that the id is
   that key followed by exactly one version suffix:

   - a date: ``-YYYY-MM-DD`` (``gpt-4o-2024-08-06``) or ``-YYYYMMDD``
     (``claude-sonnet-4-20250514``);
   - a three-digit version: ``-NNN`` (``gemini-2.5-flash-001``);
   - ``-preview``, optionally followed by numeric parts (``gemini-2.5-pro-preview-05-06``);
   - ``-latest`` (``claude-3-5-haiku-latest``);
   - ``@`` and a version, as on Vertex AI (``claude-sonnet-4@20250514``).

   Anything else after the key is another model, not a version of it, so it has no price:
   ``gpt-4o-mini-2024-07-18`` is priced as ``gpt-4o-mini`` (never as ``gpt-4o``);
   ``gpt-4.1-nano`` is not ``gpt-4.1``; ``claude-sonnet-4-5`` is neither ``claude-sonnet-4``
   nor ``claude-sonnet-4-0``; ``gemini-2.5-flash-lite`` is not ``gemini-2.5-flash``.
4. **No match.** No price: ``cost_usd`` is null (the report says "no price for X").

Matching is case-sensitive. To price an id the rules miss, or to correct a price, add it to
``prices`` in the config: an exact config entry beats every prefix match.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import NamedTuple

from fcbench.contract import Usage


class ModelPrice(NamedTuple):
    """One model's price, USD per million tokens."""

    input: float
    """Input tokens neither read from nor written to a prompt cache."""
    output: float
    """Output tokens."""
    cache_read: float | None = None
    """Input tokens read from a prompt cache (None: priced as ``input``)."""
    cache_write: float | None = None
    """Input tokens written to a prompt cache (None: priced as ``input``)."""


BUILTIN_PRICES: Mapping[str, ModelPrice] = MappingProxyType(
    {
        "gpt-4o": ModelPrice(2.50, 10.00, cache_read=1.25),
        "gpt-4o-mini": ModelPrice(0.15, 0.60, cache_read=0.075),
        "gpt-4.1": ModelPrice(2.00, 8.00, cache_read=0.50),
        "gpt-4.1-mini": ModelPrice(0.40, 1.60, cache_read=0.10),
        "claude-sonnet-4": ModelPrice(3.00, 15.00, cache_read=0.30, cache_write=3.75),
        "claude-sonnet-4-0": ModelPrice(3.00, 15.00, cache_read=0.30, cache_write=3.75),
        "claude-3-5-haiku": ModelPrice(0.80, 4.00, cache_read=0.08, cache_write=1.00),
        "claude-3-5-haiku-latest": ModelPrice(0.80, 4.00, cache_read=0.08, cache_write=1.00),
        "gemini-2.5-flash": ModelPrice(0.30, 2.50, cache_read=0.03),
        "gemini-2.5-pro": ModelPrice(1.25, 10.00, cache_read=0.125),
    }
)
"""Model id -> its list price (read-only); the cache-write figure of Anthropic models is the
five-minute cache's."""

MAX_TOKEN_COUNT = 2**53
"""Largest token count taken as reported: no real request comes near it, and beyond it JSON readers
no longer agree on the value (a larger count is left out and noted as ``implausible_usage``)."""

_MODELS_PREFIX = "models/"

_VERSION_SUFFIX = re.compile(
    r"""
    (?:
        -\d{4}-\d{2}-\d{2}        # -YYYY-MM-DD
      | -\d{8}                    # -YYYYMMDD
      | -\d{3}                    # -NNN
      | -preview(?:-\d+)*         # -preview, -preview-05-06, -preview-2025-02-27
      | -latest                   # -latest
      | @[A-Za-z0-9][A-Za-z0-9._-]*  # @20250514, @001
    )
    """,
    re.VERBOSE,
)
"""What may follow a table key in a pinned id of that same model (matched in full)."""


class PriceTable:
    """Looks up a model's price: config overrides first, then the built-in table (rules: module doc)."""

    def __init__(self, overrides: Mapping[str, ModelPrice | tuple[float, float]] | None = None) -> None:
        given = {model: ModelPrice(*price) for model, price in (overrides or {}).items()}
        self._prices: dict[str, ModelPrice] = {**BUILTIN_PRICES, **given}
        # Longest first, so the first key that fits is the longest one.
        self._by_length: tuple[str, ...] = tuple(sorted(self._prices, key=lambda k: (-len(k), k)))

    def match(self, model: str) -> str | None:
        """The table key that prices ``model`` ("priced as gpt-4o"), or None when nothing does."""
        names = list(_names(model))
        for name in names:
            if name in self._prices:  # a config price replaced the built-in one of the same id
                return name
        for key in self._by_length:
            for name in names:
                if name.startswith(key) and _VERSION_SUFFIX.fullmatch(name, len(key)):
                    return key
        return None

    def price(self, model: str) -> ModelPrice | None:
        """The price of ``model`` (USD per million tokens), or None when it has no price."""
        key = self.match(model)
        return None if key is None else self._prices[key]

    def cost(self, model: str, usage: Usage, *, local: bool) -> float | None:
        """Cost of one request in USD, each part of its input at its own price (module doc); 0 for
        local endpoints; None when the price or a count is unknown, or the cache parts exceed the
        input they are parts of."""
        if local:
            return 0.0
        price = self.price(model)
        uncached = usage.uncached_input_tokens
        if price is None or uncached is None or usage.output_tokens is None or uncached < 0:
            return None
        read = (usage.cache_read_input_tokens or 0) * _or_input(price.cache_read, price)
        written = (usage.cache_creation_input_tokens or 0) * _or_input(price.cache_write, price)
        return (uncached * price.input + read + written + usage.output_tokens * price.output) / 1_000_000


def usage_problems(input_tokens: int | None, output_tokens: int | None, cost: float | None) -> list[str]:
    """What makes a usage or its cost impossible to record as a number (empty when nothing does):
    a count beyond :data:`MAX_TOKEN_COUNT`, or a cost that overflows the float range."""
    problems = [
        f"{name} of {len(str(count))} digits reported, beyond 2^53: left out"
        for name, count in (("input_tokens", input_tokens), ("output_tokens", output_tokens))
        if count is not None and abs(count) > MAX_TOKEN_COUNT
    ]
    if cost is not None and not math.isfinite(cost):
        problems.append("cost_usd overflows the float range: left out")
    return problems


def _or_input(part_price: float | None, price: ModelPrice) -> float:
    """A part's price, or the input price when the table has none for that part."""
    return price.input if part_price is None else part_price


def _names(model: str) -> Iterator[str]:
    """The id as written, then without a leading ``models/``."""
    yield model
    if model.startswith(_MODELS_PREFIX) and len(model) > len(_MODELS_PREFIX):
        yield model[len(_MODELS_PREFIX) :]
