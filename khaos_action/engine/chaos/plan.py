"""A case's fault plan at run time: binding fault specs to objects, activating a case, and deciding — for one tool
call or one outbound request — which fault answers it, counting every hit on the case."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from khaos_action.config.fault_entries import CaseFault
from khaos_action.engine.context import CaseContext, current_case
from khaos_action.faults.context import (
    ContextFaultBase,
    apply_context_attacks,
)
from khaos_action.faults.effects import (
    HttpEffect,
    HttpRequestView,
    Reply,
    ToolEffect,
    ToolInvocation,
)
from khaos_action.faults.http import HttpFaultBase
from khaos_action.faults.injections import injections_for, place
from khaos_action.faults.llm import LlmFaultBase, llm_provider
from khaos_action.faults.registry import Fault, validate_fault
from khaos_action.faults.tool import ToolFaultBase, ToolFaultError


def bind_faults(specs: Sequence[CaseFault | Mapping[str, Any]], rng: random.Random | None = None) -> list[Fault]:
    """A case's faults -> bound fault objects. `case.faults` were validated when the config was loaded; a plain
    entry ({"id", "target", "mode", ...params}, e.g. from the worker pipe) is validated here.

    Each fault gets its own rng derived from `rng` (for payloads such as garbage bytes), so binding is
    deterministic for a seeded rng. Ids default to `target:mode`, suffixed when repeated.
    """
    faults: list[Fault] = []
    seen: set[str] = set()
    for spec in specs:
        bound = spec.bound if isinstance(spec, CaseFault) else validate_fault(spec)
        fault_id = bound.id or f"{bound.target}:{bound.mode}"
        base, n = fault_id, 1
        while fault_id in seen:
            n += 1
            fault_id = f"{base}#{n}"
        seen.add(fault_id)
        child = random.Random(rng.getrandbits(64)) if rng is not None else random.Random(fault_id)
        faults.append(bound.build(fault_id, child))
    return faults


@contextmanager
def activate(ctx: CaseContext) -> Iterator[CaseContext]:
    """Make `ctx` the current case for this task/thread (copied into asyncio tasks and `asyncio.to_thread`)."""
    token = current_case.set(ctx)
    try:
        yield ctx
    finally:
        current_case.reset(token)


def fault_hits(ctx: CaseContext) -> dict[str, int]:
    """fault id (or `injection:<channel>`) -> times it fired in this case."""
    return {key: count for key, count in ctx.hits.items() if count}


# ---- tools -------------------------------------------------------------------------------------------------------

@dataclass
class ToolDecision:
    effect: ToolEffect = field(default_factory=ToolEffect)
    fault_id: str | None = None
    injections: list[dict[str, Any]] = field(default_factory=list)
    fault: Any = None
    """The fault whose transform still has to answer (it counts as fired only once it has)."""


def decide_tool(ctx: CaseContext, call: ToolInvocation, known_tools: list[str] = ()) -> ToolDecision:
    """The first tool fault that applies and fires answers the call; indirect payloads ride along."""
    ctx.calls[f"tool:{call.name}"] += 1
    decision = ToolDecision()
    if ctx.recorded is not None:
        return _replayed(ctx, call, decision)
    _tool_fault(ctx, call, decision)
    if ctx.injections:
        decision.injections = injections_for(call.name, ctx.injections, list(known_tools))
        if decision.fault_id is None:
            _attacker_error(ctx, decision)
    return decision


def _tool_fault(ctx: CaseContext, call: ToolInvocation, decision: ToolDecision) -> None:
    """The first tool fault that applies to the call and fires answers it."""
    fault = next((f for f in ctx.faults if isinstance(f, ToolFaultBase) and f.applies_to(call) and f.fires(ctx)),
                 None)
    if fault is not None:
        decision.effect, decision.fault_id = fault.on_call(call), fault.id
        if decision.effect.transform is None:
            fault.hit(ctx)
        else:
            decision.fault = fault  # a transform answers only if the real tool returns: counted then


def _attacker_error(ctx: CaseContext, decision: ToolDecision) -> None:
    """An error_message injection answers the call with an error text the attacker controls (e.g. an upstream
    4xx body), which the agent will read."""
    injection = next((i for i in decision.injections if i.get("channel") == "error_message"), None)
    if injection is not None:
        decision.effect.error = ToolFaultError(str(injection.get("payload", "")))
        ctx.hits["injection:error_message"] += 1


def _replayed(ctx: CaseContext, call: ToolInvocation, decision: ToolDecision) -> ToolDecision:
    """A replay case answers tool calls from the recording, never from the real tool, so it is reproducible."""
    recorded = ctx.recorded.take(call.name, call.args)
    if recorded is None:
        message = f"replay: no recorded response left for {call.name}({call.args}); the agent took another path"
        ctx.notes.append(message)
        decision.effect.error = ToolFaultError(message)
        return decision
    ctx.hits[f"replay:{call.name}"] += 1
    if recorded.error is not None:
        decision.effect.error = ToolFaultError(recorded.error)
    else:
        decision.effect.result = recorded.response
    return decision


def finish_tool(ctx: CaseContext, decision: ToolDecision, result: Any) -> Any:
    """Apply the fault's transform and embed the payloads of indirect injections into a real result."""
    if decision.effect.transform is not None:
        result = decision.effect.transform(result)
        if decision.fault is not None:
            decision.fault.hit(ctx)
    for injection in decision.injections:
        channel = injection.get("channel", "tool_output")
        if channel == "error_message":
            continue
        result = place(result, str(injection.get("payload", "")), channel, placement=injection.get("placement"),
                       field=injection.get("field"))
        ctx.hits[f"injection:{channel}"] += 1
    return result


