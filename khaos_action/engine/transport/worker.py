"""The python transport as the engine sees it: `type: python` and framework agents run in worker processes
(engine/worker_child.py), never in the action's own process.

Each worker serves one case at a time, for all of the case's turns (the engine enters `case_scope` around them),
so a hung call or a crash is attributed to exactly one case. Workers start lazily up to `concurrency`; an idle
worker is reused most-recently-used first, so cases that run one after another see the same agent state, as they
did in-process. A worker that dies (os._exit, a segfault, an rlimit) or has to be killed (the engine's timeout
cancelled a call) fails only its case, with the exit and the last lines of its stderr; the next case gets a new
worker. Replies are JSON frames (engine/wire.py); the case's observations they carry are merged into the engine's
CaseContext when the case ends, and LLM records are added to the run's runtime (meter, telemetry, cassette stats).

Nothing the agent prints reaches our stdout: the worker's stdout and stderr are drained into a bounded tail that
error messages quote (inert text, never a workflow command).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import khaos_action
from khaos_action.config.agents import InProcessAgent
from khaos_action.engine import sandbox
from khaos_action.engine.chaos.intercept import Traffic
from khaos_action.engine.context import CaseContext, current_case
from khaos_action.engine.transport.base import AgentCallError, OutputTail, describe_exit, settle
from khaos_action.engine.transport.preload import http_preload
from khaos_action.engine.transport.zygote import Zygote
from khaos_action.engine.wire import FrameReader, FrameWriter, WireError, case_setup, merge_state
from khaos_action.errors import AgentError, ConfigError
from khaos_action.extensions import Extension
from khaos_action.messages import TransportMessage
from khaos_action.tool_info import ToolInfo

PACKAGE_ROOT = str(Path(khaos_action.__file__).resolve().parent.parent)
BOOT = str(Path(__file__).resolve().parent.parent / "worker_boot.py")
PRELOAD = ("khaos_action.engine.transport.python",)
"""Imported once in the zygote: every python worker builds its transport. The HTTP libraries the interception
patches are added by `http_preload` (engine/transport/preload.py) unless the agent provably uses none: aiohttp's
import (attrs classes compiled, two SSL contexts loading the CA bundle) cost each of 32 workers ~0.3 s of CPU at
every run's start when each imported it itself (issue 19)."""
PYTHON_ENV = "KHAOS_AGENT_PYTHON"
"""The interpreter python agents run with when `agent.python` is not set (the entrypoint sets it to the venv the
`install` command populated)."""


LANES = 16
"""Cases one worker serves at once when the agent is async (a sync agent's worker serves one). At concurrency 32,
two workers instead of 32: one event loop turn and one pipe wake-up serve several cases, and 2 cores do not switch
between 33 processes for every case (issue 19: 0.5 ms of worker CPU per case with a worker per case)."""


class WorkerTraceback(Exception):
    """The traceback of a failure inside the worker, as text (chained to the error it explains)."""


class WorkerDied(AgentCallError):
    """The worker process ended (or was killed) during a request. `shared`: it served other cases too, so the case
    that receives this may not be the one that ended it."""

    def __init__(self, message: str, *, shared: bool = False) -> None:
        super().__init__(message)
        self.shared = shared


