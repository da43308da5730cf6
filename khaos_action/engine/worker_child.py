"""The python agent worker: the process a `type: python` (or framework) agent runs in, apart from the engine.

It hosts what used to run in the engine's own process: the in-process transport (the agent imported and called,
sync agents on a thread), the tool wrappers (ToolPatcher) and the httpx/requests interception, and the LLM
runtime's cassette. The engine sends one frame per request on one pipe and reads the answer on another
(engine.wire); each reply carries the case's observations (fault hits, call counts, tool calls, LLM call records,
notes, a machinery error) for the engine to merge into its own CaseContext.

Anything the agent raises — SystemExit and KeyboardInterrupt included — becomes the case's error, and the worker
carries on. What it cannot catch (os._exit, a segfault, a hung call) ends the process; the engine records the
error on the case and starts a new worker. Started by engine/worker_boot.py; never imported by the engine.
"""

from __future__ import annotations

import asyncio
import os
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

# Imported before the agent (worker_boot.py then hands sys.path to the agent's packages), so they are ours.
from khaos_action.config.agents import InProcessAgent
from khaos_action.config.models import AgentConfig
from khaos_action.engine.agent_tools import agent_tools
from khaos_action.engine.chaos.intercept import http_interception
from khaos_action.engine.chaos.plan import bind_faults
from khaos_action.engine.chaos.tools import ToolPatcher
from khaos_action.engine.context import CaseContext, current_case
from khaos_action.engine.llm_calls import LlmRuntime
from khaos_action.engine.runner import case_rng
from khaos_action.engine.transport.base import AgentCallError
from khaos_action.engine.transport.factory import build_transport
from khaos_action.engine.wire import case_state, read_frame, write_frame
from khaos_action.extensions import Extension, import_extension
from khaos_action.llm.cassette import Cassette
from khaos_action.llm.pricing import Price
from khaos_action.messages import TransportMessage


class Worker:
    def __init__(self, setup: dict[str, Any]) -> None:
        for module, root in setup.get("extensions") or ():  # they register types, faults: before the agent is read
            import_extension(Extension(module, root))
        agent = AgentConfig.model_validate(setup["agent"])
        if not isinstance(agent, InProcessAgent):
            raise TypeError(f"the python worker runs in-process agents; a {agent.type} agent is not one")
        self.agent = agent
        self.base_dir = Path(setup["base_dir"])
        self.llm_setup = setup.get("llm") or {}
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        self.stack = ExitStack()
        self.inner: Any = None
        self.patcher: Any = None
        self.traffic: Any = None
        self.runtime: Any = None
        self.ctx: CaseContext | None = None

    def start(self) -> dict[str, Any]:
        """Import the agent, wrap its tools, intercept HTTP; the answer tells the engine what was found."""
        from dataclasses import asdict


        self.inner = build_transport(self.agent, base_dir=self.base_dir, concurrency=1)
        self.loop.run_until_complete(self.inner.start())
        tools, metadata = agent_tools(self.agent, self.base_dir, import_code=True)
        self.patcher = self.stack.enter_context(ToolPatcher(
            self.agent.tool_refs(), self.agent.tool_registry, self.base_dir,
            callables=getattr(self.inner, "tool_callables", ())))
        self.traffic = self.stack.enter_context(http_interception())
        self.runtime = _llm_runtime(self.llm_setup)
        return {"op": "ready", "tools": [asdict(t) for t in tools], "metadata": metadata,
                "tool_names": list(self.patcher.tool_names)}

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if op == "invoke":
            return self.invoke(request)
        if op == "reset":
            return {"op": "done", "error": self._run(self.inner.reset())}
        return {"op": "error", "error": f"unknown request {op!r}"}

    def invoke(self, request: dict[str, Any]) -> dict[str, Any]:
        setup = request.get("setup")
        if setup is not None:
            self.ctx = self._context(setup)
        elif request.get("case") is None:
            self.ctx = None
        message = TransportMessage("invoke", request.get("payload") or {}, request.get("meta") or {})
        token = current_case.set(self.ctx)
        try:
            reply: dict[str, Any] = {}
            if getattr(self.inner, "calls_sync", False):
                error = self._call(lambda: reply.update(payload=self.inner.send_sync(
                    message, self.loop.run_until_complete).payload))
            else:
                error = self._call(lambda: self.loop.run_until_complete(self._send(message, reply)))
        finally:
            current_case.reset(token)
        answer = {"op": "reply", "payload": reply.get("payload"), "error": error,
                  "tool_names": list(self.patcher.tool_names), "reached": sorted(self.patcher.reached),
                  "traffic": {"clients": list(self.traffic.clients),
                              "seen": [[*key, count] for key, count in self.traffic.seen.items()]}}
        if self.ctx is not None:
            answer["state"] = case_state(self.ctx)
        cassette = self.runtime.cassette if self.runtime is not None else None
        if cassette is not None:
            answer["cassette"] = {"hits": cassette.hits, "misses": cassette.misses, "recorded": cassette.recorded,
                                  "missed": list(cassette.missed)}
        return answer

    async def _send(self, message: TransportMessage, out: dict[str, Any]) -> None:
        out["payload"] = (await self.inner.send(message)).payload

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
        key = str(setup["case_id"])
        ctx = CaseContext(case_id=key, rng=case_rng(int(setup.get("seed") or 0), key),
                          injections=list(setup.get("injections") or ()), seed=int(setup.get("seed") or 0))
        if setup.get("tool_responses"):
            from khaos_action.replay.sessions import RecordedTools, ToolResponse

            # Back into the models the engine process holds (the pipe carries their JSON, engine/wire.py).
            ctx.tool_responses = [ToolResponse.model_validate(r) for r in setup["tool_responses"]]
            ctx.recorded = RecordedTools(ctx.tool_responses)
        if setup.get("faults"):  # plain entries from the pipe: the registry parses them back
            ctx.faults = bind_faults(setup["faults"], ctx.rng)
        ctx.llm = self.runtime
        return ctx


