"""The python agent worker: the process a `type: python` (or framework) agent runs in, apart from the engine.

It hosts what used to run in the engine's own process: the in-process transport (the agent imported and called,
sync agents on a thread), the tool wrappers (ToolPatcher) and the httpx/requests interception, and the LLM
runtime's cassette. The engine sends one frame per request on one pipe and reads the answer on another
(engine.wire); each reply carries the case's observations (fault hits, call counts, tool calls, LLM call records,
notes, a machinery error) for the engine to merge into its own CaseContext.

A sync agent is called on the main thread, one request at a time. An async agent is served by an event loop that
runs every request it is sent as a task of its own (`serve`), so one worker serves several cases at once, each
with its own CaseContext in its task's `current_case`; replies name the request they answer (`id`), and while
requests are in flight the worker says it is alive (`beat`) so the engine can tell a blocked loop from a slow call.

Anything the agent raises — SystemExit and KeyboardInterrupt included — becomes the case's error, and the worker
carries on. What it cannot catch (os._exit, a segfault, a hung call) ends the process; the engine records the
error on the case and starts a new worker. Started by engine/worker/boot.py; never imported by the engine.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

# Imported before the agent (worker/boot.py then hands sys.path to the agent's packages), so they are ours; in the
# zygote, once for every worker. Only what every worker needs to call `handle(text)`: the config's pydantic models,
# the faults and the tool wrappers are imported when an agent needs them (an extension's agent type, a fault, a
# tool, an HTTP library), so a worker is ready in a fraction of the time (a worker's imports are on every run's
# critical path: docs/performance.md).
from khaos_action.engine.agent_tools import imported_tools, named_roles
from khaos_action.engine.chaos.intercept import http_interception
from khaos_action.engine.context import CaseContext, Hits, current_case, serving
from khaos_action.engine.timely_loop import timely_loop
from khaos_action.engine.transport.base import AgentCallError, answered
from khaos_action.engine.transport.factory import build_transport
from khaos_action.engine.wire import read_frame, reply_frame, write_frame
from khaos_action.engine.worker.child_setup import ToolWrappers, llm_runtime, read_agent
from khaos_action.engine.worker.reports import Reports
from khaos_action.engine.worker.serve import Lanes
from khaos_action.extensions import Extension, import_extension
from khaos_action.messages import AgentRequest

if TYPE_CHECKING:
    from khaos_action.config.fault_entries import CaseFault


class Worker:
    def __init__(self, setup: dict[str, Any]) -> None:
        for module, root in setup.get("extensions") or ():  # they register types, faults: before the agent is read
            import_extension(Extension(module, root))
        self.agent = read_agent(setup["agent"])
        self.base_dir = Path(setup["base_dir"])
        self.llm_setup = setup.get("llm") or {}
        self.beat_s = float(setup.get("beat_s") or 1.0)
        self.lanes = int(setup.get("lanes") or 0)
        """Requests an async agent's worker runs at once (0: no limit); more wait for a lane."""
        self.loop = timely_loop()
        asyncio.set_event_loop(self.loop)
        self.stack = ExitStack()
        self.inner: Any = None
        self.patcher: Any = None
        self.traffic: Any = None
        self.runtime: Any = None
        self.contexts: dict[str, CaseContext] = {}
        """The cases this worker serves, by case id (one at a time for a sync agent)."""
        self.faults: dict[str, CaseFault] = {}
        """Fault entries by their stable id (a digest of the entry), validated once per worker, not once per case."""
        self._told: tuple[Any, ...] = ()
        self.reports = Reports(self.loop)
        """What cases observe, sent as it happens (engine/worker/reports.py)."""

    @property
    def concurrent(self) -> bool:
        """An async agent: requests are served concurrently, each in a task of its own."""
        return not self.inner.calls_sync

    def start(self) -> dict[str, Any]:
        """Import the agent, wrap its tools, intercept HTTP; the answer tells the engine what was found."""
        agent = self.agent
        self.inner = build_transport(agent, base_dir=self.base_dir, concurrency=1)
        self.loop.run_until_complete(self.inner.start())
        tools, metadata = imported_tools(agent.type, agent.entry, agent.tool_refs(), self.base_dir,
                                         agent.tool_registry)
        tools = named_roles(tools, agent)
        self.patcher = ToolWrappers(agent.tool_refs(), agent.tool_registry, self.base_dir,
                                    self.inner.tool_callables)
        self.stack.enter_context(self.patcher)
        self.traffic = self.stack.enter_context(http_interception())
        self.runtime = llm_runtime(self.llm_setup)
        return {"op": "ready", "tools": [asdict(t) for t in tools], "metadata": metadata,
                "tool_names": list(self.patcher.tool_names), "concurrent": self.concurrent}

    # ---- one request at a time (sync agents) ------------------------------------------------------------------------
    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if op == "invoke":
            return self.invoke(request)
        if op == "reset":
            return {"op": "done", "id": request.get("id"), "error": self._run(self.inner.reset())}
        return {"op": "error", "id": request.get("id"), "error": f"unknown request {op!r}"}

    def invoke(self, request: dict[str, Any]) -> dict[str, Any]:
        ctx = self.case(request)
        message = AgentRequest.of(request.get("payload") or {}, request.get("meta"))
        token = current_case.set(ctx)
        try:
            reply: dict[str, Any] = {}
            if self.inner.calls_sync:
                with serving(ctx):  # threads the agent starts without the context serve this case too
                    error = self._call(lambda: reply.update(payload=reply_frame(answered(self.inner.send_sync(
                        message, self.loop.run_until_complete)))))
            else:
                error = self._call(lambda: self.loop.run_until_complete(self._send(message, reply)))
        finally:
            current_case.reset(token)
        return self.answer(request, ctx, reply.get("payload"), error)

    # ---- several requests at once (async agents) --------------------------------------------------------------------
    def serve(self, read_fd: int, write_fd: int) -> None:
        """Serve requests until the engine closes the pipe, each in a task of its own (engine/worker/serve.py)."""
        lanes = Lanes(self, self.lanes)
        self.reports.loop_thread = threading.get_ident()

        def emit(frame: dict[str, Any]) -> None:
            if lanes.writer is not None:
                lanes.writer.send_now(frame)

        self.reports.emit = emit
        lanes.serve(read_fd, write_fd)

    # ---- shared ---------------------------------------------------------------------------------------------------
    def case(self, request: dict[str, Any]) -> CaseContext | None:
        """The request's case context: built from its setup (the case's first request to this worker), else the one
        built before; None outside a case."""
        case = request.get("case")
        setup = request.get("setup")
        if setup is not None:
            if not self.concurrent:
                self.contexts.clear()  # one case at a time: the previous case has ended
            ctx = self.contexts[str(case)] = self._context(setup)
            return ctx
        return self.contexts.get(str(case)) if case is not None else None

    def answer(self, request: dict[str, Any], ctx: CaseContext | None, payload: Any,
                error: str | None) -> dict[str, Any]:
        """The reply: the agent's answer, the case's observations, and what the worker learnt about the agent and
        its traffic (only when it changed since the last reply: the engine keeps the last it was told)."""
        answer: dict[str, Any] = {"op": "reply", "id": request.get("id"), "payload": payload, "error": error}
        if error is not None and self.inner.spoiled:
            answer["retire"] = True  # the next case gets a worker that imports the agent afresh
        if ctx is not None and (state := self.reports.state(ctx)):
            answer["state"] = state
        self._news(answer)
        return answer

    def _news(self, answer: dict[str, Any]) -> None:
        """What the worker learnt about the agent (its tools, those reached) and its traffic (clients, requests seen,
        the cassette's tally), added to the answer when it changed since the engine was last told."""
        traffic = self.traffic
        cassette = self.runtime.cassette if self.runtime is not None else None
        told = (len(self.patcher.tool_names), len(self.patcher.reached), len(traffic.clients),
                sum(traffic.seen.values()), (cassette.hits, cassette.misses, cassette.recorded,
                                             len(cassette.missed)) if cassette is not None else None)
        if told == self._told:
            return
        self._told = told
        answer.update(tool_names=list(self.patcher.tool_names), reached=sorted(self.patcher.reached),
                      traffic={"clients": list(traffic.clients),
                               "seen": [[*key, count] for key, count in traffic.seen.items()]})
        if cassette is not None:
            answer["cassette"] = {"hits": cassette.hits, "misses": cassette.misses,
                                  "recorded": cassette.recorded, "missed": list(cassette.missed)}

    async def _send(self, message: AgentRequest, out: dict[str, Any]) -> None:
        out["payload"] = reply_frame(answered(await self.inner.send(message)))

    def _run(self, coroutine: Any) -> str | None:
        return self._call(lambda: self.loop.run_until_complete(coroutine))

    def _call(self, fn: Any) -> str | None:
        """Run one request to its end; whatever the agent raised (BaseException: SystemExit, KeyboardInterrupt)
        becomes an error string, and the worker goes on."""
        try:
            fn()
        except AgentCallError as exc:
            return str(exc)
        except BaseException as exc:  # noqa: BLE001 - the agent's SystemExit/KeyboardInterrupt are the case's error
            return f"agent raised {type(exc).__name__}: {exc}"
        return None

    def _context(self, setup: dict[str, Any]) -> CaseContext:
        from khaos_action.engine.runner import NO_FAULTS, case_rng

        key = str(setup["case_id"])
        seed = int(setup.get("seed") or 0)
        ctx = CaseContext(case_id=key, rng=case_rng(seed, key) if setup.get("faults") else NO_FAULTS,
                          injections=list(setup.get("injections") or ()), seed=seed,
                          contain=tuple(str(h) for h in setup.get("contain") or ()))
        if setup.get("tool_responses"):
            _recorded(ctx, setup["tool_responses"])
        if setup.get("faults"):
            from khaos_action.engine.chaos.plan import bind_faults

            ctx.faults = bind_faults([self._fault(entry) for entry in setup["faults"]], ctx.rng)
        ctx.llm = self.runtime
        ctx.hits = Hits(ctx)
        ctx.on_change = lambda: self.reports.changed(ctx)
        return ctx

    def _fault(self, entry: dict[str, Any]) -> CaseFault:
        """A plain fault entry from the pipe, parsed by the registry the first time this worker sees its id (the
        engine validated it when the config loaded; cases share a handful of entries)."""
        known = self.faults.get(str(entry.get("id")))
        if known is None:
            from khaos_action.config.fault_entries import CaseFault
            from khaos_action.faults.registry import validate_fault

            bound = validate_fault(entry)
            params = {k: v for k, v in entry.items() if k not in ("id", "target", "mode")}
            known = CaseFault(id=str(entry.get("id")), target=str(entry.get("target")), mode=str(entry.get("mode")),
                              params=params, bound=bound)
            if entry.get("id"):
                self.faults[known.id] = known
        return known