class WorkerProcess:
    """One started worker: its process, the two pipe ends we hold, the requests waiting for their reply, and the
    tail of what it printed."""

    def __init__(self, process: Any, drains: list[asyncio.Task[None]], output: OutputTail) -> None:
        self.process, self.drains, self.output = process, drains, output
        self.writer: FrameWriter | None = None
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.capacity = 1
        """Cases it serves at once (LANES for an async agent)."""
        self.load = 0
        """Cases holding it now."""
        self.cases: set[str] = set()
        """Cases whose context it holds (their setup was sent with their first request)."""
        self.ended: list[str] = []
        """Cases that ended since its last request: the next one tells it to drop their contexts."""
        self.retire = False
        """A worker of one case (a re-run after a shared worker died): closed when that case ends."""
        self.cassette: dict[str, Any] = {}
        self.traffic: dict[tuple[str, ...], int] = {}
        self.dead = False
        self.gone: WorkerDied | None = None
        self.last_seen = 0.0
        self._seq = 0
        self._tasks: list[asyncio.Task[None]] = []

    async def request(self, obj: dict[str, Any]) -> dict[str, Any]:
        if self.dead or self.writer is None:
            raise self.gone or WorkerDied("the agent worker is gone", shared=self.capacity > 1)
        loop = asyncio.get_running_loop()
        self._seq += 1
        key = obj["id"] = self._seq
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        if not self.pending:
            self.last_seen = loop.time()  # the stall clock starts with the first request in flight
        self.pending[key] = future
        try:
            self.writer.send(obj)
        except WireError as exc:
            del self.pending[key]
            raise AgentCallError(f"the request could not be sent to the agent's worker ({exc})") from None
        try:
            return await future
        except asyncio.CancelledError:  # the engine's timeout, or the run is stopping
            self.pending.pop(key, None)
            if self.capacity == 1:
                self.kill()  # a hung call of a worker's only case can only be stopped with its process
            elif not self.dead:
                self.writer.send({"op": "cancel", "id": key})  # the others go on; a blocked loop stops beating
            raise

    def frame(self, obj: dict[str, Any]) -> None:
        """A frame from the worker: a reply wakes the request it answers; a beat only says the worker is alive."""
        self.last_seen = asyncio.get_running_loop().time()
        future = self.pending.pop(obj.get("id"), None)  # type: ignore[arg-type]
        if future is not None and not future.done():
            future.set_result(obj)

    def end(self, error: WireError | None) -> None:
        """The reply pipe ended (the process died or was killed) or carried a bad frame."""
        self.dead = True
        if self.capacity > 1:  # its cases are re-run elsewhere at once; how it ended is no case's error
            self._fail(WorkerDied("the agent's shared worker process ended", shared=True))
        task = asyncio.get_running_loop().create_task(self._describe(error))
        self._tasks.append(task)

    async def _describe(self, error: WireError | None) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.process.wait(), 2.0)
        if self.process.returncode is None:
            self.kill()
        await settle(self.drains)
        what = _inert(describe_exit(self.process.returncode, self.output))
        if error is not None:
            what = f"sent a bad frame ({error})"
        self._fail(WorkerDied(f"the agent's worker process {what}", shared=self.capacity > 1))

    def _fail(self, died: WorkerDied) -> None:
        self.gone = self.gone or died
        pending, self.pending = self.pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(died)

    async def watch(self, stall_s: float) -> None:
        """Kill a shared worker whose loop stopped answering (no reply nor beat for `stall_s` while requests are in
        flight): a sync call inside the async agent is blocking every case it serves."""
        loop = asyncio.get_running_loop()
        while not self.dead:
            await asyncio.sleep(stall_s / 4)
            if self.pending and loop.time() - self.last_seen > stall_s:
                self.kill()

    def start_watch(self, stall_s: float) -> None:
        self._tasks.append(asyncio.get_running_loop().create_task(self.watch(stall_s)))

    def kill(self) -> None:
        self.dead = True
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:  # a forked worker killed before its setsid: no group of its own yet
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.process.pid, signal.SIGKILL)
        except PermissionError:
            pass
        if self.writer is not None:
            self.writer.close()

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()  # end of file: the worker returns from its loop
        try:
            await asyncio.wait_for(self.process.wait(), 2.0)
        except asyncio.TimeoutError:
            self.kill()
            await self.process.wait()
        await settle(self.drains)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


class Lease:
    """A worker held by one case, and what its replies said about the case so far."""

    def __init__(self, worker: WorkerProcess) -> None:
        self.worker = worker
        self.state: dict[str, Any] | None = None


