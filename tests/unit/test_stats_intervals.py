"""Wilson intervals, exact McNemar and flaky detection against independently computed reference values."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from khaos_action.score.statistics import flaky_ids, mcnemar_exact, pass_rate, wilson_interval


def _score_test_bounds(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Independent reference: the Wilson interval is the set of p whose score statistic |p̂ - p| / sqrt(p(1-p)/n)
    is at most z. Find both ends by bisection instead of the closed form."""
    phat = successes / n

    def inside(p: float) -> bool:
        return abs(phat - p) <= z * math.sqrt(p * (1 - p) / n)

    def bisect(lo: float, hi: float, want_inside_at_hi: bool) -> float:
        for _ in range(200):
            mid = (lo + hi) / 2
            if inside(mid) == want_inside_at_hi:
                hi = mid
            else:
                lo = mid
        return (lo + hi) / 2

    low = 0.0 if successes == 0 else bisect(0.0, phat, True)
    high = 1.0 if successes == n else bisect(phat, 1.0, False)
    return low, high


@pytest.mark.parametrize("successes, n", [(0, 10), (5, 10), (10, 10), (1, 3), (37, 50), (99, 100), (0, 1), (7, 8)])
def test_wilson_matches_the_inverted_score_test(successes, n):
    low, high = wilson_interval(successes, n)
    ref_low, ref_high = _score_test_bounds(successes, n)
    assert low == pytest.approx(ref_low, abs=1e-9)
    assert high == pytest.approx(ref_high, abs=1e-9)
    assert 0.0 <= low <= successes / n <= high <= 1.0


@pytest.mark.parametrize(
    "successes, n, expected",
    [  # published 95% Wilson values (e.g. Newcombe 1998, Table I; Agresti & Coull 1998)
        (0, 10, (0.0, 0.2775)),
        (5, 10, (0.2366, 0.7634)),
        (10, 10, (0.7225, 1.0)),
        (81, 263, (0.2553, 0.3662)),
    ],
)
def test_wilson_known_values(successes, n, expected):
    low, high = wilson_interval(successes, n)
    assert (round(low, 4), round(high, 4)) == expected


def test_wilson_with_nothing_judged_is_the_whole_range():
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_narrows_with_more_data():
    widths = [wilson_interval(n // 2, n)[1] - wilson_interval(n // 2, n)[0] for n in (10, 100, 1000)]
    assert widths[0] > widths[1] > widths[2]


@pytest.mark.parametrize("successes, n", [(-1, 5), (6, 5), (0, -1)])
def test_wilson_rejects_impossible_counts(successes, n):
    with pytest.raises(ValueError):
        wilson_interval(successes, n)


def _binomial_reference(b: int, c: int) -> float:
    """Exact two-sided binomial test on discordant pairs, computed with Fractions (no shortcut)."""
    n = b + c
    if n == 0:
        return 1.0
    probs = [Fraction(math.comb(n, i), 2**n) for i in range(n + 1)]
    observed = probs[b]
    # Two-sided by the "as or less likely" rule; for p = 1/2 it equals 2 × the smaller tail.
    return float(min(Fraction(1), sum(p for p in probs if p <= observed)))


@pytest.mark.parametrize(
    "b, c, expected", [(0, 6, 0.03125), (6, 0, 0.03125), (1, 1, 1.0), (0, 0, 1.0), (0, 1, 1.0), (0, 5, 0.0625)]
)
def test_mcnemar_known_values(b, c, expected):
    assert mcnemar_exact(b, c) == pytest.approx(expected)


@pytest.mark.parametrize("b, c", [(2, 9), (10, 3), (15, 15), (0, 20), (30, 12), (4, 5)])
def test_mcnemar_matches_the_exact_binomial_reference(b, c):
    assert mcnemar_exact(b, c) == pytest.approx(_binomial_reference(b, c), rel=1e-12)


def test_mcnemar_is_exact_for_large_counts():
    p = mcnemar_exact(400, 600)
    assert 0 < p < 1e-9  # no float underflow to 0 and no overflow error
    assert mcnemar_exact(500, 500) == 1.0


def test_mcnemar_rejects_negative_counts():
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_flaky_ids_are_those_with_mixed_results():
    results = [
        ("a", True),
        ("a", True),
        ("b", True),
        ("b", False),
        ("c", False),
        ("c", False),
        ("d", None),
        ("d", True),
        ("e", False),
        ("e", None),
        ("e", True),
    ]
    assert flaky_ids(results) == {"b", "e"}


def test_pass_rate_of_nothing_is_none_not_zero():
    assert pass_rate(0, 0) is None
    assert pass_rate(3, 4) == 0.75
