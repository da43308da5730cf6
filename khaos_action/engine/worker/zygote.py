"""A template process that forks python agent workers, so each new worker skips the second or more of imports
(pydantic models, the chaos machinery) a fresh interpreter pays.

The zygote is started through the sandbox like a worker (clean environment, own session, rlimits, agent user) and
imports our modules, never agent code; `fork()` hands it three pipe ends over a SOCK_SEQPACKET socket and gets the
new worker's pid back. The worker is the zygote's child, not ours, so the zygote reports its exit status
(`exit PID CODE`) and `ForkedProcess` turns that into the `returncode` / `wait()` an asyncio Process offers.
If the zygote cannot start or dies, the transport starts workers directly.

Its process is started with subprocess.Popen (engine/worker/zygote_process.py), so it can be started before the
run's event loop exists: the run starts it first, on the other core while this process still validates its config
and imports the rest of itself (engine/transport/early.py), and the `Zygote` made inside the loop adopts
it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Mapping, Sequence
from typing import Any

from khaos_action.engine.transport.base import OutputTail
from khaos_action.engine.worker.zygote_process import ZygoteProcess


class ForkedProcess:
    """A worker forked by the zygote: its pid, its output, and its exit as the zygote reported it."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.stdout: asyncio.StreamReader | None = None
        self.returncode: int | None = None
        self._done = asyncio.get_running_loop().create_future()

    def ended(self, code: int | None) -> None:
        self.returncode = code
        if not self._done.done():
            self._done.set_result(code)

    async def wait(self) -> int | None:
        return await asyncio.shield(self._done)


class _Adopted:
    """A ZygoteProcess as a Zygote holds it: the part of asyncio's Process it uses (stdout, wait, kill)."""

    def __init__(self, spawned: ZygoteProcess, stdout: asyncio.StreamReader) -> None:
        self.popen, self.stdout = spawned.popen, stdout

    def kill(self) -> None:
        self.popen.kill()  # nothing once it has been reaped

    async def wait(self) -> int:
        """Its exit code, once it ended: woken by its pidfd (Linux 5.3+), else polled every 50 ms."""
        while self.popen.poll() is None:
            try:
                fd = os.pidfd_open(self.popen.pid)
            except (AttributeError, OSError):  # not Linux, a kernel before 5.3, or just reaped
                await asyncio.sleep(0.05)
                continue
            try:
                await _readable(fd)
            finally:
                os.close(fd)
        return self.popen.returncode


async def _readable(fd: int) -> None:
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
    try:
        await ready
    finally:
        loop.remove_reader(fd)


class Zygote:
    def __init__(self, process: Any, sock: socket.socket, output: OutputTail) -> None:
        self.process, self.sock, self.output = process, sock, output
        self.alive = True
        self._pids: asyncio.Queue[ForkedProcess | None] = asyncio.Queue()
        self._forked: dict[int, ForkedProcess] = {}
        self._lock = asyncio.Lock()
        self._tasks = [asyncio.create_task(self._listen()), asyncio.create_task(output.drain(process.stdout))]

    @classmethod
    async def start(cls, argv: Sequence[str], *, env: Mapping[str, str], cwd: str, **spawn: Any) -> Zygote:
        """Spawn one now (see ZygoteProcess.spawn) and adopt it."""
        return await cls.adopt(ZygoteProcess.spawn(argv, env=env, cwd=cwd, **spawn))

    @classmethod
    async def adopt(cls, spawned: ZygoteProcess) -> Zygote:
        """Take over a zygote process spawned earlier, maybe before this event loop existed: its output is drained
        from here on, and `close` ends it."""
        loop = asyncio.get_running_loop()
        stdout = asyncio.StreamReader()
        try:
            assert spawned.popen.stdout is not None
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdout), spawned.popen.stdout)
        except BaseException:
            spawned.discard()
            raise
        spawned.sock.setblocking(False)
        return cls(_Adopted(spawned, stdout), spawned.sock, OutputTail())

    async def fork(self) -> tuple[ForkedProcess, int, int]:
        """A new worker, and our ends of its request and reply pipes."""
        if not self.alive:
            raise OSError("the zygote is gone")
        loop = asyncio.get_running_loop()
        child_read, parent_write = os.pipe()
        parent_read, child_write = os.pipe()
        out_read, out_write = os.pipe()
        try:
            async with self._lock:
                socket.send_fds(self.sock, [b"fork"], [child_read, child_write, out_write])
                forked = await asyncio.wait_for(self._pids.get(), 30)
        except BaseException:
            for fd in (parent_write, parent_read, out_read):
                os.close(fd)
            raise
        finally:
            for fd in (child_read, child_write, out_write):
                os.close(fd)
        if forked is None:
            for fd in (parent_write, parent_read, out_read):
                os.close(fd)
            raise OSError("the zygote is gone")
        stdout = forked.stdout = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdout), os.fdopen(out_read, "rb", 0))
        return forked, parent_read, parent_write

    async def _listen(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while message := await loop.sock_recv(self.sock, 64):
                kind, *numbers = message.decode().split()
                if kind == "pid":  # registered here, so an exit reported right after it finds its process
                    forked = self._forked[int(numbers[0])] = ForkedProcess(int(numbers[0]))
                    self._pids.put_nowait(forked)
                elif kind == "exit" and int(numbers[0]) in self._forked:
                    self._forked.pop(int(numbers[0])).ended(int(numbers[1]))
        except (OSError, ValueError, IndexError):
            pass
        finally:
            self.alive = False
            self._pids.put_nowait(None)
            for forked in self._forked.values():  # orphans now: their exit can no longer be known
                forked.ended(None)

    async def close(self) -> None:
        self.alive = False
        with contextlib.suppress(OSError):  # end of file both ways: the zygote returns, and so does `_listen`
            self.sock.shutdown(socket.SHUT_RDWR)
        try:
            await asyncio.wait_for(self.process.wait(), 2.0)
        except asyncio.TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        # Closed once the loop no longer watches it: a descriptor closed while watched is reused by the next one
        # opened (the exit's pidfd), which the loop then takes for the old one and never watches.
        self.sock.close()
