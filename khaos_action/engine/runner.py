"""The engine: runs Cases concurrently through a Transport, under each case's fault plan, one Event per call.

`concurrency` asyncio worker tasks take the cases one at a time. Each case runs with its own CaseContext set in the
`current_case` ContextVar (set and reset around the case inside its worker task), so in-process tool wrappers and
HTTP interceptors attribute calls (and fault hits) to the right case without locks; out-of-process agents are
attributed through the instance binder (see chaos proxy).
A failing, hanging, silent or flooding agent is recorded on its case and the run goes on.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from itertools import islice
from typing import Any, Protocol, TypeVar

from khaos_action import gc_freeze
from khaos_action.engine import textsafe
from khaos_action.engine.chaos.egress import attack_hosts
from khaos_action.engine.context import CallClock, CaseContext, current_case
from khaos_action.engine.events import EventLog
from khaos_action.engine.pace import Pace
from khaos_action.engine.transport.base import Transport, answered
from khaos_action.messages import AgentRequest, AgentResponse, ToolCall
from khaos_action.outcome import Phase
from khaos_action.plan.cases import Case, Invocation, invocation_key

T = TypeVar("T")


class ChaosHooks(Protocol):
    """What the engine needs from the chaos machinery; `None` means no fault can be applied in this run."""

    def bind_faults(self, specs: Sequence[dict[str, Any]], rng: random.Random) -> list[Any]: ...
    def transform_request(self, request: AgentRequest, ctx: CaseContext) -> AgentRequest: ...
    def instance_bound(self, instance: int, ctx: CaseContext | None) -> None: ...


class InstanceBinder:
    """Told by out-of-process transports which case an agent instance is serving; forwards to the chaos proxy."""

    def __init__(self) -> None:
        self.contexts: dict[str, CaseContext] = {}
        self.chaos: ChaosHooks | None = None

    def __call__(self, instance: int, key: str | None) -> None:
        if self.chaos is not None:
            self.chaos.instance_bound(instance, self.contexts.get(key) if key else None)


@dataclass(slots=True)
class EngineSettings:
    concurrency: int = 8
    timeout_s: float = 30.0
    max_output_bytes: int = 1_000_000
    seed: int = 42
    run_id: str = ""
    bind_serially: bool = False
    """Out-of-process agent behind one shared server: bind instance 0 to each case in turn (concurrency 1)."""


class Engine:
    def __init__(self, transport: Transport, *, settings: EngineSettings, events: EventLog | None = None,
                 chaos: ChaosHooks | None = None, binder: InstanceBinder | None = None,
                 activate: Callable[[CaseContext], AbstractContextManager[Any]] | None = None,
                 on_invocation: Callable[[Invocation], None] | None = None,
                 on_planned: Callable[[Sequence[Case]], None] | None = None,
                 should_stop: Callable[[], bool] | None = None) -> None:
        self.transport = transport
        self.settings = settings
        self.events = events or EventLog(None)
        self.chaos = chaos
        self.binder = binder or InstanceBinder()
        if chaos is not None:
            self.binder.chaos = chaos
        self.activate = activate
        self.on_invocation = on_invocation
        self.on_planned = on_planned
        """Told the cases of each `run` before they start (the run's progress display counts them)."""
        self.should_stop = should_stop or (lambda: False)
        self.warnings: list[str] = []
        self.pace = Pace(settings.timeout_s)
        """How long the agent took, and which calls ran out of the time limit (the run's timeout advice)."""
        self._slots: asyncio.Semaphore | None = None

    async def run(self, cases: Sequence[Case]) -> list[Invocation]:
        """Run every case; isolation groups are reset (when the agent has a reset hook) and run one after another."""
        results: dict[str, Invocation] = {}
        if self.on_planned is not None:
            self.on_planned(cases)
        for group in _groups(cases) if self.transport.has_reset else [cases]:
            if self.should_stop():
                break
            if self.transport.has_reset:
                await self._reset()
            await self._run_group(group, results)
        return [results[invocation_key(c)] for c in cases if invocation_key(c) in results]

    async def _run_group(self, group: Sequence[Case], results: dict[str, Invocation]) -> None:
        """`concurrency` workers take the cases in plan order from one shared iterator. (A task per case behind a
        semaphore makes every task and future up front, which at scale costs more than the cases:
        docs/performance.md.)"""
        pending = iter(group)
        done = [0]

        async def worker() -> None:
            for case in pending:
                if self.should_stop():
                    return
                async with slots:  # per case, not per worker: a run that waits for a slot gets the next one free
                    invocation = await self.invoke(case)
                self._record(invocation)
                results[invocation.key] = invocation
                done[0] += 1
                if done[0] % gc_freeze.KEEP_EVERY == 0:
                    gc_freeze.keep()  # the invocations so far are kept until judged: no full pass re-scans them

        # A transport may take a few cases more than the concurrency, which it holds until the agent has room (the
        # python worker's lanes: engine/worker/serve.py); it still runs at most `concurrency` at once. Only its own
        # concurrency, though: not a lower one given to the engine (cases bound one at a time to a shared server).
        ahead = self.transport.ahead
        if self.settings.bind_serially or self.transport.concurrency != self.settings.concurrency:
            ahead = 0
        # Runs may overlap (the state probe runs alongside the plan): the slots are the engine's, not each run's, so
        # together they never have more than `concurrency` cases at the agent.
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.settings.concurrency + ahead)
        slots = self._slots
        await asyncio.gather(*(worker() for _ in range(min(self.settings.concurrency + ahead, len(group)))))

    async def _reset(self) -> None:
        """A failing reset hook is reported once per kind of error; the cases still run (on possibly dirty state)."""
        try:
            await asyncio.wait_for(self.transport.reset(), self.settings.timeout_s)
        except Exception as exc:  # noqa: BLE001 - the agent's reset hook is agent code
            message = f"reset hook failed ({type(exc).__name__}: {exc}); cases after it may share state"
            if message not in self.warnings:
                self.warnings.append(message[:500])

    async def invoke(self, case: Case) -> Invocation:
        key = invocation_key(case)
        clock = CallClock(self.settings.timeout_s)
        invocation = Invocation(case=case)
        ctx = self._context(case, key, clock, invocation)
        self.binder.contexts[key] = ctx
        if self.settings.bind_serially:
            self.binder(0, key)
        token = current_case.set(ctx)
        started = time.perf_counter()
        try:
            with self.activate(ctx) if self.activate else nullcontext():
                async with self.transport.case_scope(ctx):  # a worker process held for all of its turns
                    started = time.perf_counter()  # the agent's latency, not the wait for (or start of) a worker
                    await self._turns(case, key, ctx, invocation)
                    if case.phase == Phase.SECURITY and case.goal is not None and case.goal.checks:
                        await self._state_checks(case, key, ctx, invocation)
        finally:
            current_case.reset(token)
            if self.settings.bind_serially:
                self.binder(0, None)
            self.binder.contexts.pop(key, None)
        invocation.latency_ms = (time.perf_counter() - started - clock.waited) * 1000
        _observed(invocation, ctx)
        return seal(invocation)

    def _context(self, case: Case, key: str, clock: CallClock, invocation: Invocation) -> CaseContext:
        """The case's context: its seeded randomness, injections, recorded tool replies and bound faults."""
        ctx = CaseContext(case_id=key, rng=case_rng(self.settings.seed, key) if case.faults else NO_FAULTS,
                          injections=list(case.injections), seed=self.settings.seed, fault_specs=list(case.faults),
                          tool_responses=list(case.tool_responses), clock=clock, contain=attack_hosts(case))
        if case.tool_responses:
            from khaos_action.replay.sessions import RecordedTools

            ctx.recorded = RecordedTools(case.tool_responses)
        if case.faults:
            if self.chaos is None:
                invocation.notes.append("faults configured but no fault machinery is active for this agent type")
            else:
                ctx.faults = self.chaos.bind_faults(case.faults, ctx.rng)
        return ctx

    async def _turns(self, case: Case, key: str, ctx: CaseContext, invocation: Invocation) -> None:
        history: list[dict[str, str]] = [dict(turn) for turn in case.history]
        for turn in (case.input, *case.turns):
            request = AgentRequest(turn, list(history), key, case_id=key, phase=case.phase, run_id=self.settings.run_id)
            if self.chaos is not None and ctx.faults:  # context faults rewrite the conversation the agent is sent
                request = self.chaos.transform_request(request, ctx)
            reply = await self._send(request, invocation, ctx.clock)
            if reply is None:
                break
            history += [{"role": "user", "content": turn}, {"role": "assistant", "content": reply}]

    async def _state_checks(self, case: Case, key: str, ctx: CaseContext, invocation: Invocation) -> None:
        """The attack's state checks, in the agent's process on the case's own state, within the case's timeout."""
        from khaos_action.engine.state_check import check_request, outcomes

        refs = list(case.goal.checks) if case.goal is not None else []
        if not self.transport.runs_checks:
            invocation.checks = {ref: {"error": "state checks run only in a python agent's worker (agent.type python "
                                                "or a framework type): this agent runs elsewhere"} for ref in refs}
            return
        calls = [{"name": c.name, "args": c.args, "result": c.result, "error": c.error}
                 for c in merge_tool_calls(ctx.tool_calls, invocation.tool_calls)]
        checks = check_request(refs, case={"id": case.id, "attack_id": case.attack_id, "input": case.input,
                                           "turns": list(case.turns)},
                               reply=invocation.replies[-1] if invocation.replies else "", tool_calls=calls)
        request = AgentRequest("", [], key, case_id=key, phase=case.phase, run_id=self.settings.run_id, checks=checks)
        answer, error = await self._check_answer(request, ctx.clock)
        invocation.checks = {ref: {"error": error} for ref in refs} if error else outcomes(answer, refs)

    async def _check_answer(self, message: AgentRequest, clock: CallClock | None) -> tuple[Any, str | None]:
        """The worker's answer to the state checks, or why there is none."""
        try:
            reply = await _within(self.transport.send(message), self.settings.timeout_s, clock)
            return answered(reply).checks, None
        except asyncio.TimeoutError:
            return None, f"the state check ran past the case's timeout ({self.settings.timeout_s:g}s)"
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the transport's failure is the checks' error, never ours
            return None, textsafe.safe_str(f"{type(exc).__name__}: {exc}", textsafe.MAX_ERROR_CHARS)

    async def _send(self, request: AgentRequest, invocation: Invocation, clock: CallClock | None) -> str | None:
        answer = await self._answer(request, invocation, clock)
        if answer is None:
            return None
        text = _reply_text(answer, invocation)
        _take_notes(answer, invocation)
        _take_tool_calls(answer, invocation)
        if answer.error:
            invocation.error = textsafe.safe_str(answer.error, textsafe.MAX_ERROR_CHARS)
        kind = textsafe.repr_type(text) if text[:1] == "<" else None
        if kind is not None:  # `str(generator)` and the like: the agent's code never produced an answer
            invocation.error = (f"the agent's reply is the repr of a {kind} object ({textsafe.safe_str(text, 120)}), "
                                "not text: return a string, or yield its text as a stream")
            return None
        text = _capped(text, self.settings.max_output_bytes, invocation)
        invocation.replies.append(text)
        return text

    async def _answer(self, message: AgentRequest, invocation: Invocation,
                      clock: CallClock | None) -> AgentResponse | None:
        """The agent's answer to `message`, or None with the invocation's error when it timed out or failed."""
        timeout = self.settings.timeout_s
        try:
            response = answered(await _within(self.transport.send(message), timeout, clock))
        except asyncio.TimeoutError:
            invocation.timed_out = True
            invocation.timeout_s = timeout
            invocation.error = f"timed out after {timeout:g}s (agent.timeout_s)"
            return None
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - any agent failure is data about the agent, never a crash of ours
            invocation.error = textsafe.safe_str(f"{type(exc).__name__}: {textsafe.safe_str(exc)}",
                                                 textsafe.MAX_ERROR_CHARS)
            return None
        return response

    def _record(self, invocation: Invocation) -> None:
        case = invocation.case
        self.pace.add(case.phase, timed_out=invocation.timed_out, latency_ms=invocation.latency_ms)
        self.events.write({
            "case_id": case.id, "repeat": case.repeat, "phase": case.phase, "scenario": case.scenario,
            "attack_id": case.attack_id, "input": textsafe.safe_str(case.input, 2000),
            "output": invocation.text[:4000],
            "latency_ms": round(invocation.latency_ms, 3), "error": invocation.error,
            "timed_out": invocation.timed_out, "fault_hits": invocation.fault_hits,
            "tool_calls": [{"name": c.name, "fault": c.fault} for c in invocation.tool_calls],
        })
        if self.on_invocation is not None:
            self.on_invocation(invocation)