class WorkerTransport:
    def __init__(self, agent: InProcessAgent, *, base_dir: Path, environ: Mapping[str, str], concurrency: int = 8,
                 python: str | None = None, env: Mapping[str, str] | None = None, llm: dict[str, Any] | None = None,
                 limits: sandbox.Limits | None = None, identity: sandbox.Identity | None = None,
                 zygote: bool = True, extensions: Sequence[Extension] = (), lanes: int = LANES) -> None:
        self.agent = agent
        self.base_dir = Path(base_dir)
        self.concurrency = max(1, concurrency)
        self.lanes = max(1, min(lanes, self.concurrency))
        self.python = python or sys.executable
        self.environ = environ
        """The run's environment: the workers' clean environment is made from it (engine/sandbox.py)."""
        self.env = dict(env or {})
        self.llm = llm or {}
        self.limits = limits
        self.identity = identity
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
        self._slots = asyncio.Semaphore(self.concurrency)
        """One per case in flight, so at most `concurrency` cases (and workers) ever live."""
        self._closing: set[asyncio.Task[None]] = set()
        self.zygote = zygote
        """Fork workers from a template process (the imports paid once); False: a fresh interpreter each."""
        self._zygote: Zygote | None = None
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

    async def send(self, message: TransportMessage) -> TransportMessage:
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
        zygote, self._zygote = self._zygote, None
        if zygote is not None:
            await zygote.close()

    def case_scope(self, ctx: CaseContext) -> _Held:
        """A worker held for all of the case's turns (an async context manager)."""
        return _Held(self, ctx, scope=True)

    # ---- workers ----------------------------------------------------------------------------------------------------
    def _end_case(self, ctx: CaseContext | None, lease: Lease) -> None:
        if ctx is not None:
            self._bank(ctx, lease)
            if ctx.case_id in lease.worker.cases:
                lease.worker.cases.discard(ctx.case_id)
                lease.worker.ended.append(ctx.case_id)
        self._release(lease.worker)

    def _bank(self, ctx: CaseContext, lease: Lease) -> None:
        """Merge what the lease's worker said about the case into the engine's context."""
        if lease.state is not None:
            for record in merge_state(ctx, lease.state):
                _meter(ctx, record)
            lease.state = None

    async def _acquire(self) -> WorkerProcess:
        await self._slots.acquire()
        try:
            return await self._worker()
        except BaseException:
            self._slots.release()
            raise

    async def _worker(self) -> WorkerProcess:
        """A live worker with room for one more case, the most recently released first (cases that run one after
        another see the same agent state); one is started when none has room."""
        while True:
            for worker in reversed(self._workers):
                if not worker.dead and worker.load < worker.capacity:
                    worker.load += 1
                    return worker
            if self._growing is None:
                self._growing = asyncio.get_running_loop().create_task(self._grow())
            await asyncio.shield(self._growing)

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
        elif self._workers and self._workers[-1] is not worker and worker in self._workers:
            self._workers.remove(worker)
            self._workers.append(worker)

    def _drop(self, worker: WorkerProcess) -> None:
        if worker in self._workers:
            self._workers.remove(worker)
        if worker.load <= 0:
            task = asyncio.get_running_loop().create_task(worker.close())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    async def _spawn(self, *, alone: bool = False) -> WorkerProcess:
        process, parent_read, parent_write = await self._fork() or await self._exec()
        loop = asyncio.get_running_loop()
        output = OutputTail()
        drains = [asyncio.create_task(output.drain(process.stdout))]
        worker = WorkerProcess(process, drains, output)
        await loop.connect_read_pipe(lambda: FrameReader(worker.frame, worker.end), os.fdopen(parent_read, "rb", 0))
        pipe, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(parent_write, "wb", 0))
        worker.writer = FrameWriter(pipe, plain=True)
        self.started += 1
        try:
            ready = await worker.request(dict(self._setup))
        except WorkerDied as exc:
            raise AgentError(f"the python agent could not start: {exc}") from None
        if ready.get("op") != "ready":
            await worker.close()
            error = str(ready.get("error") or "the worker did not say why")
            # Chained, so `--debug` shows where the agent's import failed (quoted: it is the agent's text).
            remote = WorkerTraceback(_inert("the worker's traceback:\n" + str(ready.get("traceback") or "")))
            raise (ConfigError if ready.get("kind") == "ConfigError" else AgentError)(error) from remote
        if ready.get("concurrent") and not alone and self.lanes > 1:
            worker.capacity = self.lanes
            worker.start_watch(self.stall_s)
        worker.retire = alone
        self._note_tools(ready)
        if self.seen is None:
            tools = [ToolInfo(name=str(t.get("name")), description=str(t.get("description") or ""),
                              parameters=tuple(t.get("parameters") or ()),
                              role=t.get("role") if isinstance(t.get("role"), str) else None)
                     for t in ready.get("tools") or ()]
            metadata = ready.get("metadata")
            self.seen = (tools, metadata if isinstance(metadata, dict) else None)
        return worker

    def _command(self) -> tuple[list[str], dict[str, str], dict[str, Any]]:
        """The boot command's prefix and paths, the clean environment and the sandbox's spawn arguments."""
        env = sandbox.env_for(sandbox.clean_env(environ=self.environ, configured=self.env,
                                                pass_env=self.agent.pass_env), self.identity)
        env.setdefault("PYTHONUNBUFFERED", "1")
        env.setdefault("PYTHONDONTWRITEBYTECODE", "1")  # no __pycache__ of the agent's files left in the workspace
        ours = self.python == sys.executable
        paths = {"front": [PACKAGE_ROOT], "back": [] if ours else _our_site_packages(),
                 # another interpreter's libraries are the agent's
                 "preload": [*http_preload(self.agent.entry, self.base_dir), *PRELOAD] if ours else []}
        return [self.python, BOOT, json.dumps(paths)], env, sandbox.spawn_kwargs(limits=self.limits,
                                                                                  identity=self.identity)

    async def _fork(self) -> tuple[Any, int, int] | None:
        """A worker forked by the zygote (started on first use); None when there is none to fork from."""
        if self._zygote is None and self.zygote:
            self.zygote = False  # one attempt per run
            (python, boot, paths), env, spawn = self._command()
            try:
                self._zygote = await Zygote.start([python, boot, "zygote", "{ctl}", paths], env=env,
                                                  cwd=str(self.base_dir), **spawn)
            except OSError:
                return None
        if self._zygote is None or not self._zygote.alive:
            return None
        try:
            return await self._zygote.fork()
        except (OSError, asyncio.TimeoutError):
            return None

    async def _exec(self) -> tuple[Any, int, int]:
        """A worker started as a fresh interpreter."""
        child_read, parent_write = os.pipe()
        parent_read, child_write = os.pipe()
        (python, boot, paths), env, spawn = self._command()
        try:
            process = await asyncio.create_subprocess_exec(
                python, boot, str(child_read), str(child_write), paths,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                pass_fds=(child_read, child_write), env=env, cwd=str(self.base_dir), **spawn)
        except OSError as exc:
            for fd in (parent_write, parent_read):
                os.close(fd)
            raise AgentError(f"cannot start the python agent worker with {self.python!r}: {exc}. Set agent.python "
                             "to an existing interpreter") from None
        finally:
            os.close(child_read)
            os.close(child_write)
        return process, parent_read, parent_write

    async def _invoke(self, lease: Lease, message: TransportMessage) -> TransportMessage:
        ctx = current_case.get()
        if lease.worker.dead:  # died during an earlier turn of this case: the case goes on with another worker
            await self._move(lease, ctx, alone=False)
        try:
            answer = await self._ask(lease, message, ctx)
        except WorkerDied as exc:
            if not exc.shared:
                raise
            # A shared worker ended (or stalled) with this call in flight, maybe for another case's doing: the call
            # runs again on a worker of its own, so only a case that ends that one too has it as its error.
            await self._move(lease, ctx, alone=True)
            answer = await self._ask(lease, message, ctx)
        if answer.get("error"):
            raise AgentCallError(str(answer["error"]))
        payload = answer.get("payload")
        if not isinstance(payload, dict):
            raise AgentCallError("the agent worker sent no reply")
        return TransportMessage("response", payload, dict(message.metadata))

    async def _move(self, lease: Lease, ctx: CaseContext | None, *, alone: bool) -> None:
        """Give the lease another worker: a new one of its own (`alone`), else one of the pool's."""
        if ctx is not None:
            self._bank(ctx, lease)  # what the old worker said about the case's earlier turns
        old = lease.worker
        self._leave(old)
        if alone:
            worker = await self._spawn(alone=True)
            worker.load += 1
        else:
            worker = await self._worker()
        lease.worker = worker

    async def _ask(self, lease: Lease, message: TransportMessage, ctx: CaseContext | None) -> dict[str, Any]:
        worker = lease.worker
        request: dict[str, Any] = {"op": "invoke", "payload": message.payload, "meta": message.metadata,
                                   "case": ctx.case_id if ctx is not None else None}
        if ctx is not None and ctx.case_id not in worker.cases:
            request["setup"] = case_setup(ctx)
            worker.cases.add(ctx.case_id)
        if worker.ended:
            request["drop"], worker.ended = worker.ended, []
        answer = await worker.request(request)
        self._note_tools(answer)
        if isinstance(answer.get("traffic"), dict):
            _note_traffic(self.traffic, worker, answer["traffic"])
        if isinstance(answer.get("state"), dict):
            lease.state = answer["state"]
        if isinstance(answer.get("cassette"), dict):
            _cassette_delta(ctx, worker, answer["cassette"])
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


