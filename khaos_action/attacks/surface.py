"""Attack-surface discovery: which golden prompt reaches which tool and channel, and attacks carried to it.

The baseline run is the reconnaissance pass (the user's agent defines the test): every baseline invocation records the
tools it went through and whether it called the LLM. An indirect attack (tool output, RAG document, file, error message,
memory, MCP tool description) is then carried by a golden prompt known to reach its channel, picked by a seeded
rank (same seed and same reach → same carrier), and its payload goes only to the tools that carry that channel
(roles decide: RAG payloads to retrievers, file payloads to file readers). An attack whose channel no prompt reaches
is *not exercised*: listed with the reason and the fix, never run, never UNCERTAIN, never in a rate. The attack's
own corpus carrier is only the fallback, when the run cannot see the agent's tool and LLM calls at all.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from khaos_action.messages import ToolCall
from khaos_action.outcome import Phase
from khaos_action.plan.cases import Case, case_id
from khaos_action.roles import CHANNEL_FIX, ToolRole, channel_tools

# Channels planted in the agent's LLM requests (faults/context.py), so any prompt that calls the model reaches them.
LLM_CHANNELS = frozenset({"memory", "mcp_tool_description"})
_CHANNEL_WORDS = {"tool_output": "any tool", "error_message": "any tool", "rag_document": "a retriever",
                  "file_content": "a file reader", "memory": "the agent's memory (a memory tool or its LLM context)",
                  "mcp_tool_description": "the agent's model with its tools"}


@dataclass(slots=True)
class Reach:
    """What one prompt reached in the baseline."""

    tools: set[str] = field(default_factory=set)
    llm: bool = False
    calls: list[ToolCall] = field(default_factory=list)
    """The calls it made (name and arguments): what that request asks for, when an attack rides on it."""


@dataclass(slots=True)
class AttackSurface:
    reach: dict[str, Reach] = field(default_factory=dict)
    """Prompt text -> what it reached."""
    roles: list[ToolRole] = field(default_factory=list)
    sees_tools: bool = False
    """Whether the run can see the agent's tool calls (in-process wrappers, or calls the agent reports)."""
    sees_llm: bool = False
    """Whether the run can see the agent's LLM calls (in-process interception or the chaos proxy)."""

    def carriers(self, channel: str, tools: list[str] | None = None) -> list[str]:
        """The prompts that reach `channel` (through `tools` when given: the attack names the tools that carry
        it), sorted."""
        tools = channel_tools(channel, self.roles) if tools is None else tools
        found = []
        for prompt, reach in self.reach.items():
            by_tool = bool(reach.tools) if tools is None else bool(reach.tools & set(tools))
            if by_tool or (channel in LLM_CHANNELS and reach.llm):
                found.append(prompt)
        return sorted(found)

    def observes(self, channel: str) -> bool:
        """Whether the run could have seen a prompt reach `channel` (else the corpus carrier is the fallback)."""
        if not self.reach:
            return False
        return self.sees_llm or self.sees_tools if channel in LLM_CHANNELS else self.sees_tools

    def as_dict(self) -> dict[str, Any]:
        """For the manifest: per prompt, the tools it reached and whether it called the model."""
        return {prompt: {"tools": sorted(reach.tools), "llm": reach.llm}
                for prompt, reach in sorted(self.reach.items())}


def discover_surface(invocations: Iterable[Any], roles: Sequence[ToolRole], *, in_process: bool) -> AttackSurface:
    """The surface from baseline invocations (anything with `.case.input`, `.tool_calls`, `.llm_calls`)."""
    surface = AttackSurface(roles=list(roles), sees_tools=in_process, sees_llm=in_process)
    for inv in invocations:
        reach = surface.reach.setdefault(inv.case.input, Reach())
        reach.tools |= {call.name for call in inv.tool_calls}
        reach.calls += [ToolCall(name=call.name, args=call.args) for call in inv.tool_calls]
        reach.llm = reach.llm or bool(inv.llm_calls)
        surface.sees_tools = surface.sees_tools or bool(inv.tool_calls)
        surface.sees_llm = surface.sees_llm or bool(inv.llm_calls)
    return surface


