"""A thread pool whose workers never hold the interpreter open: where sync agent code runs.

`concurrent.futures.ThreadPoolExecutor` workers are non-daemon and joined at interpreter exit, so one agent call
that hangs forever (past the engine's timeout, which only stops *waiting*) would keep `khaos-action run` alive long
after the report is written. Python cannot kill a thread; making the workers daemons lets the process end instead.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

_STOP = None


class DaemonThreadPool(Executor):
    """Up to `max_workers` daemon threads, started as work arrives."""

    def __init__(self, max_workers: int, thread_name_prefix: str = "worker") -> None:
        self._max = max(1, max_workers)
        self._prefix = thread_name_prefix
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._lock = threading.Lock()
        self._shutdown = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot schedule new work after shutdown")
            self._queue.put((future, fn, args, kwargs))
            if self._idle:
                self._idle -= 1  # a waiting worker takes it
            elif len(self._threads) < self._max:
                thread = threading.Thread(target=self._work, name=f"{self._prefix}_{len(self._threads)}",
                                          daemon=True)
                self._threads.append(thread)
                thread.start()
            # else every worker is busy: the call waits in the queue (the engine's timeout still applies)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._shutdown = True
            if cancel_futures:
                while True:
                    try:
                        item = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if item is not _STOP:
                        item[0].cancel()
            for _ in self._threads:
                self._queue.put(_STOP)
        if wait:
            for thread in self._threads:
                thread.join()

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            future, fn, args, kwargs = item
            if future.set_running_or_notify_cancel():
                try:
                    result = fn(*args, **kwargs)
                except BaseException as exc:  # noqa: BLE001 - handed to the caller through the future
                    future.set_exception(exc)
                else:
                    future.set_result(result)
                del future, fn, args, kwargs, item
            with self._lock:
                self._idle += 1