def _inert(text: str) -> str:
    """The agent's output quoted so no line of it can start a workflow command (`::error ...`) where shown."""
    head, *rest = text.splitlines() or [""]
    return "\n".join([head, *(f"> {line}" for line in rest)])


def _meter(ctx: CaseContext, record: dict[str, Any]) -> None:
    """Count one of the worker's LLM calls in the run's runtime (telemetry, budget meter)."""
    finished = getattr(ctx.llm, "finished", None)
    if finished is None:
        return
    live = record.get("source") == "live"
    tokens = int(record.get("input_tokens") or 0) + int(record.get("output_tokens") or 0)
    cost = record.get("cost_usd")
    finished(record, tokens if live else None, cost if isinstance(cost, (int, float)) else None)


def _note_traffic(traffic: Traffic, worker: WorkerProcess, seen: dict[str, Any]) -> None:
    """Add what the worker's interception counted since its last reply to the run's Traffic."""
    for client in seen.get("clients") or ():
        if isinstance(client, str) and client not in traffic.clients:
            traffic.clients.append(client)
    for row in seen.get("seen") or ():
        if not isinstance(row, list) or len(row) != 5:
            continue
        key, count = tuple(str(part) for part in row[:4]), int(row[4])
        delta = count - worker.traffic.get(key, 0)
        worker.traffic[key] = count
        if delta > 0 and (key in traffic.seen or len(traffic.seen) < 200):
            traffic.seen[key] += delta


