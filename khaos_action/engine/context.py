"""The case an in-process call belongs to.

A ContextVar is set per case by the engine; asyncio tasks copy it and `asyncio.to_thread` copies it into the worker
thread, so every tool wrapper and HTTP interceptor can find its case (and count fault hits) without locks.
Outside a run the var is None and wrappers pass straight through.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from khaos_action.messages import ToolCall

if TYPE_CHECKING:
    from khaos_action.config.fault_entries import CaseFault
    from khaos_action.replay.sessions import ToolResponse


@dataclass(slots=True)
class CaseContext:
    case_id: str
    rng: random.Random
    """Seeded per case (from the run seed and the case id) for probabilistic faults."""
    faults: list[Any] = field(default_factory=list)
    """Bound fault objects active for this case (see engine.chaos)."""
    injections: list[dict[str, Any]] = field(default_factory=list)
    """Indirect attack payloads to deliver through tools / interception."""
    hits: Counter = field(default_factory=Counter)
    """fault id -> how many times it fired in this case."""
    calls: Counter = field(default_factory=Counter)
    """target key (e.g. "tool:lookup_order", "llm") -> calls seen, for `after_calls`."""
    tool_calls: list[ToolCall] = field(default_factory=list)
    llm_calls: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    recorded: Any = None
    """Replay cases: the session's recorded tool responses (replay.sessions.RecordedTools), served instead of
    calling the real tools."""
    llm: Any = None
    """The run's LLM services (khaos_action.engine.llm_calls.LlmRuntime: cassette, prices, budget meter), set by the
    engine's `activate` hook; None: LLM calls are still measured, with built-in prices and no cassette."""
    seed: int = 0
    fault_specs: list[CaseFault] = field(default_factory=list)
    tool_responses: list[ToolResponse] = field(default_factory=list)
    """The run seed and the case's unbound fault specs and recorded tool responses: what a python worker process
    needs to rebuild this context on its side (engine.wire.case_setup)."""
    error: str | None = None
    """A failure of the case found by the machinery rather than the agent (e.g. an LLM cassette replay miss);
    the engine records it as the case's error, so the case can never pass."""
    tool_errors: list[str] = field(default_factory=list)
    """Errors wrapped tools raised by themselves in a case without faults (chaos/tools.py `tool_failed`); the
    engine fails the case on them, except for attacks, where a tool refusing hostile arguments is a defence."""
    clock: CallClock | None = None
    """The time limit of the case's call in flight (set by the engine, engine/runner.py)."""
    contain: tuple[str, ...] = ()
    """Attack cases: hosts the attack names; outbound HTTP to them is answered locally (engine/chaos/egress.py)."""
    egress: list[dict[str, Any]] = field(default_factory=list)
    """The requests to those hosts that were answered locally (host, method, path, body, via)."""
    on_change: Callable[[], None] | None = None
    """Told when the case observed something the engine must keep however the case ends (a fault hit, through
    `Hits`; a finished LLM call, engine/llm_calls.py): the python worker then reports the case's observations at
    once (engine/worker/child.py), so a case the engine stops waiting for (its time limit, a crash) keeps them."""

    def changed(self) -> None:
        if self.on_change is not None:
            self.on_change()


class Hits(Counter):
    """A case's fault hits that tell the case of every change (`CaseContext.changed`): hits are counted in many
    places (tool wrappers, interceptors, injections), and each must reach the engine even if the call never ends."""

    def __init__(self, ctx: CaseContext) -> None:
        super().__init__()
        self.ctx = ctx

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        self.ctx.changed()


class CallClock:
    """The time limit of a case's call, which the engine enters around each call (Python 3.11+: an asyncio.Timeout).

    A transport that queues a call before the agent starts it (the python worker's lanes, engine/worker/serve.py)
    holds the limit while the call waits and starts it when the agent does, so neither the limit nor the latency
    counts the wait; `waited` adds up those waits for the latency."""

    __slots__ = ("deadline", "seconds", "waited", "held")

    def __init__(self, seconds: float) -> None:
        self.deadline: asyncio.Timeout | None = None
        self.seconds = seconds
        self.waited = 0.0
        self.held = False

    def hold(self) -> None:
        if self.deadline is not None and not self.deadline.expired():
            self.deadline.reschedule(None)
            self.held = True

    def start(self) -> None:
        """The agent started the call: the limit runs from now (nothing if it was not held)."""
        if self.held and self.deadline is not None and not self.deadline.expired():
            self.held = False
            self.deadline.reschedule(asyncio.get_running_loop().time() + self.seconds)


current_case: ContextVar[CaseContext | None] = ContextVar("khaos_current_case", default=None)

_SERVING: list[CaseContext | None] = [None]
"""The one case a python worker serving one case at a time is on (engine/worker/child.py `serving`)."""


def case_now() -> CaseContext | None:
    """The case the running code serves: the context's; else, in a worker serving one case at a time, that case.
    Some frameworks run the agent's tools on threads of their own without copying the context (smolagents' code
    executor, AutoGen's sync tools): every thread of such a worker serves its one case."""
    ctx = current_case.get()
    return ctx if ctx is not None else _SERVING[0]


class serving:  # noqa: N801 - used as a `with` block, like contextlib's lower-case managers
    """`with serving(ctx):` around a call of a worker that serves one case at a time."""

    def __init__(self, ctx: CaseContext | None) -> None:
        self.ctx = ctx

    def __enter__(self) -> None:
        _SERVING[0] = self.ctx

    def __exit__(self, *exc: object) -> None:
        _SERVING[0] = None
