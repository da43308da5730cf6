"""Small, exact statistics for honest diffs (DESIGN decision 5): Wilson intervals, exact McNemar, flaky cases.

Pure stdlib (ADR-025 of the seeds makes the same choice: no scipy for a handful of formulas).
"""

from __future__ import annotations

import math
from collections.abc import Iterable


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a pass rate `successes / n` (95% for the default z).

    Chosen over the normal ("Wald") interval because it stays inside [0, 1] and is not degenerate at 0/n or n/n,
    which are the common cases for a small eval set. With n = 0 nothing is known: (0.0, 1.0).
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"wilson_interval needs 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # Rounding can push the bounds a hair outside [0, 1] (or past p at the extremes); clamp so 0/n starts at 0.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pair counts.

    `b` = pairs that passed on one side only, `c` = pairs that passed on the other side only. Under the null
    hypothesis each discordant pair is a fair coin, so p = 2 * P(X <= min(b, c)) for X ~ Binomial(b + c, 1/2),
    capped at 1. Integer arithmetic keeps it exact for any n (no normal approximation for small counts).
    """
    if b < 0 or c < 0:
        raise ValueError(f"mcnemar_exact needs non-negative counts, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    # int / int is correctly rounded in Python even when both are huge.
    return min(1.0, 2 * tail / 2**n)


def flaky_ids(results: Iterable[tuple[str, bool | None]]) -> set[str]:
    """Case ids that both passed and failed across their repeats. Unjudged results (None) are ignored."""
    first: dict[str, bool] = {}  # the first outcome per id, no set per id (50k of them at 50k cases, issue 19)
    flaky: set[str] = set()
    for case_id, passed in results:
        if passed is None:
            continue
        if first.setdefault(case_id, bool(passed)) is not bool(passed):
            flaky.add(case_id)
    return flaky


def pass_rate(successes: int, n: int) -> float | None:
    """successes / n, or None when nothing was judged (a rate of nothing is not 0)."""
    return successes / n if n else None
