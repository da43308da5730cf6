"""The python worker's event loop: asyncio's, with timers that wake on time.

epoll counts its timeout in whole milliseconds, so asyncio rounds every wait up (a timer due in 4.2 ms wakes the loop
after 5): an agent's short `asyncio.sleep` takes noticeably longer than it asked for, on every case of a run at
scale (docs/performance.md, "Look-ahead lanes"). Here the wait itself is a `select()` on the epoll
descriptor, whose timeout is in microseconds, and epoll is then asked without waiting what is ready; the descriptors
the loop watches stay in epoll, however many and however high-numbered the agent's sockets are.
"""

from __future__ import annotations

import asyncio
import select
import selectors
from typing import Any


def timely_loop() -> asyncio.AbstractEventLoop:
    """A new event loop (not set as current): asyncio's selector loop on a `_TimelySelector` where there is epoll."""
    if _TimelySelector is None:
        return asyncio.new_event_loop()
    return asyncio.SelectorEventLoop(_TimelySelector())


def _timely_selector() -> Any:
    if not hasattr(selectors, "EpollSelector"):  # not Linux: the platform's own selector
        return None

    class TimelySelector(selectors.EpollSelector):
        def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
            if timeout is not None and timeout > 0:
                try:
                    select.select([self._selector.fileno()], [], [], timeout)  # type: ignore[attr-defined]
                except ValueError:  # our epoll descriptor past FD_SETSIZE: epoll's own (millisecond) wait
                    return super().select(timeout)
                timeout = 0
            return super().select(timeout)

    return TimelySelector


_TimelySelector = _timely_selector()
