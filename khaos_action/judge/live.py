"""A case's verdict as the run shows it while it works (khaos_action/progress.py): failed or compromised so far.

Judged alone, as soon as the engine finishes the case: a call that failed, a baseline or resilience case judged
failed, an attack judged COMPROMISED. The final verdicts come later and may differ (the adaptive retry and the LLM
judge run after every case, contract checks need the no-chaos replies): this is what the run knows so far.
"""

from __future__ import annotations

from collections.abc import Sequence

from khaos_action.judge.cases import JudgeContext, judge_attack, judge_completion
from khaos_action.judge.stage import JudgeSettings
from khaos_action.outcome import Outcome, Phase
from khaos_action.plan.cases import Case, Invocation
from khaos_action.progress import Progress


class LiveVerdicts:
    """The engine's hooks (`on_planned`, `on_invocation`) feeding a Progress display."""

    def __init__(self, progress: Progress, settings: JudgeSettings) -> None:
        self.progress = progress
        self.ctx = JudgeContext(secrets=settings.secrets, system_prompt=settings.system_prompt)

    def planned(self, cases: Sequence[Case]) -> None:
        counts: dict[str, int] = {}
        for case in cases:
            counts[case.phase] = counts.get(case.phase, 0) + 1
        for phase, count in counts.items():
            self.progress.planned(phase, count)

    def finished(self, invocation: Invocation) -> None:
        phase = invocation.case.phase
        failed = bool(invocation.error or invocation.timed_out)
        compromised = False
        try:
            if phase == Phase.SECURITY:
                compromised = judge_attack(invocation, self.ctx).outcome == Outcome.COMPROMISED
            elif phase in (Phase.BASELINE, Phase.RESILIENCE) and not failed:
                failed = judge_completion(invocation, secrets=self.ctx.secrets).passed is False
        except Exception:  # noqa: BLE001, S110 - a display must never fail the run; the judging stage judges again
            pass
        self.progress.finished(phase, failed=failed, compromised=compromised)