# ---- outbound HTTP -----------------------------------------------------------------------------------------------

@dataclass
class HttpDecision:
    fault: HttpFaultBase | None = None
    effect: HttpEffect | None = None
    new_body: bytes | None = None
    """The request body after context attacks, when they changed it."""
    record: dict[str, Any] | None = None
    """The case's `llm_calls` entry for an LLM request (status filled in by `finish_http`)."""


def decide_http(ctx: CaseContext, view: HttpRequestView) -> HttpDecision | None:
    """Context attacks rewrite LLM request bodies; then the first llm/http fault that applies and fires answers.
    None when the request is neither an LLM call nor touched by any fault (the caller just forwards it)."""
    provider = llm_provider(view)
    decision = HttpDecision()
    if provider is not None:
        ctx.calls["llm"] += 1
        decision.new_body = _context_body(ctx, view)
    fault = _http_fault(ctx, view, provider)
    if fault is not None:
        decision.fault, decision.effect = fault, fault.on_request(view, provider)
        if decision.effect.transform is None:
            fault.hit(ctx)  # a transform counts only once it has changed the real reply
    if provider is not None or isinstance(decision.fault, LlmFaultBase):
        decision.record = _llm_record(view, provider, decision.fault)
        ctx.llm_calls.append(decision.record)
    if decision.fault is None and decision.new_body is None and decision.record is None:
        return None
    return decision


def _http_fault(ctx: CaseContext, view: HttpRequestView, provider: str | None) -> HttpFaultBase | None:
    """The first llm/http fault that applies to the request and fires."""
    return next((f for f in ctx.faults if isinstance(f, HttpFaultBase) and f.applies_to(view, provider)
                 and f.fires(ctx)), None)


def _llm_record(view: HttpRequestView, provider: str | None, fault: HttpFaultBase | None) -> dict[str, Any]:
    """The case's `llm_calls` entry for the request, its status still to come."""
    body = view.json if isinstance(view.json, dict) else {}
    return {"url": view.url, "provider": provider or "openai", "model": body.get("model"),
            "stream": bool(body.get("stream")), "fault": fault.id if fault else None, "status": None}


def _context_body(ctx: CaseContext, view: HttpRequestView) -> bytes | None:
    wanted = any(isinstance(f, ContextFaultBase) for f in ctx.faults) or any(
        i.get("channel") in ("memory", "mcp_tool_description") for i in ctx.injections)
    if not wanted or not isinstance(view.json, dict):
        return None
    mutated = apply_context_attacks(view.json, ctx.faults, ctx, ctx.injections)
    return None if mutated is view.json else json.dumps(mutated).encode()


def _transformed(ctx: CaseContext, decision: HttpDecision, replacement: Reply | None) -> Reply | None:
    """A transform that changed the reply counts as its fault's hit; one that did not leaves the call unfaulted."""
    if replacement is not None and decision.fault is not None:
        decision.fault.hit(ctx)
    elif decision.record is not None:
        decision.record["fault"] = None
    return replacement


def fault_answer(ctx: CaseContext, decision: HttpDecision, call: Any) -> Reply | str | None:
    """What the fault answers in the server's place, its bookkeeping done (the status recorded; `call`, the LLM call
    if one is observed, finished as the fault's): its canned reply, or the kind of error to raise ("timeout",
    "reset"); None when the request goes out. Each interception waits out the fault's delay before and shapes the
    answer as its own client's response or exception."""
    effect = decision.effect
    if effect is None or (not effect.error and effect.reply is None):
        return None
    reply = None if effect.error else effect.reply
    finish_http(ctx, decision, reply)
    if call is not None:
        call.finish(reply, source="fault")
    return effect.error or reply


def settle_read(ctx: CaseContext, decision: HttpDecision, call: Any, reply: Reply) -> Reply:
    """A real reply read whole by a client that does not decode compressed bodies (urllib, http.client): `call`, the
    LLM call if one is observed, finished live with it (its body unless compressed: telemetry cannot read one), the
    fault's transform run over it and its status recorded. Returns what the agent gets."""
    if call is not None:
        encoded = reply.headers.get("content-encoding", "identity").lower() != "identity"
        call.finish_live(reply.status, reply.headers, None if encoded else reply.body)
    return finish_http(ctx, decision, reply) or reply


def finish_http(ctx: CaseContext, decision: HttpDecision, reply: Reply | None,
                status: int | None = None) -> Reply | None:
    """Run the fault's transform over the real reply (counting the hit if it changed anything) and record the
    status. Returns the replacement reply, or None to keep the real one untouched."""
    effect = decision.effect
    replacement = None
    if effect is not None and effect.transform is not None and reply is not None:
        replacement = _transformed(ctx, decision, effect.transform(reply))
    if decision.record is not None:
        final = replacement or reply
        decision.record["status"] = final.status if final is not None else status
    return replacement