def _cassette_delta(ctx: CaseContext | None, worker: WorkerProcess, stats: dict[str, Any]) -> None:
    """Add what the worker's cassette counted since its last reply to the run's cassette."""
    cassette = getattr(getattr(ctx, "llm", None), "cassette", None)
    before, worker.cassette = worker.cassette, stats
    if cassette is None:
        return
    for name in ("hits", "misses", "recorded"):
        delta = int(stats.get(name) or 0) - int(before.get(name) or 0)
        if delta > 0:
            setattr(cassette, name, getattr(cassette, name) + delta)
    for missed in list(stats.get("missed") or ())[len(before.get("missed") or ()):]:
        if len(cassette.missed) < 50:
            cassette.missed.append(str(missed))


def _our_site_packages() -> list[str]:
    """Where our dependencies live, for an interpreter that is not ours (worker_boot.py puts them last)."""
    return [p for p in sys.path if p.rstrip("/").endswith(("site-packages", "dist-packages")) and os.path.isdir(p)]


def worker_python(agent: InProcessAgent, environ: Mapping[str, str]) -> str | None:
    """The interpreter for the worker: agent.python, else KHAOS_AGENT_PYTHON in the run's environment (the action's
    `install` venv), else ours (None)."""
    chosen = agent.python or environ.get(PYTHON_ENV, "").strip() or None
    return chosen
