"""Faults that cannot apply to the agent, set aside before the run: tool faults aimed at every tool (`tool: "*"`,
a glob) when the agent exposes no tool the engine can wrap (a chat-only agent, or an agent whose tools run in
its own process). Their cases are not run and are listed, with the reason, as not applicable: never passes, never
failures. A tool fault that names one tool the agent lacks stays a configuration error (session.check_reachable)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from khaos_action.config.fault_entries import CaseFault
from khaos_action.manifest import NotApplicableFault
from khaos_action.plan.cases import Case
from khaos_action.plan.scheduler import Plan

NO_TOOLS = "the agent exposes no tool (it answers from its model alone), so tool faults have nothing to fail"


def out_of_process_reason(agent_type: str) -> str:
    return (f"a {agent_type} agent's tools run in its own process, where tool faults cannot reach them (route a "
            f"tool's HTTP API through `{{{{ proxy('https://tool.api') }}}}` in agent.env and use http_faults)")


def aims_at_every_tool(fault: CaseFault) -> bool:
    if fault.target != "tool":
        return False
    name = str(fault.params.get("tool") or "*")
    return any(ch in name for ch in "*?[")


def set_aside_tool_faults(plan: Plan, reason: str) -> Plan:
    """`plan` without its tool faults aimed at every tool (a case left with no fault is dropped: it would be its
    scenario without the fault it was planned for): a new plan that lists them, each with its count of cases, and
    says so in one note for the report; `plan` itself when it has none. Call only when the agent has no tool the
    engine can wrap."""
    counts: Counter[str] = Counter()
    found: dict[str, CaseFault] = {}
    kept: list[Case] = []
    for case in plan.cases:
        aside = [f for f in case.faults if aims_at_every_tool(f)]
        if not aside:
            kept.append(case)
            continue
        for fault in aside:
            counts[fault.id] += 1
            found.setdefault(fault.id, fault)
        rest = tuple(f for f in case.faults if not aims_at_every_tool(f))
        if rest:
            kept.append(replace(case, faults=rest))
    if not found:
        return plan
    listed = [NotApplicableFault(id=f.id, target=f.target, mode=f.mode, cases=counts[f.id], reason=reason)
              for f in sorted(found.values(), key=lambda f: f.id)]
    shown = ", ".join(f"{f.id} ({f.mode})" for f in listed)
    note = (f"not applicable: tool faults {shown}: {reason}; their {sum(counts.values())} case(s) were not run and "
            f"count neither as passes nor as failures")
    return replace(plan, cases=kept, faults_not_applicable=listed, notes=[*plan.notes, note])


__all__ = ["NO_TOOLS", "aims_at_every_tool", "out_of_process_reason", "set_aside_tool_faults"]
