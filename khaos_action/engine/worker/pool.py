"""The python transport as the engine sees it: `type: python` and framework agents run in worker processes
(engine/worker/child.py), never in the action's own process. This module is the pool of them; one process is
worker/process.py, how one starts worker/start.py.

A case holds one worker for all of its turns (the engine enters `case_scope` around them). A sync agent's worker
serves one case at a time, so a hung call or a crash is attributed to exactly one case. An async agent's worker
runs up to LANES cases at once and holds a few more ahead (AHEAD), waiting for its next free lane; the pool gives
its workers at most `concurrency` lanes in all, so the agent never runs more than `concurrency` calls at once. Workers
start lazily; a case takes a free lane of the most recently released worker first (cases that run one after
another see the same agent state, as they did in-process), else a new worker, else a place ahead. A worker that dies
(os._exit, a segfault, an rlimit) or has to be killed (the engine's timeout cancelled a sync call) fails only its
case, with the exit and the last lines of its stderr; when a shared worker dies, the calls the agent may have started
run again each on a worker of its own (on the dead one's lanes), and those still waiting go back to the pool
(docs/sandbox.md). Replies are JSON frames (engine/wire.py); the case's observations they carry are merged into the
engine's CaseContext when the case ends, and LLM records are added to the run's runtime (worker/news.py).

Nothing the agent prints reaches our stdout: the worker's stdout and stderr are drained into a bounded tail that
error messages quote (inert text, never a workflow command).
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from khaos_action.config.agent_block import InProcessAgent
from khaos_action.engine import sandbox
from khaos_action.engine.chaos.intercept import Traffic
from khaos_action.engine.context import CaseContext, current_case
from khaos_action.engine.transport.base import AgentCallError, OutputTail, TransportBase
from khaos_action.engine.wire import FrameReader, FrameWriter, case_setup, merge_state, reply_of
from khaos_action.engine.worker.news import cassette_delta, meter, note_traffic
from khaos_action.engine.worker.process import WorkerDied, WorkerProcess, inert, latest
from khaos_action.engine.worker.start import WorkerStarter
from khaos_action.engine.worker.zygote_process import ZygoteProcess
from khaos_action.errors import AgentError, ConfigError
from khaos_action.extensions import Extension
from khaos_action.messages import AgentRequest, AgentResponse
from khaos_action.tool_info import ToolInfo

LANES = 16
"""Cases one worker serves at once when the agent is async (a sync agent's worker serves one). At concurrency 32,
two workers instead of 32: one event loop turn and one pipe wake-up serve several cases, and 2 cores do not switch
between 33 processes for every case."""
AHEAD = 0.5
"""Cases an async agent's worker holds beyond its lanes, as a share of them: they wait in the worker, so a lane that
frees starts the next case without a round trip through the engine (engine/worker/serve.py). At 16 lanes, 8: enough
to cover the time the engine takes to send the next case when many replies arrive together (docs/performance.md)."""


class WorkerTraceback(Exception):
    """The traceback of a failure inside the worker, as text (chained to the error it explains)."""


class Lease:
    """A worker held by one case, and what its replies said about the case so far."""

    def __init__(self, worker: WorkerProcess) -> None:
        self.worker = worker
        self.state: dict[str, Any] | None = None
        self.moved = False
        """Its call ran again on another worker after a shared one died: the next such death runs it alone."""


class WorkerTransport(TransportBase):
    runs_checks = True
    """An attack's state checks run in the worker, on the case's agent.context (engine/state_check.py)."""

    def __init__(self, agent: InProcessAgent, *, base_dir: Path, environ: Mapping[str, str], concurrency: int = 8,
                 python: str | None = None, env: Mapping[str, str] | None = None, llm: dict[str, Any] | None = None,
                 limits: sandbox.Limits | None = None, identity: sandbox.Identity | None = None,
                 zygote: bool = True, extensions: Sequence[Extension] = (), lanes: int = LANES,
                 early: ZygoteProcess | None = None) -> None:
        self.agent = agent
        self.base_dir = Path(base_dir)
        self.concurrency = max(1, concurrency)
        self.lanes = max(1, min(lanes, self.concurrency))
        self.starter = WorkerStarter(agent, base_dir=self.base_dir, environ=environ, python=python, env=env,
                                     limits=limits, identity=identity, zygote=zygote, early=early)
        self.llm = llm or {}
        self.has_reset = agent.resets()
        self.tool_names: list[str] = []
        self.reached: set[str] = set()
        self.traffic = Traffic()
        """The HTTP clients the workers' interception patched and the requests cases made through them."""
        self.seen: tuple[list[ToolInfo], dict | None] | None = None
        """What the first worker found when it imported the agent: its tools and `@khaosagent` metadata."""
        self.started = 0
        self._workers: list[WorkerProcess] = []
        """Live workers, the most recently released last."""
        self._growing: asyncio.Task[None] | None = None
        self.ahead = 0
        """Cases the engine may hand over beyond `concurrency`: they wait in an async agent's workers for a lane
        (0 for a sync agent, and before Python 3.11, whose time limits cannot be held)."""
        self._slots = asyncio.Semaphore(self.concurrency + _planned_ahead(self.concurrency, self.lanes))
        """One per case held; what runs at the agent is bounded by the lanes (`_lanes_used`)."""
        self._lanes_used = 0
        """Lanes of the pool's workers (a dead one's until its cases left and their re-runs ended): at most
        `concurrency`, so at most `concurrency` calls are ever at the agent at once."""
        self._room = asyncio.Event()
        self._waiting = 0
        self._closing: set[asyncio.Task[None]] = set()
        self._lease: contextvars.ContextVar[Lease | None] = contextvars.ContextVar("khaos_worker_lease",
                                                                                   default=None)
        self.stall_s = max(agent.timeout_s / 2, 0.5)
        """A shared worker silent this long with requests in flight is blocked (its cases are re-run elsewhere
        with half their time left)."""
        # The extensions first: the worker imports them before it reads the agent, whose type one may register.
        self._setup = {"extensions": [[e.module, e.root] for e in extensions], "agent": agent.model_dump(mode="json"),
                       "base_dir": str(self.base_dir), "llm": self.llm, "beat_s": self.stall_s / 4}

    # ---- the transport protocol -----------------------------------------------------------------------------------
    async def start(self) -> None:
        if self.seen is None:
            self._release(await self._acquire())

    async def send(self, message: AgentRequest) -> AgentResponse:
        lease = self._lease.get()
        if lease is not None:
            return await self._invoke(lease, message)
        async with _Held(self, current_case.get()) as held:  # outside a case scope: one request, one worker
            return await self._invoke(held, message)

    async def reset(self) -> None:
        """Reset every live worker (the engine resets between isolation groups, when no case is in flight)."""
        errors = []
        for worker in list(self._workers):
            try:
                answer = await worker.request({"op": "reset"})
            except WorkerDied:
                self._drop(worker)
                continue
            if answer.get("error"):
                errors.append(str(answer["error"]))
        if errors:
            raise AgentCallError(errors[0])

    async def close(self) -> None:
        workers, self._workers = self._workers, []
        await asyncio.gather(*(w.close() for w in workers), *self._closing, return_exceptions=True)
        await self.starter.close()

    def case_scope(self, ctx: CaseContext) -> _Held:
        """A worker held for all of the case's turns (an async context manager)."""
        return _Held(self, ctx, scope=True)

    # ---- workers ----------------------------------------------------------------------------------------------------
    def _end_case(self, ctx: CaseContext | None, lease: Lease) -> None:
        if ctx is not None:
            # What the worker reported during a call that got no reply (the time limit, a crash) counts too.
            lease.state = latest(lease.state, lease.worker.observed.pop(ctx.case_id, None))
            self._bank(ctx, lease)
            if ctx.case_id in lease.worker.cases:
                lease.worker.cases.discard(ctx.case_id)
                lease.worker.ended.append(ctx.case_id)
        self._release(lease.worker)

    def _bank(self, ctx: CaseContext, lease: Lease) -> None:
        """Merge what the lease's worker said about the case into the engine's context."""
        if lease.state is not None:
            for record in merge_state(ctx, lease.state):
                meter(ctx, record)
            lease.state = None

    async def _acquire(self) -> WorkerProcess:
        await self._slots.acquire()
        try:
            return await self._worker()
        except BaseException:
            self._slots.release()
            raise

    async def _worker(self) -> WorkerProcess:
        """A live worker with room for one more case: a free lane, the most recently released worker first (cases
        that run one after another see the same agent state); else a new worker, while the lanes allow one; else a
        place ahead, waiting in a worker for its next free lane; else we wait for room."""
        while True:
            worker = self._with_room(lanes=True)
            if worker is None and (self._growing is not None or self._lanes_used < self.concurrency):
                if self._growing is None:
                    self._growing = asyncio.get_running_loop().create_task(self._grow())
                await asyncio.shield(self._growing)
                continue
            worker = worker or self._with_room(lanes=False)
            if worker is not None:
                worker.load += 1
                return worker
            self._waiting += 1  # every lane is taken (a dead worker's cases are still running again alone)
            try:
                await self._room.wait()
            finally:
                self._waiting -= 1

    def _with_room(self, *, lanes: bool) -> WorkerProcess | None:
        for worker in reversed(self._workers):
            if not worker.dead and worker.load < (worker.lanes if lanes else worker.capacity):
                return worker
        return None

    def _roomier(self) -> None:
        if self._waiting:
            self._room.set()
            self._room = asyncio.Event()

    async def _grow(self) -> None:
        try:
            self._workers.append(await self._spawn())
        finally:
            self._growing = None

    def _release(self, worker: WorkerProcess) -> None:
        self._leave(worker)
        self._slots.release()

    def _leave(self, worker: WorkerProcess) -> None:
        """One case less on `worker` (its slot stays with the case)."""
        worker.load -= 1
        if worker.dead or worker.retire:
            self._drop(worker)
        else:
            if self._workers and self._workers[-1] is not worker and worker in self._workers:
                self._workers.remove(worker)
                self._workers.append(worker)
            self._roomier()

    def _drop(self, worker: WorkerProcess) -> None:
        if worker in self._workers:
            self._workers.remove(worker)
        if worker.load <= 0:
            task = asyncio.get_running_loop().create_task(worker.close())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
            parent, worker.parent = worker.parent, None
            if parent is not None:
                parent.borrowers -= 1
                self._free_lanes(parent)
            self._free_lanes(worker)

    def _free_lanes(self, worker: WorkerProcess) -> None:
        """Give a dropped worker's lanes back to the pool once neither its cases nor their re-runs use them."""
        if worker.pool_lanes and worker.load <= 0 and worker.borrowers <= 0 and worker not in self._workers:
            self._lanes_used -= worker.pool_lanes
            worker.pool_lanes = 0
            self._roomier()

    async def _spawn(self, *, parent: WorkerProcess | None = None) -> WorkerProcess:
        """A new worker: one of the pool's, with the lanes the budget has left; or, with `parent` (a shared worker
        that died), a worker of one case that runs on one of the parent's lanes."""
        lanes = 1 if parent is not None else max(1, min(self.lanes, self.concurrency - self._lanes_used))
        if parent is not None:
            parent.borrowers += 1
        else:
            self._lanes_used += lanes
        try:
            worker = await self._start(lanes)
        except BaseException:
            if parent is not None:
                parent.borrowers -= 1
                self._free_lanes(parent)
            else:
                self._lanes_used -= lanes
                self._roomier()
            raise
        worker.parent, worker.pool_lanes = parent, 0 if parent is not None else lanes
        if worker.capacity == 1 and parent is None:  # a sync agent's worker: one lane of what it took
            self._lanes_used -= lanes - 1
            worker.pool_lanes = 1
        worker.retire = parent is not None
        worker.on_end = self._ended
        return worker

    def _ended(self, worker: WorkerProcess) -> None:
        """A worker's process is gone; one that no case holds (it died idle) goes now, lanes and all."""
        if worker.load <= 0:
            self._drop(worker)

    async def _start(self, lanes: int) -> WorkerProcess:
        process, parent_read, parent_write = await self.starter.process()
        loop = asyncio.get_running_loop()
        output = OutputTail()
        drains = [asyncio.create_task(output.drain(process.stdout))]
        worker = WorkerProcess(process, drains, output)
        await loop.connect_read_pipe(lambda: FrameReader(worker.frame, worker.end), os.fdopen(parent_read, "rb", 0))
        pipe, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(parent_write, "wb", 0))
        worker.writer = FrameWriter(pipe, plain=True)
        self.started += 1
        ready = await _ready(worker, {**self._setup, "lanes": lanes})
        if ready.get("concurrent") and lanes > 1:
            ahead = _ahead(lanes)
            worker.share(lanes, ahead)
            if ahead and self.seen is None:
                self.ahead = _planned_ahead(self.concurrency, self.lanes)
            worker.start_watch(self.stall_s)
        self._note_tools(ready)
        if self.seen is None:
            self.seen = _seen(ready)
        return worker

    async def _invoke(self, lease: Lease, message: AgentRequest) -> AgentResponse:
        ctx = current_case.get()
        if lease.worker.dead:  # died during an earlier turn of this case: the case goes on with another worker
            await self._move(lease, ctx, alone=False)
        while True:
            try:
                answer = await self._ask(lease, message, ctx)
                break
            except WorkerDied as exc:
                if not exc.shared:
                    raise
                # A shared worker ended (or stalled) with this call in flight, maybe for another case's doing: a
                # call the agent may have started runs again on a worker of its own, so only a case that ends that
                # one too has it as its error; a call still waiting for a lane goes back to the pool (once).
                await self._move(lease, ctx, alone=exc.started or lease.moved)
                lease.moved = True
        if answer.get("error"):
            raise AgentCallError(str(answer["error"]))
        reply = reply_of(answer.get("payload"))
        if reply is None:
            raise AgentCallError("the agent worker sent no reply")
        return reply

    async def _move(self, lease: Lease, ctx: CaseContext | None, *, alone: bool) -> None:
        """Give the lease another worker: a new one of its own (`alone`, on a lane of the dead one), else one of the
        pool's."""
        old = lease.worker
        if ctx is not None:
            self._bank(ctx, lease)  # what the old worker said about the case's earlier turns
            old.observed.pop(ctx.case_id, None)  # its call in flight runs again: that attempt's reports are not kept
        try:
            if alone:
                worker = await self._spawn(parent=old)
                worker.load += 1
            else:
                self._leave(old)
                worker = await self._worker()
        finally:
            if alone:
                self._leave(old)  # after the new worker took one of its lanes
        lease.worker = worker

    async def _ask(self, lease: Lease, message: AgentRequest,
                   ctx: CaseContext | None) -> dict[str, Any]:
        worker = lease.worker
        answer = await worker.request(_invoke_request(worker, message, ctx), ctx.clock if ctx is not None else None)
        self._note_tools(answer)
        if isinstance(answer.get("traffic"), dict):
            note_traffic(self.traffic, worker, answer["traffic"])
        if isinstance(answer.get("state"), dict):
            lease.state = latest(lease.state, answer["state"])
        if isinstance(answer.get("cassette"), dict):
            cassette_delta(ctx, worker, answer["cassette"])
        waited = answer.get("waited")
        if ctx is not None and ctx.clock is not None and isinstance(waited, float) and 0 < waited < 1e9:
            ctx.clock.waited += waited
        return answer

    def _note_tools(self, answer: dict[str, Any]) -> None:
        for name in answer.get("tool_names") or ():
            if isinstance(name, str) and name not in self.tool_names:
                self.tool_names.append(name)
        self.reached.update(n for n in answer.get("reached") or () if isinstance(n, str))