def merge_tool_calls(recorded: Sequence[ToolCall], reported: Sequence[ToolCall]) -> list[ToolCall]:
    """One list of the case's tool calls, each counted once: the calls the engine's wrappers recorded (with their
    faults and errors) and the calls the agent reported in its reply (a python agent's `tool_calls`, a framework's
    run items). A reported call that a wrapper also recorded is the same call (matched by name, in order); reported
    calls no wrapper saw (handoffs, MCP and hosted tools) stay, in the order the agent reported them."""
    left = list(recorded)
    out: list[ToolCall] = []
    for call in reported:
        index = next((i for i, r in enumerate(left) if r.name == call.name), None)
        if index is None:
            out.append(call)
        else:  # the wrapper's record, after any recorded calls the agent did not report (nested agents' tools)
            out += left[:index + 1]
            del left[:index + 1]
    return out + left


async def _within(awaitable: Awaitable[T], timeout: float, clock: CallClock | None = None) -> T:
    """`asyncio.wait_for` without the task it wraps each call in on Python 3.11 (a large share of the engine's
    time per case); 3.12's wait_for is this same `asyncio.timeout` block. `clock` gets the block, for a transport to
    hold while the call waits for room at the agent."""
    if sys.version_info < (3, 11):
        return await asyncio.wait_for(awaitable, timeout)
    async with asyncio.timeout(timeout) as deadline:
        if clock is None:
            return await awaitable
        clock.deadline = deadline
        try:
            return await awaitable
        finally:
            clock.deadline, clock.held = None, False


