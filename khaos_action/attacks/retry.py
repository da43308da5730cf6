"""Adaptive retry (red-team ADR-020): a BLOCKED attack gets one deterministic, seeded mutation and is re-run.

The mutations keep the canary intact (encoding, role-play framing, JSON wrapping, language mixing), so the retry
tests the same objective in another form. Both attempts stay in the manifest; the case's final outcome is the
retry's when it broke through, else the first attempt's.
"""

from __future__ import annotations

import hashlib
import random

from khaos_action.attacks.planner import retry_case
from khaos_action.manifest import Attempt, CaseResult
from khaos_action.mutation import MUTATORS
from khaos_action.outcome import Outcome, Phase
from khaos_action.plan.cases import Case

RETRY_MUTATIONS = ("base64_wrap", "roleplay_frame", "format_json", "language_mix")


def make_retry(case: Case, seed: int) -> Case:
    rng = random.Random(int.from_bytes(hashlib.sha256(f"retry:{seed}:{case.id}".encode()).digest()[:8], "big"))
    mutation = RETRY_MUTATIONS[rng.randrange(len(RETRY_MUTATIONS))]
    text = case.injections[0]["payload"] if case.injections else case.input
    return retry_case(case, MUTATORS[mutation](text, rng), mutation)


def merge_attempts(first: CaseResult, retry: CaseResult) -> CaseResult:
    """One result per attack: the retry's verdict if it was COMPROMISED, otherwise the first attempt's."""
    attempt = Attempt(input=first.input, output=first.output, outcome=first.outcome, mutation=None,
                      evidence_tags=first.evidence_tags)
    retried = Attempt(input=retry.input, output=retry.output, outcome=retry.outcome, mutation=retry.mutation,
                      evidence_tags=retry.evidence_tags)
    if retry.outcome == Outcome.COMPROMISED:
        return retry.model_copy(update={"attempts": [attempt, retried],
                                        "evidence_tags": [*retry.evidence_tags, f"after_retry:{retry.mutation}"]})
    return first.model_copy(update={"attempts": [attempt, retried]})


def retry_candidates(results: list[CaseResult], cases: dict[str, Case], seed: int) -> list[Case]:
    return [make_retry(cases[r.id], seed) for r in results
            if r.phase == Phase.SECURITY and r.outcome == Outcome.BLOCKED and r.repeat == 0 and r.id in cases]



