"""The agent's pace as a run saw it: how long answered calls took, and which calls ran out of `agent.timeout_s`.

A real model served on a CPU answers long attack prompts in tens of seconds; the default time limit then cuts off
case after case and the run fails with nothing but "timed out after 30s". When calls time out, the run says which
setting to raise, to about what, and the latency it observed (the baseline's p95 when the baseline answered).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from khaos_action.metrics import percentile
from khaos_action.outcome import Phase


@dataclass(slots=True)
class Pace:
    timeout_s: float
    answered: dict[str, list[float]] = field(default_factory=dict)
    """phase -> latency (ms) of each call that got an answer (an error reply is an answer too: it did not hang)."""
    timed_out: dict[str, int] = field(default_factory=dict)
    """phase -> calls that ran out of the time limit."""

    def add(self, phase: Phase, *, timed_out: bool, latency_ms: float) -> None:
        if timed_out:
            self.timed_out[phase] = self.timed_out.get(phase, 0) + 1
        else:
            self.answered.setdefault(phase, []).append(latency_ms)

    def advice(self) -> str | None:
        """One sentence when calls timed out: how many, where, the latency observed and the setting to raise."""
        late = sum(self.timed_out.values())
        if not late:
            return None
        total = late + sum(len(v) for v in self.answered.values())
        where = ", ".join(f"{phase} {n}" for phase, n in sorted(self.timed_out.items(), key=lambda kv: -kv[1]))
        observed, slowest = self._observed()
        return (f"{late} of {total} calls timed out at agent.timeout_s ({self.timeout_s:g}s) ({where}); {observed}: "
                f"raise agent.timeout_s to about {suggested_timeout(self.timeout_s, slowest):g}, or make the agent "
                "faster (a smaller max_tokens for its model, a faster endpoint)")

    def _observed(self) -> tuple[str, float | None]:
        phase = Phase.BASELINE if self.answered.get(Phase.BASELINE) else None
        latencies = self.answered.get(Phase.BASELINE) or [ms for v in self.answered.values() for ms in v]
        if not latencies:
            return "no call answered within it", None
        p95 = (percentile(latencies, 95) or 0.0) / 1000
        slowest = max(latencies) / 1000
        whose = "the baseline's" if phase else "answered calls'"
        return f"{whose} p95 was {_seconds(p95)} (slowest {_seconds(slowest)})", slowest


def suggested_timeout(timeout_s: float, slowest_s: float | None) -> float:
    """Twice the limit, or half again the slowest answer seen if that is more; rounded up to 10 s (to 1 s below
    10 s)."""
    wanted = max(2 * timeout_s, 1.5 * (slowest_s or 0))
    step = 10 if wanted > 10 else 1
    return float(math.ceil(wanted / step) * step)


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 10 else f"{value:.0f} s"
