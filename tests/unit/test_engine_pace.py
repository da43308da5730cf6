"""When calls run out of agent.timeout_s the run names the setting, the latency it observed and a value to try
(engine/pace.py)."""

from __future__ import annotations

import pytest

from khaos_action.engine.pace import Pace, suggested_timeout


def test_no_timeout_no_advice() -> None:
    pace = Pace(30)
    pace.add("baseline", timed_out=False, latency_ms=1200)
    assert pace.advice() is None


def test_the_baseline_latency_is_quoted_when_the_baseline_answered() -> None:
    pace = Pace(30)
    for ms in (12_000, 18_000, 24_000, 28_500):
        pace.add("baseline", timed_out=False, latency_ms=ms)
    pace.add("security", timed_out=False, latency_ms=29_000)
    for _ in range(3):
        pace.add("security", timed_out=True, latency_ms=30_000)
    pace.add("baseline", timed_out=True, latency_ms=30_000)
    assert pace.advice() == (
        "4 of 9 calls timed out at agent.timeout_s (30s) (security 3, baseline 1); the baseline's p95 was 28 s "
        "(slowest 28 s): raise agent.timeout_s to about 60, or make the agent faster (a smaller max_tokens for its "
        "model, a faster endpoint)")


def test_other_phases_are_quoted_when_the_baseline_never_answered() -> None:
    pace = Pace(5)
    pace.add("baseline", timed_out=True, latency_ms=5000)
    pace.add("resilience", timed_out=False, latency_ms=4200)
    assert "answered calls' p95 was 4.2 s (slowest 4.2 s): raise agent.timeout_s to about 10" in pace.advice()


def test_nothing_answered() -> None:
    pace = Pace(1)
    pace.add("baseline", timed_out=True, latency_ms=1000)
    assert "no call answered within it: raise agent.timeout_s to about 2," in pace.advice()


@pytest.mark.parametrize("timeout, slowest, value", [(30, None, 60), (30, 55, 90), (30, 10, 60), (1, None, 2),
                                                     (4, 7.5, 20), (0.5, None, 1)])
def test_suggested_timeout(timeout: float, slowest: float | None, value: float) -> None:
    assert suggested_timeout(timeout, slowest) == value