class _Held:
    """A worker held by one case (`case_scope`: for all of its turns, the lease in the transport's ContextVar) or by
    one request outside any case. A class rather than an asynccontextmanager: it is entered for every case."""

    __slots__ = ("transport", "ctx", "scope", "lease", "token")

    def __init__(self, transport: WorkerTransport, ctx: CaseContext | None, *, scope: bool = False) -> None:
        self.transport, self.ctx, self.scope = transport, ctx, scope
        self.lease: Lease | None = None
        self.token: contextvars.Token[Lease | None] | None = None

    async def __aenter__(self) -> Lease:
        self.lease = Lease(await self.transport._acquire())
        if self.scope:
            self.token = self.transport._lease.set(self.lease)
        return self.lease

    async def __aexit__(self, *exc: object) -> None:
        if self.token is not None:
            self.transport._lease.reset(self.token)
        assert self.lease is not None
        self.transport._end_case(self.ctx, self.lease)


def _ahead(lanes: int) -> int:
    """Cases a worker of `lanes` lanes holds beyond them (engine/worker/serve.py). None before Python 3.11: there a
    case's time limit is asyncio.wait_for's, which cannot be held while the case waits."""
    return int(lanes * AHEAD) if lanes > 1 and sys.version_info >= (3, 11) else 0