def _reply_text(answer: AgentResponse, invocation: Invocation) -> str:
    """The reply's text as valid Unicode (noted when it was not)."""
    text = answer.text
    text = "" if text is None else text if isinstance(text, str) else textsafe.safe_str(text, 1 << 62)
    text, replaced = textsafe.valid_text(text)
    if replaced:
        invocation.notes.append("reply had invalid Unicode (lone surrogates); replaced with U+FFFD")
    return text


def _take_notes(answer: AgentResponse, invocation: Invocation) -> None:
    """The reply's notes, up to the case's cap, and how many were dropped (here or by the transport)."""
    if answer.notes is not None:
        notes, more = textsafe.take_notes(answer.notes, textsafe.MAX_NOTES + 1 - len(invocation.notes))
        invocation.notes += notes
        invocation.notes_dropped += more
    already = answer.notes_dropped  # counted by transport.base.normalise_reply
    if isinstance(already, int) and not isinstance(already, bool) and 0 < already < 2**63:
        invocation.notes_dropped += already


def _take_tool_calls(answer: AgentResponse, invocation: Invocation) -> None:
    """The tool calls the agent reports, up to the case's cap (one without a name is no call)."""
    calls = answer.tool_calls or ()
    for call in islice(calls if isinstance(calls, (list, tuple)) else (), textsafe.MAX_TOOL_CALLS + 1):
        if isinstance(call, dict) and call.get("name"):
            # the result too, when the agent reports it: the judge checks a reply under a fault against what
            # the tools really returned (judge/graceful.py)
            invocation.tool_calls.append(ToolCall(name=textsafe.safe_str(call["name"], 200),
                                                  args=_args(call.get("args")),
                                                  result=_result(call.get("result"))))


