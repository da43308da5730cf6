"""`agent.context`: the factory of the context object an in-process agent runs with, one object per case.

The factory (`file.py:factory` or `module:factory`; a class works) is called on a case's first turn and its value
is reused for that case's later turns, so a multi-turn case keeps its state while two cases never share one. It
holds no reference to the engine's case objects (only the case's session id), so it works the same in the engine's
process and in a worker process.
"""

from __future__ import annotations

import asyncio
import inspect
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from khaos_action.engine.transport.base import AgentCallError

_KEEP = 256
"""Contexts kept for cases still running (more than any concurrency); the oldest go first."""


class ContextFactory:
    def __init__(self, spec: str, base_dir: Path) -> None:
        from khaos_action.engine.code_ref import load_callable

        self.spec = spec
        self._factory: Callable[[], Any] = load_callable(spec, base_dir, what="agent.context")
        self._by_case: OrderedDict[str, Any] = OrderedDict()

    async def for_case(self, session_id: str) -> Any:
        """The case's context object, made on its first turn."""
        if session_id and session_id in self._by_case:
            self._by_case.move_to_end(session_id)
            return self._by_case[session_id]
        try:
            value = self._factory()
            if inspect.isawaitable(value):
                value = await value
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise AgentCallError(f"agent.context {self.spec} raised {type(exc).__name__}: {exc}") from exc
        if session_id:
            self._by_case[session_id] = value
            while len(self._by_case) > _KEEP:
                self._by_case.popitem(last=False)
        return value

