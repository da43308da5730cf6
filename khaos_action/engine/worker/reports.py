"""What a case observed, reported by the python worker as it happens (engine/worker/child.py).

A reply carries its case's observations (fault hits, tool calls, LLM call records); a call that never replies (the
engine's time limit, the worker's death) would take them along. So when a case observes something (a fault fires,
an LLM call ends: `CaseContext.changed`), the worker sends an `observed` frame with the case's observations so far,
at once from the thread it happened on (the hit reaches the engine even if the process dies right after), and once
more a moment later (DELAY), when the record that change belongs to is whole (the tool call a fault answers is
recorded just after its hit). The engine keeps the latest snapshot of each case in flight (`seq` orders them) and
uses it when the case ends without a reply (engine/worker/pool.py).
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

from khaos_action.engine.context import CaseContext
from khaos_action.engine.wire import case_state

DELAY = 0.01
"""The follow-up report leaves this long after the change: the rest of the change's record is written by then."""


class Reports:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.emit: Callable[[dict[str, Any]], None] | None = None
        """Sends a frame now (set by the worker's loop: a sync agent's writes under a lock from any thread; an async
        agent's are the event loop's, from its own thread)."""
        self.loop_thread: int | None = None
        """The async worker's event loop thread (None for a sync agent's worker)."""
        self._seq = itertools.count(1)
        self._lock = threading.Lock()
        self._dirty: dict[str, CaseContext] = {}
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def state(self, ctx: CaseContext) -> dict[str, Any]:
        """The case's observations (wire.case_state), numbered: the engine keeps the latest (replies carry them too).
        """
        state = case_state(ctx)
        if state:
            state["seq"] = next(self._seq)
        return state

    def changed(self, ctx: CaseContext) -> None:
        """`ctx` observed something: report it now, and again once DELAY has passed."""
        self.send(ctx)
        with self._lock:
            self._dirty[ctx.case_id] = ctx
            if self._thread is None:
                self._thread = threading.Thread(target=self._later, name="khaos-reports", daemon=True)
                self._thread.start()
        self._wake.set()

    def send(self, ctx: CaseContext) -> None:
        if self.emit is None:
            return
        if self.loop_thread is not None and threading.get_ident() != self.loop_thread:
            try:
                self.loop.call_soon_threadsafe(self._send, ctx)
            except RuntimeError:  # the loop is closed: the worker is ending
                pass
            return
        self._send(ctx)

    def _send(self, ctx: CaseContext) -> None:
        try:
            state = self.state(ctx)
            if state and self.emit is not None:
                self.emit({"op": "observed", "case": ctx.case_id, "state": state})
        except Exception:  # noqa: BLE001, S110 - a report is a copy of what the reply carries: never the call's end
            pass

    def _later(self) -> None:
        while True:
            self._wake.wait()
            time.sleep(DELAY)
            self._wake.clear()
            with self._lock:
                dirty, self._dirty = self._dirty, {}
            for ctx in dirty.values():
                self.send(ctx)
