"""The run's implementation of the engine's chaos seam (the `engine.runner.ChaosHooks` protocol): bind a case's
faults, degrade the invoke payload when context attacks cannot reach an LLM request, and tell the proxy which case
an instance serves."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from khaos_action.engine.context import CaseContext

if TYPE_CHECKING:  # in-process agents never start the proxy
    from khaos_action.engine.chaos.proxy import ChaosProxy

# The fault machinery (engine/chaos/plan.py, faults/) is imported by the first case that has faults: a run without
# any (a contract's calm scenarios) does not pay for building the faults' models.


class FaultHooks:
    """`context_in_payload`: apply context attacks (and `memory` injections) to the invoke payload's history.
    Leave it False when the agent's LLM calls are intercepted or proxied — the attacks then rewrite the real LLM
    request instead, and applying both would poison the conversation twice."""

    def __init__(self, proxy: ChaosProxy | None = None, *, context_in_payload: bool = False) -> None:
        self.proxy = proxy
        self.context_in_payload = context_in_payload

    def bind_faults(self, specs: Sequence[dict[str, Any]], rng: random.Random) -> list[Any]:
        from khaos_action.engine.chaos.plan import bind_faults

        return bind_faults(list(specs), rng)

    def transform_payload(self, payload: dict[str, Any], ctx: CaseContext) -> dict[str, Any]:
        if not self.context_in_payload:
            return payload
        from khaos_action.faults.context import apply_context_attacks

        return apply_context_attacks(payload, ctx.faults, ctx, ctx.injections)

    def instance_bound(self, instance: int, ctx: CaseContext | None) -> None:
        if self.proxy is not None:
            self.proxy.bind(instance, ctx)
