"""An async agent's worker loop (engine/worker/child.py): every request in a task of its own, at most `lanes` of them
at the agent at once.

The engine sends a worker a few cases more than it has lanes (engine/worker/pool.py, AHEAD), so a lane that
frees starts the next case at once instead of idling for a round trip through the engine (a large share of each case's
time for a fast agent: docs/performance.md, "Look-ahead lanes"). Requests beyond the lanes wait here, in the order they
came. The engine holds the time limit of a request it sent ahead (`held`) until this loop says it started: on the reply
that freed its lane (`started`), else in a frame of its own; a reply says how long its request waited (`waited`), which
is no part of the agent's latency. A request the engine cancels (its time limit) frees its lane at once, whether or
not the agent's code lets its task end. While requests are in flight the loop beats, so the engine can tell a blocked
loop from a slow call.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections import deque
from typing import Any, Protocol

from khaos_action.engine.context import CaseContext, current_case
from khaos_action.engine.transport.base import AgentCallError, answered
from khaos_action.engine.wire import FrameReader, FrameWriter, WireError, reply_frame
from khaos_action.messages import AgentRequest


class Served(Protocol):
    """What the loop needs from the worker (engine/worker/child.py `Worker`)."""

    loop: asyncio.AbstractEventLoop
    inner: Any
    contexts: dict[str, CaseContext]
    beat_s: float

    def case(self, request: dict[str, Any]) -> CaseContext | None: ...
    def answer(self, request: dict[str, Any], ctx: CaseContext | None, payload: Any,
               error: str | None) -> dict[str, Any]: ...


class Lanes:
    def __init__(self, worker: Served, lanes: int) -> None:
        self.worker = worker
        self.loop = worker.loop
        self.lanes = lanes if lanes > 0 else sys.maxsize
        self.tasks: dict[Any, asyncio.Task[None]] = {}
        self.busy: set[Any] = set()
        """Requests holding a lane (an engine-cancelled one gives its lane back at once)."""
        self.queue: deque[dict[str, Any]] = deque()
        self.cancelled: set[Any] = set()
        self.writer: FrameWriter | None = None

    def serve(self, read_fd: int, write_fd: int) -> None:
        """Serve requests until the engine closes the pipe."""
        self.loop.run_until_complete(self._serve(read_fd, write_fd))

    async def _serve(self, read_fd: int, write_fd: int) -> None:
        loop = self.loop
        ended: asyncio.Future[WireError | None] = loop.create_future()
        pipe, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(write_fd, "wb", 0))
        self.writer = FrameWriter(pipe, batch=True)

        def on_end(error: WireError | None) -> None:
            if not ended.done():
                ended.set_result(error)

        await loop.connect_read_pipe(lambda: FrameReader(self.on_frame, on_end), os.fdopen(read_fd, "rb", 0))
        beats = loop.create_task(self._beat())
        error = await ended
        beats.cancel()
        for task in list(self.tasks.values()):
            task.cancel()
        if error is not None:
            raise error

    def on_frame(self, request: dict[str, Any]) -> None:
        assert self.writer is not None
        op, key = request.get("op"), request.get("id")
        if op == "cancel":  # the engine gave up on that request (its time limit): no reply is expected
            self._cancel(key)
        elif op == "invoke":
            for case in request.get("drop") or ():  # cases that ended: their contexts can go
                self.worker.contexts.pop(case, None)
            if len(self.busy) >= self.lanes:
                request["_queued"] = self.loop.time()
                self.queue.append(request)
                return
            self.busy.add(key)
            if request.get("held"):  # before the task is created, so the frame leaves before the agent runs
                self.writer.send({"op": "started", "ids": [key]})
            self._launch(key, self._invoke(request))
        elif op == "reset":  # sent only while no case is in flight
            self._launch(key, self._reset(request))
        else:
            self.writer.send({"op": "error", "id": key, "error": f"unknown request {op!r}"})

    def _launch(self, key: Any, work: Any) -> None:
        task = self.tasks[key] = self.loop.create_task(work)
        task.add_done_callback(lambda _: self.tasks.pop(key, None))

    def _cancel(self, key: Any) -> None:
        task = self.tasks.get(key)
        if task is not None:
            self.cancelled.add(key)
            task.cancel()
        if key in self.busy:
            self.busy.discard(key)
            self._next(None)
        else:
            self.queue = deque(r for r in self.queue if r.get("id") != key)

    def _next(self, answer: dict[str, Any] | None) -> None:
        """Send `answer` (if any) and start the waiting requests the free lanes can take; the engine learns which of
        the ones it holds started on that answer, or in a frame of their own, before any of them runs."""
        assert self.writer is not None
        taken: list[dict[str, Any]] = []
        while self.queue and len(self.busy) < self.lanes:
            request = self.queue.popleft()
            self.busy.add(request.get("id"))
            taken.append(request)
        held = [r.get("id") for r in taken if r.get("held")]
        if answer is not None:
            if held:
                answer["started"] = held
            self.writer.send(answer)
        elif held:
            self.writer.send({"op": "started", "ids": held})
        now = self.loop.time()
        for request in taken:
            request["_waited"] = now - request.pop("_queued", now)
            self._launch(request.get("id"), self._invoke(request))

    async def _invoke(self, request: dict[str, Any]) -> None:
        key = request.get("id")
        answer = None
        try:
            answer = await self._call(request)
        finally:
            if key in self.busy:
                self.busy.discard(key)
                self._next(answer)
            elif answer is not None:
                assert self.writer is not None
                self.writer.send(answer)

    async def _call(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The request's reply, or None when the engine cancelled it."""
        worker = self.worker
        ctx = worker.case(request)
        message = AgentRequest.of(request.get("payload") or {}, request.get("meta"))
        current_case.set(ctx)  # this task's own copy of the context
        payload = None
        try:
            payload = reply_frame(answered(await worker.inner.send(message)))
            error = None
        except AgentCallError as exc:
            error = str(exc)
        except asyncio.CancelledError:
            if request.get("id") in self.cancelled:  # ours: the engine stopped waiting, no reply
                self.cancelled.discard(request.get("id"))
                return None
            error = "agent raised CancelledError"
        except BaseException as exc:  # noqa: BLE001 - the agent's SystemExit/KeyboardInterrupt are the case's error
            error = f"agent raised {type(exc).__name__}: {exc}"
        answer = worker.answer(request, ctx, payload, error)
        if request.get("_waited"):
            answer["waited"] = round(request["_waited"], 6)
        return answer

    async def _reset(self, request: dict[str, Any]) -> None:
        try:
            await self.worker.inner.reset()
            error = None
        except AgentCallError as exc:
            error = str(exc)
        except BaseException as exc:  # noqa: BLE001 - the agent's reset hook is agent code
            error = f"agent raised {type(exc).__name__}: {exc}"
        assert self.writer is not None
        self.writer.send({"op": "done", "id": request.get("id"), "error": error})

    async def _beat(self) -> None:
        """While requests are in flight, a frame every `beat_s`: a loop that stops beating is blocked (a sync call
        inside the async agent), and the engine moves the cases in flight elsewhere."""
        assert self.writer is not None
        while True:
            await asyncio.sleep(self.worker.beat_s)
            if self.tasks:
                self.writer.send({"op": "beat"})
