"""One python agent worker process as the engine holds it: its pipes, the requests waiting for their reply, its lanes,
how it ended, and the tail of what it printed. The pool of them is engine/worker/pool.py.

An async agent's worker runs up to `lanes` requests at once and takes a few more ahead, which wait in the worker
(engine/worker/serve.py). A request sent ahead is `held`: its case's time limit (context.CallClock) stops until the
worker says it started, so the wait counts neither against the limit nor as latency. When a shared worker dies, each
request in flight fails with WorkerDied saying whether the agent may have started it: only those can have ended it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable
from typing import Any

from khaos_action.engine.context import CallClock
from khaos_action.engine.transport.base import AgentCallError, OutputTail, describe_exit, settle
from khaos_action.engine.wire import FrameWriter, WireError


class WorkerDied(AgentCallError):
    """The worker process ended (or was killed) during a request. `shared`: it served other cases too, so the case
    that receives this may not be the one that ended it; `started`: the request may have been at the agent then
    (False: it was still waiting for a lane, so it cannot have ended the worker)."""

    def __init__(self, message: str, *, shared: bool = False, started: bool = True) -> None:
        super().__init__(message)
        self.shared = shared
        self.started = started


class WorkerProcess:
    def __init__(self, process: Any, drains: list[asyncio.Task[None]], output: OutputTail) -> None:
        self.process, self.drains, self.output = process, drains, output
        self.writer: FrameWriter | None = None
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.lanes = 1
        """Requests it runs at once; the pool's lane budget counts them (`pool_lanes`)."""
        self.capacity = 1
        """Cases it holds at once: its lanes, and for an async agent those sent ahead."""
        self.running = 0
        """Requests in flight that the worker may have started (as far as the replies so far tell)."""
        self.held: dict[int, CallClock] = {}
        """Requests sent ahead, with their case's time limit, until the worker says it started them."""
        self.load = 0
        """Cases holding it now."""
        self.pool_lanes = 0
        """Lanes it takes from the pool's budget (released once it is gone and its cases left it)."""
        self.parent: WorkerProcess | None = None
        """A worker of one case re-run after `parent`, a shared worker, died: it runs on one of the parent's lanes."""
        self.borrowers = 0
        """Workers of one case running on this (dead) worker's lanes."""
        self.cases: set[str] = set()
        """Cases whose context it holds (their setup was sent with their first request)."""
        self.ended: list[str] = []
        """Cases that ended since its last request: the next one tells it to drop their contexts."""
        self.retire = False
        """Closed when its cases end: a worker of one case (a re-run after a shared worker died), or one whose agent
        object a failed turn may have broken (its reply said `retire`)."""
        self.observed: dict[str, dict[str, Any]] = {}
        """Case id -> the latest report of what the case observed during a call still in flight (a fault that fired,
        an LLM call): kept for a case that ends without a reply (its time limit, this process's death)."""
        self.cassette: dict[str, Any] = {}
        self.traffic: dict[tuple[str, ...], int] = {}
        self.dead = False
        self.on_end: Callable[[WorkerProcess], None] | None = None
        """Told when the process is gone (its pool drops it once no case holds it)."""
        self.gone: WorkerDied | None = None
        self.last_seen = 0.0
        self._seq = 0
        self._tasks: list[asyncio.Task[None]] = []

    def share(self, lanes: int, ahead: int) -> None:
        """Serve up to `lanes` cases at once and `ahead` more waiting (an async agent's worker)."""
        self.lanes, self.capacity = lanes, lanes + ahead
        if self.writer is not None:
            # Requests leave together at the end of the loop's turn: one write and one wake-up of the worker for
            # all the cases whose replies arrived together (those sent ahead wait for a lane anyway).
            self.writer.batch = True

    async def request(self, obj: dict[str, Any], clock: CallClock | None = None) -> dict[str, Any]:
        """Send a request and wait for its reply. `clock`: the case's time limit, held if the request waits for a
        lane."""
        writer = self._live_writer()
        loop = asyncio.get_running_loop()
        self._seq += 1
        key = obj["id"] = self._seq
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        if not self.pending:
            self.last_seen = loop.time()  # the stall clock starts with the first request in flight
        ahead = clock is not None and self._lanes_full()
        if ahead:
            obj["held"] = True
        try:
            writer.send(obj)
        except WireError as exc:
            raise AgentCallError(f"the request could not be sent to the agent's worker ({exc})") from None
        self.pending[key] = future
        self._sent(key, clock if ahead else None, clock)
        try:
            return await future
        except asyncio.CancelledError:  # the engine's timeout, or the run is stopping
            self._cancelled(key)
            raise

    def _live_writer(self) -> FrameWriter:
        if self.dead or self.writer is None:
            raise self.gone or WorkerDied("the agent worker is gone", shared=self.capacity > 1)
        return self.writer

    def _lanes_full(self) -> bool:
        """Every lane is running a case and the worker takes more ahead: a new request waits for a lane."""
        return self.running >= self.lanes and self.capacity > self.lanes

    def _sent(self, key: int, held: CallClock | None, clock: CallClock | None) -> None:
        """A request sent ahead (`held`: its case's clock) waits for a lane with its clock held; any other runs."""
        if held is not None:
            self.held[key] = held
            held.hold()
            return
        self.running += 1
        if clock is not None:
            clock.start()  # a call sent ahead to a worker that died, now sent again

    def _cancelled(self, key: int) -> None:
        if self.pending.pop(key, None) is not None:
            self._done(key)
        if self.capacity == 1:
            self.kill()  # a hung call of a worker's only case can only be stopped with its process
        elif not self.dead:  # the others go on; a blocked loop stops beating
            self.writer.send({"op": "cancel", "id": key})  # type: ignore[union-attr]

    def frame(self, obj: dict[str, Any]) -> None:
        """A frame from the worker: a reply wakes the request it answers and may say which requests sent ahead
        started; a beat only says the worker is alive."""
        self.last_seen = asyncio.get_running_loop().time()
        if obj.get("op") == "observed":
            self._observed(obj)
            return
        started = obj.get("started") if obj.get("op") != "started" else obj.get("ids")
        if started and isinstance(started, list):
            self._started(started)
        if obj.get("retire") is True:  # its agent object may be broken by a failed turn: no case after this one
            self.retire = True
        future = self.pending.pop(obj.get("id"), None)  # type: ignore[arg-type]
        if future is not None:
            self._done(obj.get("id"))  # type: ignore[arg-type]
            if not future.done():
                future.set_result(obj)

    def _started(self, keys: list[Any]) -> None:
        """Requests sent ahead that now have a lane: their cases' clocks run again."""
        for key in keys:
            clock = self.held.pop(key, None)
            if clock is not None:
                self.running += 1
                clock.start()

    def _observed(self, obj: dict[str, Any]) -> None:
        case, state = obj.get("case"), obj.get("state")
        if not isinstance(case, str) or case not in self.cases or not isinstance(state, dict):
            return  # a report after its case ended (a tool thread still running), or not one at all
        self.observed[case] = latest(self.observed.get(case), state)

    def _done(self, key: int) -> None:
        if self.held.pop(key, None) is None:
            self.running -= 1

    def end(self, error: WireError | None) -> None:
        """The reply pipe ended (the process died or was killed) or carried a bad frame."""
        self.dead = True
        if self.capacity > 1:  # its cases are re-run elsewhere at once; how it ended is no case's error
            self._fail(WorkerDied("the agent's shared worker process ended", shared=True))
        task = asyncio.get_running_loop().create_task(self._describe(error))
        self._tasks.append(task)
        if self.on_end is not None:
            self.on_end(self)

    async def _describe(self, error: WireError | None) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.process.wait(), 2.0)
        if self.process.returncode is None:
            self.kill()
        await settle(self.drains)
        what = inert(describe_exit(self.process.returncode, self.output))
        if error is not None:
            what = f"sent a bad frame ({error})"
        self._fail(WorkerDied(f"the agent's worker process {what}", shared=self.capacity > 1))

    def _fail(self, died: WorkerDied) -> None:
        self.gone = self.gone or died
        pending, self.pending = self.pending, {}
        held, self.held = self.held, {}
        self.running = 0
        for key, future in pending.items():
            if not future.done():
                future.set_exception(WorkerDied(str(died), shared=died.shared, started=key not in held))

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


def latest(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any] | None:
    """The later of two snapshots of a case's observations (the worker numbers them: `seq`)."""
    if old is None or new is None:
        return new if old is None else old
    return new if _seq(new) >= _seq(old) else old


def _seq(state: dict[str, Any]) -> int:
    seq = state.get("seq")
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else 0


def inert(text: str) -> str:
    """The agent's output quoted so no line of it can start a workflow command (`::error ...`) where shown."""
    head, *rest = text.splitlines() or [""]
    return "\n".join([head, *(f"> {line}" for line in rest)])
