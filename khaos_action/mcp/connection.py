"""One MCP client connection (stdio command or streamable-HTTP URL) kept open for a run, and result helpers.

The SDK's `mcp.Client` is an anyio context manager whose task group must be entered and left by the same task, while
the engine calls tools from many case tasks. So a small owner task enters the client and holds it until `close()`;
calls from any task go through `client`. A stdio server's stderr goes to a temporary file, so a server that dies
is reported with the end of its stderr instead of interleaving its logs with ours.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from khaos_action.errors import ConfigError

INSTALL_HINT = "the MCP SDK is not installed: `pip install 'khaos-action[mcp]'` (the official `mcp` package, v2)"


class McpUnavailable(ConfigError):
    """The optional `mcp` SDK is missing."""


def require_sdk() -> None:
    try:
        import mcp  # noqa: F401
    except ImportError as exc:
        raise McpUnavailable(INSTALL_HINT) from exc


class McpConnectError(Exception):
    """The server could not be started or reached; the message names it and ends with its stderr tail."""


class McpConnection:
    def __init__(self, *, environ: Mapping[str, str], command: str | None = None, url: str | None = None,
                 cwd: Path | None = None, env: Mapping[str, str] | None = None, what: str = "MCP server") -> None:
        """`environ`: the run's environment (the server's clean environment and the agent user come from it);
        `env`: the server's whole environment instead of that clean copy."""
        assert bool(command) != bool(url), "exactly one of command / url"
        self.command, self.url, self.cwd, self.env, self.what = command, url, cwd, env, what
        self.environ = environ
        self.client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._error: BaseException | None = None
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")  # noqa: SIM115

    @property
    def target(self) -> str:
        return self.command or self.url or ""

    @property
    def alive(self) -> bool:
        return self.client is not None and self._task is not None and not self._task.done()

    async def start(self, timeout_s: float = 30.0) -> None:
        require_sdk()
        self._task = asyncio.create_task(self._own(), name=f"mcp-connection:{self.target[:40]}")
        try:
            await asyncio.wait_for(self._ready.wait(), timeout_s)
        except asyncio.TimeoutError:
            await self.close()
            raise McpConnectError(f"the {self.what} `{self.target}` did not complete the MCP handshake within "
                                  f"{timeout_s:g}s{self.stderr_tail()}") from None
        if self._error is not None:
            error, self._error = self._error, None
            await self.close()
            raise McpConnectError(f"the {self.what} `{self.target}` could not be reached: "
                                  f"{describe_error(error)}{self.stderr_tail()}") from error

    async def _own(self) -> None:
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client

        if self.command:
            from khaos_action.engine import sandbox

            # The SDK starts the server: the sandbox's launcher drops it to the agent user; a clean environment.
            parts = sandbox.wrap_argv(shlex.split(self.command), identity=sandbox.agent_identity(self.environ))
            params = StdioServerParameters(command=parts[0], args=parts[1:], env=dict(self.env or {}) or
                                           sandbox.clean_env(environ=self.environ),
                                           cwd=str(self.cwd) if self.cwd else None)
            server: Any = stdio_client(params, errlog=self._stderr)
        else:
            server = self.url
        try:
            # cache=None: a listing must be re-read on every list (the proxy rewrites descriptions per case).
            async with Client(server, cache=None) as client:
                self.client = client
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # noqa: BLE001 - reported by start() or by the next call
            self._error = exc
        finally:
            self.client = None
            self._ready.set()

    def stderr_tail(self, limit: int = 2000) -> str:
        try:
            self._stderr.seek(0)
            text = self._stderr.read()[-limit:].strip()
        except (OSError, ValueError):
            return ""
        return f". Its stderr ends with:\n{text}" if text else ""

    async def close(self) -> None:
        self._stop.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), 5)
            except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - closing must not fail the run
                self._task.cancel()
                await asyncio.gather(self._task, return_exceptions=True)
        self._task = None
        self.client = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self._stderr.close()


def describe_error(exc: BaseException) -> str:
    """An exception (often an anyio ExceptionGroup from the SDK's task group) as one readable line."""
    while getattr(exc, "exceptions", None):  # an ExceptionGroup (Python 3.11+, or the backport on 3.10)
        exc = exc.exceptions[0]
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def result_texts(result: Any) -> list[str]:
    """The text of a CallToolResult's content blocks (other blocks described in brackets)."""
    texts = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
        elif kind == "resource" and getattr(getattr(block, "resource", None), "text", None) is not None:
            texts.append(block.resource.text)
        else:
            texts.append(f"[{kind or type(block).__name__} content]")
    return texts
