"""Prices of LLM tokens: a small built-in table (USD per 1M tokens) that `pricing:` in khaos.yaml overrides.

A model that is neither in the table nor in the overrides is *unpriced*: its cost is None and reports say so,
never 0. Names match exactly first, then by the longest known prefix, so dated snapshots
(`gpt-4o-mini-2024-07-18`, `claude-3-5-haiku-20241022`) find their family; a `provider/` prefix is ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Price:
    input: float
    """USD per 1M input (prompt) tokens."""
    output: float
    """USD per 1M output (completion) tokens."""


# List prices of the providers' standard tiers as of 2025-08; batch, cached-input and regional prices differ.
PRICES: dict[str, Price] = {
    # OpenAI
    "gpt-5": Price(1.25, 10.00), "gpt-5-mini": Price(0.25, 2.00), "gpt-5-nano": Price(0.05, 0.40),
    "gpt-4.1": Price(2.00, 8.00), "gpt-4.1-mini": Price(0.40, 1.60), "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-4o": Price(2.50, 10.00), "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4-turbo": Price(10.00, 30.00), "gpt-4": Price(30.00, 60.00), "gpt-3.5-turbo": Price(0.50, 1.50),
    "o1": Price(15.00, 60.00), "o1-mini": Price(1.10, 4.40), "o3": Price(2.00, 8.00), "o3-mini": Price(1.10, 4.40),
    "o4-mini": Price(1.10, 4.40),
    "text-embedding-3-small": Price(0.02, 0.0), "text-embedding-3-large": Price(0.13, 0.0),
    # Anthropic
    "claude-opus-4": Price(15.00, 75.00), "claude-sonnet-4": Price(3.00, 15.00),
    "claude-3-7-sonnet": Price(3.00, 15.00), "claude-3-5-sonnet": Price(3.00, 15.00),
    "claude-3-5-haiku": Price(0.80, 4.00), "claude-3-opus": Price(15.00, 75.00),
    "claude-3-haiku": Price(0.25, 1.25), "claude-haiku-4-5": Price(1.00, 5.00),
}


def price_for(model: str | None, overrides: Mapping[str, Price] | None = None) -> Price | None:
    """The price of `model` in the built-in table merged with `overrides` (an override replaces the entry of
    the same name): the exact name, else the longest known prefix."""
    if not model:
        return None
    name = model.strip().lower()
    table = {**{k.lower(): v for k, v in PRICES.items()}, **{k.lower(): v for k, v in (overrides or {}).items()}}
    return _lookup(name, table) or _lookup(name.rsplit("/", 1)[-1], table)


def _lookup(name: str, table: Mapping[str, Price]) -> Price | None:
    if name in table:
        return table[name]
    # Longest prefix wins, so gpt-4o-mini-2024-07-18 is gpt-4o-mini and not gpt-4o.
    prefixes = [key for key in table if name.startswith(key) and name[len(key):][:1] in ("-", "@", ":")]
    return table[max(prefixes, key=len)] if prefixes else None


def cost_usd(price: Price | None, input_tokens: int, output_tokens: int) -> float | None:
    if price is None:
        return None
    return (input_tokens * price.input + output_tokens * price.output) / 1_000_000