def _recorded(ctx: CaseContext, tool_responses: list[Any]) -> None:
    """A replay case's recorded tool replies, back into the models the engine process holds (the pipe carries their
    JSON, engine/wire.py)."""
    from khaos_action.replay.sessions import RecordedTools, ToolResponse

    ctx.tool_responses = [ToolResponse.model_validate(r) for r in tool_responses]
    ctx.recorded = RecordedTools(ctx.tool_responses)


def main(read_fd: int, write_fd: int) -> int:
    setup = read_frame(read_fd)
    if setup is None:
        return 0
    try:
        worker = Worker(setup)
        ready = worker.start()
    except BaseException as exc:  # noqa: BLE001 - an import that fails (or exits) is reported, not a crash
        from khaos_action.errors import KhaosError

        message = str(exc) if isinstance(exc, KhaosError) else f"{type(exc).__name__}: {exc}"
        import traceback

        write_frame(write_fd, {"op": "failed", "id": setup.get("id"), "error": message, "kind": type(exc).__name__,
                               "traceback": traceback.format_exc()[-20000:]})
        return 1
    write_frame(write_fd, {**ready, "id": setup.get("id")})
    if worker.concurrent:
        worker.serve(read_fd, write_fd)
        return 0
    # A sync agent: replies from this thread, reports from whichever thread a tool or an LLM call ran on.
    lock = threading.Lock()

    def emit(frame: dict[str, Any]) -> None:
        with lock:
            write_frame(write_fd, frame)

    worker.reports.emit = emit
    while (request := read_frame(read_fd)) is not None:
        emit(worker.handle(request))
    return 0


