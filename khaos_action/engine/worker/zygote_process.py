"""The python worker's zygote process (engine/worker/zygote.py) from its spawn until a `Zygote` adopts it: started
with subprocess.Popen, so it can be started before the run's event loop exists (engine/transport/early.py).
Standard library only (no asyncio): the run starts it before it imports the rest of itself.
"""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any


class ZygoteProcess:
    """The zygote's process and our end of its control socket, from the moment it is spawned (with or without an
    event loop) until a `Zygote` adopts it. `key`: what it was started with (the command, the clean environment,
    the working directory, the limits and the identity), so a run adopts it only for exactly the worker it would
    start itself."""

    def __init__(self, popen: subprocess.Popen[bytes], sock: socket.socket, key: Any = None) -> None:
        self.popen, self.sock, self.key = popen, sock, key

    @classmethod
    def spawn(cls, argv: Sequence[str], *, env: Mapping[str, str], cwd: str, key: Any = None,
              **spawn: Any) -> ZygoteProcess:
        """`argv` ends with the placeholder `{ctl}` for the control socket's descriptor number; `spawn`: the
        sandbox's arguments (engine/sandbox.py spawn_kwargs). OSError when it cannot be started."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            popen = subprocess.Popen(
                [str(theirs.fileno()) if a == "{ctl}" else a for a in argv], stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, pass_fds=(theirs.fileno(),), env=dict(env),
                cwd=cwd, **spawn)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        return cls(popen, ours, key)

    def discard(self) -> None:
        """Kill and reap it, unless it has ended (idempotent): a zygote nobody adopted (the run failed first, or
        was interrupted) never outlives the run. Its control socket closing alone would end it once its imports
        are done; the kill does not wait for them."""
        self.sock.close()
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait()
        if self.popen.stdout is not None:
            self.popen.stdout.close()
