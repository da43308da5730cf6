"""The python worker's event loop (engine/timely_loop.py) wakes its timers on time: asyncio's own epoll loop waits in
whole milliseconds, rounding every timer up to the next one (a 2.3 ms sleep takes at least 3 ms there)."""

from __future__ import annotations

import asyncio
import statistics
import time

from khaos_action.engine.timely_loop import timely_loop


def _sleeps(loop: asyncio.AbstractEventLoop, seconds: float, times: int) -> list[float]:
    async def go() -> list[float]:
        took = []
        for _ in range(times):
            start = time.perf_counter()
            await asyncio.sleep(seconds)
            took.append(time.perf_counter() - start)
        return took

    try:
        return loop.run_until_complete(go())
    finally:
        loop.close()


def test_a_timer_wakes_on_time_not_at_the_next_whole_millisecond() -> None:
    took = _sleeps(timely_loop(), 0.0023, 40)
    assert min(took) >= 0.0023
    assert statistics.median(took) < 0.0029, sorted(took)


def test_the_loop_still_serves_its_descriptors_while_it_waits_for_a_timer() -> None:
    loop = timely_loop()

    async def go() -> bytes:
        reader, writer = await asyncio.open_connection(*server.sockets[0].getsockname()[:2])
        writer.write(b"ping\n")
        line = await asyncio.wait_for(reader.readline(), 5)
        writer.close()
        return line

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(0.0004)
        writer.write(await reader.readline())
        await writer.drain()
        writer.close()

    server = loop.run_until_complete(asyncio.start_server(echo, "127.0.0.1", 0))
    try:
        assert loop.run_until_complete(go()) == b"ping\n"
    finally:
        server.close()
        loop.run_until_complete(server.wait_closed())
        loop.close()