def recon_cases(cases: Sequence[Case], golden: Sequence[str]) -> list[Case]:
    """Extra no-fault calls for golden prompts no baseline case runs (e.g. a pack with a security phase only), and
    for the carriers of the user's own indirect attacks; they map the surface and are not scored."""
    covered = {c.input for c in cases if c.phase == Phase.BASELINE and not c.faults}
    return [Case(id=case_id("recon", text), phase=Phase.BASELINE, input=text, group="recon", recon=True)
            for text in dict.fromkeys([*golden, *own_carriers(cases)]) if text not in covered]


def own_carriers(cases: Sequence[Case]) -> list[str]:
    """The carrier prompts of the user's own indirect attacks (they carry their attack, and nothing else)."""
    return list(dict.fromkeys(c.input for c in cases if c.own_carrier and c.injections))


def _rank(seed: int, attack_id: str, prompt: str) -> str:
    return hashlib.sha256(json.dumps([seed, attack_id, prompt]).encode()).hexdigest()


@dataclass(slots=True)
class Bound:
    cases: list[Case]
    not_exercised: list[tuple[Case, str, str]]
    """(case, reason, fix) of the attacks no prompt reaches."""


def bind_carriers(cases: Sequence[Case], surface: AttackSurface, seed: int) -> Bound:
    """Each indirect attack case carried by a golden prompt that reaches its channel, or set aside as not
    exercised; every other case unchanged."""
    out: list[Case] = []
    skipped: list[tuple[Case, str, str]] = []
    for case in cases:
        bound = _bind(case, surface, seed)
        if isinstance(bound, Case):
            out.append(bound)
        else:
            skipped.append(bound)
    return Bound(cases=out, not_exercised=skipped)


def _bind(case: Case, surface: AttackSurface, seed: int) -> Case | tuple[Case, str, str]:
    """The case as it runs (carried, or unchanged when it is not an indirect attack), or (case, reason, fix)."""
    channel = case.injections[0].get("channel") if case.phase == Phase.SECURITY and case.injections else None
    if channel is None:
        return case
    if not surface.observes(channel):
        return _unobserved(case, channel)
    placed = _placed_tools(case.injections[0])
    carriers = _carriers(case, surface, channel, placed)
    if isinstance(carriers, tuple):
        return carriers
    prompt = min(carriers, key=lambda p: _rank(seed, case.attack_id or case.id, p))
    tools = channel_tools(channel, surface.roles) if placed is None else placed
    return replace(case, input=prompt, injections=_on_tools(case.injections, tools), carrier="golden",
                   carrier_calls=tuple(surface.reach[prompt].calls))


def _on_tools(injections: Sequence[dict[str, Any]], tools: list[str] | None) -> tuple[dict[str, Any], ...]:
    """The case's injections placed on `tools` (None: left as they are)."""
    return tuple({**inj, **({"tools": tools} if tools is not None else {})} for inj in injections)


def _unobserved(case: Case, channel: str) -> Case | tuple[Case, str, str]:
    """A channel the run cannot see reached: the attack's own carrier (the corpus's input), if it has one."""
    if not case.input:  # nothing to fall back on: the attack names no carrier
        return (case, f"the run cannot see which request reaches {_CHANNEL_WORDS.get(channel, channel)} and the "
                      "attack names no `carrier`",
                "give the attack a `carrier`: a request that makes the agent read the channel")
    return replace(case, carrier="corpus")


def _carriers(case: Case, surface: AttackSurface, channel: str, placed: list[str] | None
              ) -> list[str] | tuple[Case, str, str]:
    """The golden prompts that can carry the case (its own carrier, when the user's attack names one), or why
    none can."""
    carriers = surface.carriers(channel, placed)
    where = f"the tool {', '.join(placed)}" if placed else _CHANNEL_WORDS.get(channel, channel)
    if case.own_carrier:  # the user's attack names its carrier: it, or nothing
        if case.input not in carriers:
            return (case, f"its carrier prompt did not reach {where} in the baseline",
                    "change the attack's `carrier` (or `tool`) to a request that makes the agent use it")
        return [case.input]
    if not carriers:
        return (case, f"no golden prompt reaches {where} in the baseline",
                CHANNEL_FIX.get(channel, "add a golden prompt that reaches this channel"))
    return carriers


def _placed_tools(injection: dict[str, Any]) -> list[str] | None:
    """The tools an attack's own `tool:` placed its payload on (None: the channel's roles decide)."""
    if injection.get("tool"):
        return [injection["tool"]]
    listed = injection.get("tools")
    return list(listed) if listed is not None else None