class WorkerRuntime(LlmRuntime):
    """An LlmRuntime that keeps no run-wide list: the engine's runtime totals the records the replies carry."""

    def finished(self, record: dict[str, Any], live_tokens: int | None, cost: float | None) -> None:
        return None


def _llm_runtime(setup: dict[str, Any]) -> WorkerRuntime:
    cassette = setup.get("cassette")
    prices = {str(name): Price(float(p[0]), float(p[1])) for name, p in (setup.get("prices") or {}).items()}
    return WorkerRuntime(cassette=Cassette(Path(cassette[0]), cassette[1]) if cassette else None, prices=prices)


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

        write_frame(write_fd, {"op": "failed", "error": message, "kind": type(exc).__name__,
                               "traceback": traceback.format_exc()[-20000:]})
        return 1
    write_frame(write_fd, ready)
    while (request := read_frame(read_fd)) is not None:
        write_frame(write_fd, worker.handle(request))
    return 0


def zygote(ctl_fd: int) -> int:
    """Fork workers on request: the engine sends `fork` with three descriptors (request pipe, reply pipe, output)
    over a SOCK_SEQPACKET socket; we answer `pid N` and, when a worker ends, `exit N STATUS`. Our modules are
    imported once here, before any agent code, and shared copy-on-write by every worker; we hold no threads and
    no event loop, so forking is safe."""
    import select
    import socket

    ctl = socket.socket(fileno=ctl_fd)
    children: set[int] = set()
    while True:
        readable, _, _ = select.select([ctl], [], [], 0.05)
        if readable:
            message, fds, _, _ = socket.recv_fds(ctl, 64, 3)
            if not message:
                break  # the engine closed the socket: its run is over
            if message == b"fork" and len(fds) == 3:
                pid = _fork_worker(ctl, *fds)
                children.add(pid)
                ctl.send(f"pid {pid}".encode())
            for fd in fds:
                os.close(fd)
        for pid in list(children):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                children.discard(pid)
                ctl.send(f"exit {pid} {os.waitstatus_to_exitcode(status)}".encode())
    return 0


def _fork_worker(ctl: Any, read_fd: int, write_fd: int, output_fd: int) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:  # the worker: its own session (the engine kills its process group), its own output pipe
        ctl.close()
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