def _planned_ahead(concurrency: int, lanes: int) -> int:
    """The cases the pool's workers hold beyond their lanes in all: `concurrency` split into workers of `lanes`."""
    lanes = max(1, min(lanes, concurrency))
    return sum(_ahead(min(lanes, concurrency - start)) for start in range(0, concurrency, lanes))


def _invoke_request(worker: WorkerProcess, message: AgentRequest, ctx: CaseContext | None) -> dict[str, Any]:
    """The invoke request: the case's setup the first time this worker sees the case, and the cases that ended
    since the last request (the worker drops their contexts)."""
    request: dict[str, Any] = {"op": "invoke", "payload": message.payload, "meta": message.metadata,
                               "case": ctx.case_id if ctx is not None else None}
    if ctx is not None and ctx.case_id not in worker.cases:
        request["setup"] = case_setup(ctx)
        worker.cases.add(ctx.case_id)
    if worker.ended:
        request["drop"], worker.ended = worker.ended, []
    return request


async def _ready(worker: WorkerProcess, setup: dict[str, Any]) -> dict[str, Any]:
    """The worker's `ready`, once it has imported the agent; its failure to start is the run's error (a ConfigError
    when the agent's config was at fault), chained to the worker's traceback."""
    try:
        ready = await worker.request(setup)
    except WorkerDied as exc:
        raise AgentError(f"the python agent could not start: {exc}") from None
    if ready.get("op") != "ready":
        await worker.close()
        error = str(ready.get("error") or "the worker did not say why")
        # Chained, so `--debug` shows where the agent's import failed (quoted: it is the agent's text).
        remote = WorkerTraceback(inert("the worker's traceback:\n" + str(ready.get("traceback") or "")))
        raise (ConfigError if ready.get("kind") == "ConfigError" else AgentError)(error) from remote
    return ready


def _seen(ready: dict[str, Any]) -> tuple[list[ToolInfo], dict[str, Any] | None]:
    """The agent's tools and metadata as the first worker saw them (read as data: names, roles only as text)."""
    tools = [ToolInfo(name=str(t.get("name")), description=str(t.get("description") or ""),
                      parameters=tuple(t.get("parameters") or ()),
                      role=t.get("role") if isinstance(t.get("role"), str) else None)
             for t in ready.get("tools") or ()]
    metadata = ready.get("metadata")
    return tools, metadata if isinstance(metadata, dict) else None
