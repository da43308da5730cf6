"""Phase metrics and goal evaluation (Khaos pack goals `{metric, operator, threshold}`)."""

from __future__ import annotations

import math
import operator as op
from collections.abc import Sequence
from typing import Any

OPERATORS = {"gte": op.ge, "lte": op.le, "eq": op.eq, "gt": op.gt, "lt": op.lt}
METRICS = (
    "task_completion", "error_rate", "latency_p50", "latency_p95", "recovery_rate",
    "block_rate", "compromise_rate", "uncertain_rate",
)


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def rate(numerator: int, denominator: int) -> float | None:
    return None if denominator == 0 else numerator / denominator


def completion_metrics(results: Sequence[Any]) -> dict[str, Any]:
    """Metrics of baseline/resilience cases (CaseResult-like: passed, error, latency_ms)."""
    latencies = []
    judged = passed = errors = 0
    for r in results:  # one pass: `merge` re-scores every case
        if r.error:
            errors += 1
        else:
            latencies.append(r.latency_ms)
        if r.passed is not None:
            judged += 1
            passed += 1 if r.passed else 0
    latencies.sort()  # once: each percentile's sort of sorted values is then linear
    return {
        "invocations": len(results),
        "task_completion": rate(passed, judged),
        "error_rate": rate(errors, len(results)),
        "latency_p50": percentile(latencies, 50),
        "latency_p95": percentile(latencies, 95),
    }


def evaluate_goal(value: float | None, operator: str, threshold: float) -> bool | None:
    """None when the metric could not be computed (nothing ran): never counted as met."""
    if value is None:
        return None
    if operator == "eq":
        return math.isclose(value, threshold, rel_tol=1e-9, abs_tol=1e-9)
    return OPERATORS[operator](value, threshold)
