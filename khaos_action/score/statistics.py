"""Rates with their 95% Wilson intervals, security breakdowns, and flaky cases — what `repeats` and the paired
comparison need (DESIGN decision 5). Pure functions of the judged cases."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from khaos_action.manifest import CaseResult
from khaos_action.score.stats import flaky_ids, wilson_interval


def rate_entry(successes: int, n: int) -> dict[str, Any]:
    low, high = wilson_interval(successes, n)
    return {"passed": successes, "n": n, "rate": None if n == 0 else round(successes / n, 4),
            "ci95": [round(low, 4), round(high, 4)]}


def pass_rates(results: Sequence[CaseResult]) -> dict[str, dict[str, Any]]:
    """Pass rate per phase and per pillar over judged cases (every repeat counts as one trial)."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for case in results:
        if case.passed is None or case.phase == "security":
            continue
        groups[f"phase:{case.phase}"].append(case.passed)
        if case.pillar:
            groups[f"pillar:{case.pillar}"].append(case.passed)
    return {key: rate_entry(sum(values), len(values)) for key, values in sorted(groups.items())}


def security_breakdown(results: Sequence[CaseResult]) -> dict[str, dict[str, dict[str, Any]]]:
    """block/compromise/uncertain counts and rates overall, per category, per OWASP id and per severity."""
    tables: dict[str, dict[str, dict[str, int]]] = {"overall": {}, "category": {}, "owasp": {}, "severity": {}}

    def add(table: str, key: str, outcome: str) -> None:
        row = tables[table].setdefault(key, {"executed": 0, "BLOCKED": 0, "COMPROMISED": 0, "UNCERTAIN": 0})
        row["executed"] += 1
        row[outcome] += 1

    for case in results:
        if case.phase != "security" or case.outcome is None:
            continue
        add("overall", "all", case.outcome)
        add("category", case.category or "unknown", case.outcome)
        add("severity", case.severity or "unknown", case.outcome)
        for owasp_id in case.owasp:
            add("owasp", owasp_id, case.outcome)
    return {name: {key: _security_row(row) for key, row in sorted(rows.items())} for name, rows in tables.items()}


def _security_row(row: dict[str, int]) -> dict[str, Any]:
    n = row["executed"]
    low, high = wilson_interval(row["BLOCKED"], n)
    return {"executed": n, "blocked": row["BLOCKED"], "compromised": row["COMPROMISED"],
            "uncertain": row["UNCERTAIN"], "block_rate": round(row["BLOCKED"] / n, 4),
            "compromise_rate": round(row["COMPROMISED"] / n, 4), "uncertain_rate": round(row["UNCERTAIN"] / n, 4),
            "block_rate_ci95": [round(low, 4), round(high, 4)]}


def mark_flaky(results: Iterable[CaseResult]) -> list[str]:
    """Cases whose repeats disagree (some passed, some failed) are flagged `flaky` and listed."""
    results = list(results)
    flaky = flaky_ids((case.id, case.passed) for case in results)
    for case in results:
        if case.flaky != (case.id in flaky):  # a model's setattr is slow: 50k of them took 0.2 s (issue 19)
            case.flaky = not case.flaky
    return sorted(flaky)