def zygote(ctl_fd: int) -> NoReturn:
    """Fork workers on request: the engine sends `fork` with three descriptors (request pipe, reply pipe, output)
    over a SOCK_SEQPACKET socket; we answer `pid N` and, when a worker ends, `exit N STATUS`. Our modules are
    imported once here, before any agent code, and shared copy-on-write by every worker; we hold no threads and
    no event loop, so forking is safe. A worker's end wakes us through its pidfd (Linux 5.3+); where there is
    none, we look every 50 ms."""
    import select
    import socket

    ctl = socket.socket(fileno=ctl_fd)
    children: dict[int, int | None] = {}
    """Worker pid -> its pidfd (readable once it has ended), or None: polled."""
    while True:
        watched = [fd for fd in children.values() if fd is not None]
        polled = any(fd is None for fd in children.values())
        readable, _, _ = select.select([ctl, *watched], [], [], 0.05 if polled else None)
        if ctl in readable and not _serve(ctl, children, socket.recv_fds(ctl, 64, 3)):
            break  # the engine closed the socket: its run is over
        _reap(ctl, children, readable)
    # Out without the interpreter's teardown of every module we preloaded (the engine would wait for it at the
    # end of every run): nothing of ours needs finalising.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _serve(ctl: Any, children: dict[int, int | None], received: tuple[bytes, list[int], int, Any]) -> bool:
    """One message from the engine: `fork` with its three descriptors starts a worker (answered `pid N`). False
    when the engine closed the socket."""
    message, fds, _, _ = received
    if not message:
        return False
    if message == b"fork" and len(fds) == 3:
        pid = _fork_worker(ctl, *fds, siblings=[fd for fd in children.values() if fd is not None])
        children[pid] = _pidfd(pid)
        ctl.send(f"pid {pid}".encode())
    for fd in fds:
        os.close(fd)
    return True


def _reap(ctl: Any, children: dict[int, int | None], readable: list[Any]) -> None:
    """Each worker that ended (its pidfd readable, or polled) is reaped and reported: `exit N STATUS`."""
    for pid, fd in list(children.items()):
        if fd is not None and fd not in readable:
            continue
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            del children[pid]
            if fd is not None:
                os.close(fd)
            ctl.send(f"exit {pid} {os.waitstatus_to_exitcode(status)}".encode())


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux, or a kernel before 5.3
        return None


def _fork_worker(ctl: Any, read_fd: int, write_fd: int, output_fd: int, *, siblings: list[int]) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:  # the worker: its own session (the engine kills its process group), its own output pipe
        ctl.close()
        for fd in siblings:  # the zygote's pidfds of the other workers
            os.close(fd)
        os.setsid()
        os.dup2(output_fd, 1)
        os.dup2(output_fd, 2)
        code = main(read_fd, write_fd)
    except BaseException:  # noqa: BLE001 - a bug of ours in the worker: say what, on the worker's stderr
        import traceback

        traceback.print_exc()
        sys.stderr.flush()
    finally:
        os._exit(code)


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2])))
