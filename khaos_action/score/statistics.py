"""Small, exact statistics for honest diffs: Wilson intervals, exact McNemar, and what
`repeats` and the paired comparison build from them (rates with their intervals, security breakdowns, flaky cases).

Pure stdlib (ADR-025 of the seeds makes the same choice: no scipy for a handful of formulas); pure functions of the
judged cases.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from khaos_action.manifest import CaseResult
from khaos_action.outcome import AnyPhase, Outcome, Phase

# ---- the formulas ------------------------------------------------------------------------------------------------

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
    first: dict[str, bool] = {}  # the first outcome per id, no set per id (one per case)
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


# ---- over the judged cases ---------------------------------------------------------------------------------------
def rate_entry(successes: int, n: int) -> dict[str, Any]:
    low, high = wilson_interval(successes, n)
    return {"passed": successes, "n": n, "rate": None if n == 0 else round(successes / n, 4),
            "ci95": [round(low, 4), round(high, 4)]}


def grouped_pass_rates(by_phase: dict[AnyPhase, list[CaseResult]],
                       by_pillar: dict[str, list[CaseResult]]) -> dict[str, dict[str, Any]]:
    """Pass rate per phase and per pillar over judged cases (every repeat counts as one trial), from the cases
    grouped by phase and by pillar (`summarise` groups them once for everything it computes)."""
    groups: dict[str, list[bool]] = {}
    for phase, cases in by_phase.items():
        if phase != Phase.SECURITY and (values := _judged(cases)):
            groups[f"phase:{phase}"] = values
    for pillar, cases in by_pillar.items():
        if values := _judged([c for c in cases if c.phase != Phase.SECURITY]):
            groups[f"pillar:{pillar}"] = values
    return {key: rate_entry(sum(values), len(values)) for key, values in sorted(groups.items())}


def _judged(cases: list[CaseResult]) -> list[bool]:
    """The verdicts of the judged cases (not those left unjudged)."""
    return [c.passed for c in cases if c.passed is not None]


def security_breakdown(results: Sequence[CaseResult]) -> dict[str, dict[str, dict[str, Any]]]:
    """block/compromise/uncertain counts and rates overall, per category, per OWASP id and per severity."""
    tables: dict[str, dict[str, dict[str, int]]] = {"overall": {}, "category": {}, "owasp": {}, "severity": {}}

    def add(table: str, key: str, outcome: Outcome | str) -> None:
        row = tables[table].setdefault(key, {"executed": 0, **dict.fromkeys(Outcome, 0)})
        row["executed"] += 1
        row[outcome] += 1

    for case in results:
        if case.phase != Phase.SECURITY or case.outcome is None:
            continue
        add("overall", "all", case.outcome)
        add("category", case.category or "unknown", case.outcome)
        add("severity", case.severity or "unknown", case.outcome)
        for owasp_id in case.owasp:
            add("owasp", owasp_id, case.outcome)
    return {name: {key: _security_row(row) for key, row in sorted(rows.items())} for name, rows in tables.items()}


def _security_row(row: dict[str, int]) -> dict[str, Any]:
    n = row["executed"]
    blocked, compromised, uncertain = row[Outcome.BLOCKED], row[Outcome.COMPROMISED], row[Outcome.UNCERTAIN]
    low, high = wilson_interval(blocked, n)
    return {"executed": n, "blocked": blocked, "compromised": compromised,
            "uncertain": uncertain, "block_rate": round(blocked / n, 4),
            "compromise_rate": round(compromised / n, 4), "uncertain_rate": round(uncertain / n, 4),
            "block_rate_ci95": [round(low, 4), round(high, 4)]}


def mark_flaky(results: Iterable[CaseResult]) -> list[str]:
    """Cases whose repeats disagree (some passed, some failed) are flagged `flaky` and listed."""
    results = list(results)
    if len({case.id for case in results}) == len(results):  # no case ran twice: none is flaky (one cheap pass)
        for case in results:
            if case.flaky:
                case.flaky = False
        return []
    flaky = flaky_ids((case.id, case.passed) for case in results)
    for case in results:
        if case.flaky != (case.id in flaky):  # a model's setattr is slow: set only what changes
            case.flaky = not case.flaky
    return sorted(flaky)