def _capped(text: str, cap: int, invocation: Invocation) -> str:
    """The reply cut to `cap` bytes of UTF-8 (agent.max_output_bytes), noted when it was."""
    encoded = text.encode("utf-8") if len(text) * 4 > cap else b""  # 4 bytes per character at most
    if len(encoded) > cap:
        text = encoded[:cap].decode("utf-8", "ignore")
        invocation.truncated = True
        invocation.notes.append(f"output of {len(encoded):,} bytes cut to {cap:,} (agent.max_output_bytes)")
    return text


def _observed(invocation: Invocation, ctx: CaseContext) -> None:
    """What the case's context observed, added to its invocation once the case is over."""
    invocation.text = invocation.replies[-1] if invocation.replies else ""
    invocation.tool_calls = merge_tool_calls(ctx.tool_calls, invocation.tool_calls)
    invocation.fault_hits = dict(ctx.hits)
    invocation.llm_calls = ctx.llm_calls
    invocation.egress = [e for e in ctx.egress if e]
    invocation.notes += ctx.notes
    _errors(invocation, ctx)


def _errors(invocation: Invocation, ctx: CaseContext) -> None:
    """The tools' errors and the context's own error, added to the invocation's."""
    if ctx.tool_errors and invocation.case.phase == Phase.SECURITY:
        invocation.notes += ctx.tool_errors  # a tool refusing an attack's arguments defends the agent
    elif ctx.tool_errors:  # a tool broke without any fault; the framework may have turned it into text
        broke = "; ".join(ctx.tool_errors)
        ctx.error = broke if ctx.error is None else f"{ctx.error}; {broke}"
    if ctx.error:  # e.g. an LLM cassette miss: the agent may have papered over it, the case must not pass
        invocation.error = ctx.error if invocation.error is None else f"{ctx.error}; then: {invocation.error}"


