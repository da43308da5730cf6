"""Run budgets (`budget: {max_llm_calls, max_tokens, max_cost_usd, max_wall_s}`): a meter of what the run has
spent and the first limit it reached.

What counts is what reached a provider: live LLM calls, their tokens and their cost. Calls answered by the
cassette or by a fault cost nothing and are not counted. The engine asks `exhausted()` before starting each case
(its `should_stop` hook): a reached budget starts no new case; cases already running finish (so a run can overshoot
by what its in-flight cases spend, at most `concurrency` cases), every finished case is kept, the rest are listed as
not run and the verdict fails with "budget exhausted".
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    max_llm_calls: int | None = None
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    max_wall_s: float | None = None

    @property
    def any(self) -> bool:
        return any(v is not None for v in (self.max_llm_calls, self.max_tokens, self.max_cost_usd, self.max_wall_s))


@dataclass(frozen=True, slots=True)
class Spent:
    calls: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    wall_s: float = 0.0


def first_exhausted(limits: Limits, spent: Spent) -> str | None:
    """The reason the budget is exhausted, or None while there is budget left. Pure."""
    if limits.max_llm_calls is not None and spent.calls >= limits.max_llm_calls:
        return f"max_llm_calls {limits.max_llm_calls} reached ({spent.calls} live LLM calls)"
    if limits.max_tokens is not None and spent.tokens >= limits.max_tokens:
        return f"max_tokens {limits.max_tokens:,} reached ({spent.tokens:,} tokens)"
    if limits.max_cost_usd is not None and spent.cost_usd >= limits.max_cost_usd:
        return f"max_cost_usd ${limits.max_cost_usd:g} reached (${spent.cost_usd:.4f} spent)"
    if limits.max_wall_s is not None and spent.wall_s >= limits.max_wall_s:
        return f"max_wall_s {limits.max_wall_s:g}s reached ({spent.wall_s:.1f}s)"
    return None


class Meter:
    """Thread-safe running totals; the first exhausted reason sticks (later calls cannot un-exhaust a run)."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._clock = clock
        self._started = clock()
        self._lock = threading.Lock()
        self._calls = self._tokens = self._unpriced = 0
        self._cost = 0.0
        self.reason: str | None = None

    def add(self, *, tokens: int, cost_usd: float | None) -> None:
        with self._lock:
            self._calls += 1
            self._tokens += tokens
            if cost_usd is None:
                self._unpriced += 1
            else:
                self._cost += cost_usd

    def spent(self) -> Spent:
        with self._lock:
            return Spent(self._calls, self._tokens, self._cost, self._unpriced, self._clock() - self._started)

    def exhausted(self) -> str | None:
        if self.reason is None and self.limits.any:
            self.reason = first_exhausted(self.limits, self.spent())
        return self.reason
