"""The run's implementation of the engine's chaos seam (the `engine.runner.ChaosHooks` protocol): bind a case's
faults, degrade the agent's request when context attacks cannot reach an LLM request, and tell the proxy which case
an instance serves."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from khaos_action.engine.context import CaseContext
from khaos_action.messages import AgentRequest

if TYPE_CHECKING:  # in-process agents never start the proxy
    from khaos_action.engine.chaos.proxy import ChaosProxy

# The fault machinery (engine/chaos/plan.py, faults/) is imported by the first case that has faults: a run without
# any (a contract's calm scenarios) does not pay for building the faults' models.


class FaultHooks:
    """`context_in_payload`: apply context attacks (and `memory` injections) to the agent request's history.
    Leave it False when the agent's LLM calls are intercepted or proxied — the attacks then rewrite the real LLM
    request instead, and applying both would poison the conversation twice."""

    def __init__(self, proxy: ChaosProxy | None = None, *, context_in_payload: bool = False) -> None:
        self.proxy = proxy
        self.context_in_payload = context_in_payload

    def bind_faults(self, specs: Sequence[dict[str, Any]], rng: random.Random) -> list[Any]:
        from khaos_action.engine.chaos.plan import bind_faults

        return bind_faults(list(specs), rng)

    def transform_request(self, request: AgentRequest, ctx: CaseContext) -> AgentRequest:
        """`request` with the case's context attacks applied to its conversation (itself when none changed it).

        The attacks rewrite a conversation wherever it is (faults/context.py: an LLM request's `messages` too), so
        they are handed the request as the payload dict it shows, and the rewritten dict is read back."""
        if not self.context_in_payload:
            return request
        from khaos_action.faults.context import apply_context_attacks

        payload = request.payload
        changed = apply_context_attacks(payload, ctx.faults, ctx, ctx.injections)
        return request if changed is payload else AgentRequest.of(changed, request.metadata)

    def instance_bound(self, instance: int, ctx: CaseContext | None) -> None:
        if self.proxy is not None:
            self.proxy.bind(instance, ctx)