def seal(invocation: Invocation) -> Invocation:
    """Make everything the agent produced storable (engine/textsafe.py): valid text, JSON-safe tool calls and LLM
    records, and the per-case caps on notes and tool calls. Runs once per invocation, before anything is written."""
    notes: list[str] = []
    _seal_replies(invocation, notes)
    if invocation.error is not None:
        invocation.error = textsafe.safe_str(invocation.error, textsafe.MAX_ERROR_CHARS)
    _seal_tool_calls(invocation, notes)
    if invocation.llm_calls:
        invocation.llm_calls = textsafe.json_safe(invocation.llm_calls, items=20_000)
    if invocation.egress:
        invocation.egress = textsafe.json_safe(invocation.egress)
    invocation.notes = textsafe.cap_notes(invocation.notes + notes, dropped=invocation.notes_dropped)
    invocation.notes_dropped = 0
    return invocation


def _seal_replies(invocation: Invocation, notes: list[str]) -> None:
    replies: list[str] = []
    fixed = False
    for reply in invocation.replies:
        text, changed = textsafe.valid_text(reply)
        replies.append(text)
        fixed = fixed or changed
    if fixed and not any("invalid Unicode" in n for n in invocation.notes):
        notes.append("reply had invalid Unicode (lone surrogates); replaced with U+FFFD")
    invocation.replies = replies
    invocation.text = replies[-1] if replies else ""


def _seal_tool_calls(invocation: Invocation, notes: list[str]) -> None:
    calls = invocation.tool_calls
    if len(calls) > textsafe.MAX_TOOL_CALLS:
        notes.append(f"{len(calls) - textsafe.MAX_TOOL_CALLS:,} more tool calls dropped (at most "
                     f"{textsafe.MAX_TOOL_CALLS} are kept per case)")
        calls = calls[: textsafe.MAX_TOOL_CALLS]
    for call in calls:
        call.name = textsafe.safe_str(call.name, 200)
        call.args = _args(call.args)
        if call.result is not None:
            call.result = textsafe.json_safe(call.result)
        if call.error is not None:
            call.error = textsafe.safe_str(call.error, textsafe.MAX_ERROR_CHARS)
    invocation.tool_calls = calls


def _result(value: Any) -> Any:
    return None if value is None else textsafe.json_safe(value)


def _args(value: Any) -> dict[str, Any]:
    safe = textsafe.json_safe(value if value is not None else {})
    return safe if isinstance(safe, dict) else {"value": safe}


NO_FAULTS = random.Random(0)
"""The rng of every case without faults: only faults draw from a case's rng (binding, `probability`), and seeding
one per case costs more than any other step of a case's setup."""


def case_rng(seed: int, key: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _groups(cases: Iterable[Case]) -> list[list[Case]]:
    groups: dict[str, list[Case]] = {}
    for case in cases:
        groups.setdefault(case.group or case.id, []).append(case)
    return list(groups.values())
